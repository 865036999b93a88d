/**
 * Guarded outbound HTTP for server-initiated fetches (webhooks, JWKS, file URLs): the SSRF guard
 * (R14) and the one request function built on it (R12). Node-only (`node:http`, `node:dns`), so
 * it is not re-exported from the runtime-neutral root or server entries.
 */
export {
  SsrfBlockedError,
  addressBlock,
  isPublicAddress,
  redactUrl,
  resolveVetted,
  vetUrl,
  type LookupAll,
  type SsrfBlockReason,
  type SsrfOptions,
} from './ssrfGuard.js';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  guardedFetch,
  type GuardedRequest,
  type GuardedResponse,
} from './guardedFetch.js';
