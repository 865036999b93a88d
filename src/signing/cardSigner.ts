/**
 * Signing Agent Cards (SIGN-05/06) with `jose`: a JWS over the RFC 8785 form of the card
 * (./cardPayload.ts) with `alg`, `kid`, `typ: JOSE` (and `jku` when given) in the protected
 * header, stored detached as `{ protected, signature }` in `signatures`. A hybrid card (1.0 and
 * 0.3 members) gets two signatures, one per form (./cardPayload.ts signingPayloadTexts).
 * Runtime-neutral (jose runs on WebCrypto); reading key files is in ./node.ts.
 */
import { FlattenedSign, calculateJwkThumbprint, exportJWK, importJWK, type CryptoKey, type JWK, type KeyObject } from 'jose';
import type { AgentCardSignature } from '../protocol/types.js';
import { signingPayloadTexts } from './cardPayload.js';
import type { Jwk, Jwks } from './cardSignature.js';

export interface SignCardOptions {
  /** The private key: a CryptoKey, a Node KeyObject, or a private JWK. */
  key: CryptoKey | KeyObject | JWK;
  /** The key id verifiers look up in the JWKS (default: the JWK thumbprint, RFC 7638). */
  kid?: string;
  /** Default: the JWK's `alg`, else ES256/ES384/ES512 by curve, EdDSA for Ed25519, RS256 for RSA. */
  alg?: string;
  /** Where verifiers find the public key: a JWKS URL, put in the protected header. */
  jku?: string;
  /** Keep the card's existing signatures and add this one (rotation: sign with old and new key). */
  append?: boolean;
}

/**
 * Signs a card of any shape — the 1.0 card, and the 0.3 and hybrid cards served to 0.3 clients —
 * over its own JSON, as signAgentCard does: serveAgent's `signCard` (signCardWith from a key file).
 */
export type CardSigner = <C extends object>(card: C) => Promise<C>;

/** The JWS `alg` that fits a key (its `alg`, else by type and curve). */
export function algForJwk(jwk: JWK | Jwk): string {
  if (typeof jwk.alg === 'string') return jwk.alg;
  if (jwk.kty === 'EC') return jwk.crv === 'P-384' ? 'ES384' : jwk.crv === 'P-521' ? 'ES512' : 'ES256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'RSA') return 'RS256';
  throw new TypeError(`No signature algorithm for a ${jwk.kty} key`);
}

/** The public half of a JWK (what goes into a JWKS), with `kid`, `alg` and `use: sig`. */
export function publicJwkOf(jwk: JWK, init: { kid: string; alg: string }): Jwk {
  const out: Jwk = { kty: jwk.kty as string, kid: init.kid, alg: init.alg, use: 'sig' };
  for (const member of ['crv', 'x', 'y', 'n', 'e'] as const) if (typeof jwk[member] === 'string') out[member] = jwk[member];
  return out;
}

/** The RFC 7638 thumbprint of the key's public part: the default `kid`. */
export function thumbprintKid(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(publicJwkOf(jwk, { kid: '', alg: '' }) as JWK);
}

async function asJwk(key: SignCardOptions['key']): Promise<JWK> {
  if (typeof key === 'object' && key !== null && 'kty' in key && typeof key.kty === 'string') return key;
  return exportJWK(key as CryptoKey | KeyObject);
}

/**
 * The card with a detached JWS signature added (or replacing existing ones): over the form its
 * shape calls for, and for a hybrid card one over each form (1.0 first).
 */
export async function signAgentCard<C extends object>(card: C, options: SignCardOptions): Promise<C & { signatures: AgentCardSignature[] }> {
  const jwk = await asJwk(options.key);
  if (typeof jwk.d !== 'string') throw new TypeError('Signing needs a private key');
  const alg = options.alg ?? algForJwk(jwk);
  if (alg.toLowerCase() === 'none') throw new TypeError('alg "none" cannot sign');
  const kid = options.kid ?? (typeof jwk.kid === 'string' ? jwk.kid : await thumbprintKid(jwk));
  const key = 'kty' in options.key ? await importJWK(options.key, alg) : options.key;
  const header = { alg, kid, typ: 'JOSE', ...(options.jku ? { jku: options.jku } : {}) };
  const signatures: AgentCardSignature[] = [];
  for (const text of signingPayloadTexts(card as Record<string, unknown>)) {
    const jws = await new FlattenedSign(new TextEncoder().encode(text)).setProtectedHeader(header).sign(key as CryptoKey | KeyObject | Uint8Array);
    signatures.push({ protected: jws.protected ?? '', signature: jws.signature });
  }
  const existing = options.append ? ((card as { signatures?: AgentCardSignature[] }).signatures ?? []) : [];
  return { ...card, signatures: [...existing, ...signatures] };
}

/** A JWKS holding the public halves of `keys`. */
export async function jwksOf(keys: { key: JWK; kid?: string; alg?: string }[]): Promise<Jwks> {
  return {
    keys: await Promise.all(keys.map(async ({ key, kid, alg }) => publicJwkOf(key, { kid: kid ?? (typeof key.kid === 'string' ? key.kid : await thumbprintKid(key)), alg: alg ?? algForJwk(key) }))),
  };
}
