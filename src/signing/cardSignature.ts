/**
 * Verifying signed Agent Cards (SIGN-05..08, R22): each entry of `signatures` is a JWS with a
 * detached payload — `protected` (base64url header JSON with `alg`, `kid`, `typ: JOSE`, maybe
 * `jku`) and `signature` — over the RFC 8785 form of the card (./cardPayload.ts; a 0.3 card has
 * several accepted forms, each tried). One valid signature suffices, so several can coexist
 * while keys rotate.
 *
 * Keys come from a configured JWKS (object or URL) or list of JWKs, or else from the header's
 * `jku` when it is trusted (on the card's https origin, allow-listed, or `trustJku: true`);
 * fetched JWKS are cached (10 minutes by default) and fetched again once when a `kid` is
 * not in them. Algorithms outside the allow-list are refused, `none` always.
 *
 * Runtime-neutral (WebCrypto, fetch, TextEncoder, atob): it is what the client loads when a card
 * is signed. Signing (with `jose`) is in ./cardSigner.ts; the SSRF-guarded JWKS fetch for servers
 * and the CLI in ./node.ts.
 */
import type { AgentCard } from '../protocol/types.js';
import { fetchCappedJson } from '../net/cappedBody.js';
import { LruMap } from '../net/lruMap.js';
import { verificationPayloads } from './cardPayload.js';

export const DEFAULT_ALLOWED_ALGS: readonly string[] = ['ES256', 'ES384', 'ES512', 'RS256', 'PS256', 'EdDSA'];
export const DEFAULT_JWKS_TTL_MS = 10 * 60_000;
/** Largest JWKS document read (64 KiB). */
export const MAX_JWKS_BYTES = 64 * 1024;

export type CardSignatureFailure =
  /** The card has no signature and one is required. */
  | 'unsigned'
  /** A signature or its protected header cannot be parsed, or lacks `alg`/`kid`. */
  | 'malformed'
  /** `alg` is `none` or outside the allow-list. */
  | 'alg-not-allowed'
  /** No key source: no JWKS configured, and no `jku` in the header or one that is not trusted. */
  | 'no-key-source'
  /** The JWKS (configured URL or `jku`) could not be fetched or is not a JWKS. */
  | 'jwks-unavailable'
  /** No key with the signature's `kid` (after fetching the JWKS again). */
  | 'unknown-key'
  /** The key does not fit the algorithm (type, curve, size, `alg`, `use`). */
  | 'unusable-key'
  /** The signature does not verify: the card was changed, or signed with another key. */
  | 'bad-signature';

const BRAND = Symbol.for('a2a-kit.CardSignatureError');

export class CardSignatureError extends Error {
  readonly reason: CardSignatureFailure;
  readonly kid: string | undefined;

