/**
 * The card resolver's signature check (SIGN-07/08), loaded with the verifier
 * (../signing/cardSignature.ts) only when a card is to be verified: bundlers split both off, so
 * agents with unsigned cards never load them. It imports nothing else of the client: what it
 * shares with the first download would otherwise be split into a chunk of its own.
 */
import { CardSignatureError, verifyAgentCard } from '../signing/cardSignature.js';
import type { CardSignatureMode, ResolveCardOptions } from './cardResolver.js';

/** Verified or not (`verified`), or the failure that rejects the card (the resolver reports it as a CardVerificationError). */
export type CardCheck = { verified: boolean; failure?: undefined } | { failure: CardSignatureError };

/**
 * Verifies `card` (fetched from `cardUrl`) in `mode`. A signed card whose key cannot be found
 * anywhere (no JWKS configured, no trusted `jku`) passes in `if-present` mode — its signature
 * proves nothing without a key — and fails in `require` mode; every other failure rejects the card.
 */
export async function verifyCard(card: unknown, options: ResolveCardOptions & { cardUrl?: string | undefined }, mode: CardSignatureMode): Promise<CardCheck> {
  const { cardUrl } = options;
  try {
    const result = await verifyAgentCard(card as Record<string, unknown>, {
      ...options.cardVerification,
      // A jku on the origin the card came from is trusted (https only); other jku hosts only when allow-listed.
      ...(cardUrl !== undefined ? { cardUrl } : {}),
      requireSignature: mode === 'require',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    options.onCardVerified?.(result);
    return { verified: result.verified };
  } catch (error) {
    if (!CardSignatureError.is(error)) throw error;
    if (error.reason === 'no-key-source' && mode === 'if-present') {
      options.onCardVerified?.({ verified: false, reason: error.reason });
      return { verified: false };
    }
    return { failure: error };
  }
}
