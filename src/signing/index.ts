/**
 * Signed Agent Cards (A2A §8.4, SIGN-01..09): RFC 8785 canonicalization, the card's signing
 * payload, detached JWS signing (jose) and verification (WebCrypto). Runtime-neutral; the
 * Node helpers (key files, key generation, SSRF-guarded JWKS fetch) are in ./node.ts, exported
 * from a2a-kit/node.
 */
export { canonicalize, canonicalizeToBytes } from './jcs.js';
export { cardSigningPayload, canonicalCard } from './cardPayload.js';
export { AGENT_CARD_PRESENCE, type PresenceTable } from './cardPresence.js';
export {
  CardSignatureError,
  DEFAULT_ALLOWED_ALGS,
  DEFAULT_JWKS_TTL_MS,
  JwksCache,
  defaultJwksCache,
  fetchJwksOverHttps,
  verifyAgentCard,
  type CardSignatureFailure,
  type CardVerification,
  type Jwk,
  type Jwks,
  type JwksFetcher,
  type VerifyCardOptions,
} from './cardSignature.js';
export { algForJwk, jwksOf, publicJwkOf, signAgentCard, thumbprintKid, type CardSigner, type SignCardOptions } from './cardSigner.js';