  constructor(reason: CardSignatureFailure, message: string, options: { kid?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.kid = options.kid;
    Object.defineProperty(this, BRAND, { value: true });
  }

  override get name(): string {
    return 'CardSignatureError';
  }

  static is(value: unknown): value is CardSignatureError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** A JWK as found in a JWKS (public members; `kid`, `alg`, `use` checked when present). */
export interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  [member: string]: unknown;
}

export interface Jwks {
  keys: Jwk[];
}

/** Fetches a JWKS document and returns its parsed JSON. */
export type JwksFetcher = (url: string, init: { signal?: AbortSignal }) => Promise<unknown>;

/**
 * Fetched JWKS by URL, each kept for `ttlMs`. Share one to share fetches. At most `maxEntries`
 * URLs (default 1,000): expired ones go first, then the least recently used, so verifying the
 * cards of caller-chosen agents stays bounded.
 */
export class JwksCache {
  private readonly entries: LruMap<string, { jwks: Jwks; until: number }>;
  constructor(
    readonly ttlMs: number = DEFAULT_JWKS_TTL_MS,
    maxEntries = 1000,
  ) {
    this.entries = new LruMap(maxEntries, (e) => Date.now() >= e.until);
  }
  get size(): number {
    return this.entries.size;
  }
  get(url: string): Jwks | undefined {
    const entry = this.entries.get(url);
    if (entry && Date.now() < entry.until) return entry.jwks;
    this.entries.delete(url);
    return undefined;
  }
  set(url: string, jwks: Jwks): void {
    this.entries.set(url, { jwks, until: Date.now() + this.ttlMs });
  }
  clear(): void {
    this.entries.clear();
  }
}

/** Shared by verifications that are not given their own cache. */
export const defaultJwksCache = new JwksCache();

export interface VerifyCardOptions {
  /** Trusted keys: a JWKS, or the URL of one. When set, `jku` headers are not followed. */
  jwks?: Jwks | string;
  /** Trusted keys as a list (same effect as `jwks: { keys }`). */
  keys?: Jwk[];
  /**
   * How JWKS URLs are fetched (default: fetch over https only). Servers and the CLI use
   * `guardedJwksFetcher()` from a2a-kit's node entry, which goes through the SSRF guard.
   */
  fetchJwks?: JwksFetcher;
  /** Default: ES256, ES384, ES512, RS256, PS256, EdDSA. `none` is refused whatever is listed. */
  allowedAlgs?: readonly string[];
  /** Throw `unsigned` when the card has no signature (default: report `verified: false`). */
  requireSignature?: boolean;
  /**
   * The URL the card was fetched from. When no keys are configured, a `jku` on the same origin,
   * both https, is trusted: whoever serves the card there could publish its keys there too.
   */
  cardUrl?: string | URL;
  /**
   * More `jku` values to trust when no keys are configured: exact JWKS URLs, or origins
   * (`https://keys.example.com`) for any JWKS on them.
   */
  trustedJkus?: readonly string[];
  /**
   * `true`: follow any `jku` when no keys are configured — the card then chooses its own key, so
   * "verified" only proves the card is unchanged since whoever hosts that JWKS signed it.
   * `false`: never follow `jku`. Default: only a `jku` on the card's https origin or in `trustedJkus`.
   */
  trustJku?: boolean;
  /** Default: a cache shared by the process. */
  jwksCache?: JwksCache;
  signal?: AbortSignal;
}

export interface CardVerification {
  /** True when one signature verified; false only for an unsigned card that need not be signed. */
  verified: boolean;
  /** The `kid` of the signature that verified. */
  kid?: string;
  alg?: string;
  /** Why `verified` is false (`unsigned`). */
  reason?: CardSignatureFailure;
}

// ---- base64url without Buffer ----

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/=+$/, '').replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));
}

export function base64UrlDecode(text: string): Uint8Array<ArrayBuffer> {
  if (/[^\w-]/.test(text)) throw new TypeError('not base64url');
  return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
}

// ---- algorithms ----

/** [kty, crv, import params, verify params] of a JWS alg. */
type AlgSpec = [string, string | undefined, AlgorithmIdentifier | RsaHashedImportParams | EcKeyImportParams, AlgorithmIdentifier | RsaPssParams | EcdsaParams];

function algSpec(alg: string): AlgSpec | undefined {
  const bits = alg.slice(2);
  const hash = `SHA-${bits}`;
  const family = alg.slice(0, 2);
  if (/^(256|384|512)$/.test(bits)) {
    if (family === 'ES') {
      const crv = bits === '512' ? 'P-521' : `P-${bits}`;
      return ['EC', crv, { name: 'ECDSA', namedCurve: crv }, { name: 'ECDSA', hash }];
    }
    if (family === 'RS') return ['RSA', undefined, { name: 'RSASSA-PKCS1-v1_5', hash }, { name: 'RSASSA-PKCS1-v1_5' }];
    if (family === 'PS') return ['RSA', undefined, { name: 'RSA-PSS', hash }, { name: 'RSA-PSS', saltLength: Number(bits) / 8 }];
  }
  return alg === 'EdDSA' || alg === 'Ed25519' ? ['OKP', 'Ed25519', { name: 'Ed25519' }, { name: 'Ed25519' }] : undefined;
}

async function importKey(jwk: Jwk, alg: string, spec: AlgSpec): Promise<CryptoKey> {
  const [kty, crv, params] = spec;
  const problem =
    jwk.kty !== kty || (crv && jwk.crv !== crv)
      ? `it is ${jwk.kty} ${jwk.crv ?? ''}`
      : jwk.alg !== undefined && jwk.alg !== alg && !(alg === 'Ed25519' && jwk.alg === 'EdDSA')
        ? `it is for ${jwk.alg}`
        : jwk.use !== undefined && jwk.use !== 'sig'
          ? `its use is ${String(jwk.use)}`
          : kty === 'RSA' && base64UrlDecode(String(jwk.n)).length < 256
            ? 'RSA keys need 2048 bits'
            : undefined;
  try {
    if (problem) throw new Error(problem);
    // Only the public members (never a private `d`); alg/use/key_ops were checked above.
    const { crv: c, x, y, n, e } = jwk;
    return await crypto.subtle.importKey('jwk', JSON.parse(JSON.stringify({ kty, crv: c, x, y, n, e })) as JsonWebKey, params, false, ['verify']);
  } catch (error) {
    throw new CardSignatureError('unusable-key', `key "${jwk.kid}" cannot verify ${alg}: ${(error as Error).message}`, { kid: jwk.kid as string });
  }
}

// ---- key lookup ----

function asJwks(value: unknown, source: string): Jwks {
  const keys = (value as Jwks | null)?.keys;
  if (!Array.isArray(keys)) throw new CardSignatureError('jwks-unavailable', `${source} is not a JWKS`);
  return { keys: keys.filter((k) => typeof k?.kty === 'string') };
}

/**
 * The default fetcher (any runtime): the runtime's fetch, https only, no redirects, 10 s, the
 * body streamed up to 64 KiB (aborted beyond). No SSRF guard: servers and the CLI use
 * `guardedJwksFetcher()` (a2a-kit/node) instead.
 */
export const fetchJwksOverHttps: JwksFetcher = async (url, init) => {
  if (!url.startsWith('https://')) throw new Error('not https');
  return fetchCappedJson(url, { maxBytes: MAX_JWKS_BYTES, timeoutMs: 10_000, accept: 'application/jwk-set+json, application/json', signal: init.signal });
};

async function fetchJwks(url: string, options: VerifyCardOptions & { fresh: boolean }): Promise<Jwks> {
  const cache = options.jwksCache ?? defaultJwksCache;
  const cached = options.fresh ? undefined : cache.get(url);
  if (cached) return cached;
  let jwks: Jwks;
  try {
    jwks = asJwks(await (options.fetchJwks ?? fetchJwksOverHttps)(url, options.signal ? { signal: options.signal } : {}), url);
  } catch (error) {
    throw new CardSignatureError('jwks-unavailable', `cannot fetch the JWKS at ${url}: ${(error as Error).message}`, { cause: error });
  }
  cache.set(url, jwks);
  return jwks;
}

/**
 * The `jku` to follow when no keys are configured, or why there is none: `trustJku: true` takes
 * any; otherwise it must be in `trustedJkus` (exact URL or origin) or https on the card's https
 * origin (E6: never a JWKS from an untrusted host).
 */
function trustedJku(jku: string | undefined, options: VerifyCardOptions): { url: string } | { why: string } {
  if (jku === undefined) return { why: 'no JWKS configured and no jku in the signature' };
  if (options.trustJku === false) return { why: 'no JWKS configured (jku is not followed)' };
  if (options.trustJku === true) return { url: jku };
  const target = parseUrl(jku);
  if (!target) return { why: 'the jku is not a URL' };
  const allowed = (options.trustedJkus ?? []).some((entry) => {
    const e = parseUrl(entry);
    // An entry without a path (or just `/`) names an origin; anything else one JWKS URL.
    return e !== undefined && (e.pathname === '/' && e.search === '' ? e.origin === target.origin : e.href === target.href);
  });
  if (allowed) return { url: jku };
  const card = options.cardUrl === undefined ? undefined : parseUrl(String(options.cardUrl));
  if (card?.protocol === 'https:' && target.protocol === 'https:' && card.origin === target.origin) return { url: jku };
  const where = card ? `the card's origin ${card.origin}${card.protocol === 'https:' ? '' : ' (not https)'}` : 'the card\'s origin (unknown)';
  return { why: `the jku ${target.origin}${target.pathname} is not trusted: not https on ${where} nor in trustedJkus` };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The key `kid`: from the configured keys, else the JWKS URL (fetched again once when `kid` is missing). */
async function findKey(kid: string, jku: string | undefined, options: VerifyCardOptions): Promise<Jwk> {
  const { jwks, keys = [] } = options;
  const configured = [...keys, ...(typeof jwks === 'object' ? asJwks(jwks, 'the configured JWKS').keys : [])];
  let key = configured.find((k) => k.kid === kid);
  const source = typeof jwks === 'string' ? { url: jwks } : configured.length === 0 ? trustedJku(jku, options) : undefined;
  const url = source && 'url' in source ? source.url : undefined;
  if (!key && !url && configured.length === 0) {
    const why = source && 'why' in source ? source.why : 'no JWKS configured';
    throw new CardSignatureError('no-key-source', `no key for "${kid}": ${why}`, { kid });
  }
  for (const fresh of url && !key ? [false, true] : []) key ??= (await fetchJwks(url as string, { ...options, fresh })).keys.find((k) => k.kid === kid);
  if (!key) throw new CardSignatureError('unknown-key', `no key "${kid}" in ${url ?? 'the configured keys'}`, { kid });
  return key;
}

// ---- verification ----

/** `payloads`: the base64url candidate payloads (./cardPayload.ts verificationPayloads); one must match. */
async function verifyOne(entry: unknown, payloads: readonly string[], options: VerifyCardOptions): Promise<[string, string]> {
  const { protected: prot, signature } = (entry ?? {}) as { protected?: unknown; signature?: unknown };
  let header: Record<string, unknown> | undefined;
  let sig: Uint8Array<ArrayBuffer> | undefined;
  try {
    header = JSON.parse(new TextDecoder().decode(base64UrlDecode(prot as string))) as Record<string, unknown>;
    sig = base64UrlDecode(signature as string);
  } catch {
    // Reported below.
  }
  const { alg, kid, jku, crit, b64 } = header ?? {};
  const allowed = options.allowedAlgs ?? DEFAULT_ALLOWED_ALGS;
  const spec = typeof alg === 'string' && alg.toLowerCase() !== 'none' && allowed.includes(alg) ? algSpec(alg) : undefined;
  if (typeof alg === 'string' && !spec) throw new CardSignatureError('alg-not-allowed', `alg ${JSON.stringify(alg)} is not allowed`, { kid: kid as string });
  // RFC 7515 §4.1.11: nothing we do not understand may be critical; RFC 7797 b64: false is not supported.
  if (!sig || typeof kid !== 'string' || !kid || !spec || crit !== undefined || (b64 ?? true) !== true || (jku !== undefined && typeof jku !== 'string')) {
    throw new CardSignatureError('malformed', 'malformed signature or protected header (alg, kid, crit, b64, jku)');
  }
  const key = await importKey(await findKey(kid, jku as string | undefined, options), alg as string, spec);
  let valid = false;
  for (const payload of payloads) valid ||= await crypto.subtle.verify(spec[3], key, sig, new TextEncoder().encode(`${prot as string}.${payload}`));
  if (!valid) {
    throw new CardSignatureError('bad-signature', `signature by "${kid}" does not match the card`, { kid });
  }
  return [kid, alg as string];
}

/**
 * Verifies the card's signatures. Resolves `{ verified: true, kid, alg }` when one verifies, or
 * `{ verified: false, reason: 'unsigned' }` for an unsigned card (unless `requireSignature`).
 * Throws CardSignatureError when the card is signed but no signature verifies; its `reason`
 * is the first failure other than `no-key-source`, if any.
 */
export async function verifyAgentCard(card: AgentCard | Record<string, unknown>, options: VerifyCardOptions = {}): Promise<CardVerification> {
  const signatures = (card as { signatures?: unknown }).signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) {
    if (options.requireSignature) throw new CardSignatureError('unsigned', 'the agent card is not signed');
    return { verified: false, reason: 'unsigned' };
  }
  const payloads = verificationPayloads(card).map((text) => base64UrlEncode(new TextEncoder().encode(text)));
  const failures: CardSignatureError[] = [];
  for (const entry of signatures) {
    try {
      const [kid, alg] = await verifyOne(entry, payloads, options);
      return { verified: true, kid, alg };
    } catch (error) {
      if (!CardSignatureError.is(error)) throw error;
      failures.push(error);
    }
  }
  const first = (failures.find((f) => f.reason !== 'no-key-source') ?? failures[0]) as CardSignatureError;
  throw new CardSignatureError(first.reason, failures.map((f) => f.message).join('; '), { ...(first.kid ? { kid: first.kid } : {}), cause: first });
}
