/**
 * Agent Card discovery (CARD-02) with HTTP caching (CACHE-04/05): an in-memory cache keyed by
 * card URL that honours Cache-Control (max-age, Age, no-cache, no-store) and revalidates
 * stale entries with If-None-Match / If-Modified-Since, keeping the cached card on 304.
 *
 * Signed cards (SIGN-07/08) are verified before they are used or cached, and a cached card again
 * by each resolution that uses it, under that resolution's own options: by default when they
 * carry signatures (the verifier, ../signing/cardSignature.ts, is loaded only then), or always
 * with `verifyCardSignatures: 'require'`.
 */
import { readCappedResponse } from '../net/cappedRead.js';
import { LruMap } from '../net/lruMap.js';
import { isV03CardShape } from '../protocol/cardShape.js';
import { PROTOCOL_VERSION, VERSION_HEADER } from '../protocol/serviceParams.js';
import type { AgentCard } from '../protocol/types.js';
import type { CardVerification, VerifyCardOptions } from '../signing/cardSignature.js';
import { A2AClientError, CardVerificationError } from './errors.js';
import { isObject, send } from './http.js';
import { followCardRedirects } from './redirects.js';
import { abortError } from './signals.js';
import type { FetchLike } from './transport.js';

export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

/**
 * A cached card. No verification verdict is kept: it held only for the options of the
 * resolution that fetched the card (its keys, jku trust, algorithms, mode), so every resolution
 * verifies the cached card again under its own options (JWKS fetches are cached).
 */
interface CacheEntry {
  card: AgentCard;
  etag?: string;
  lastModified?: string;
  /** Fresh until this time (ms since epoch; at most the time of the last fetch or revalidation); revalidated after. */
  freshUntil: number;
}

export interface CardCacheOptions {
  /** Most cards kept (default 1,000); the least recently used goes first. */
  maxEntries?: number;
  /**
   * A card stale (past its freshness, kept for revalidation with its ETag) for longer than this
   * goes before any other when the cache is full, or when it is the oldest (default 1 day).
   */
  maxStaleMs?: number;
}

/** Cards by URL, bounded: a client resolving caller-chosen agent URLs does not grow without end. */
export class CardCache {
  private readonly entries: LruMap<string, CacheEntry>;
  constructor(options: CardCacheOptions = {}) {
    const maxStale = options.maxStaleMs ?? 86_400_000;
    this.entries = new LruMap(options.maxEntries ?? 1000, (e) => Date.now() - e.freshUntil > maxStale);
  }
  get size(): number {
    return this.entries.size;
  }
  get(url: string): CacheEntry | undefined {
    return this.entries.get(url);
  }
  set(url: string, entry: CacheEntry): void {
    this.entries.set(url, entry);
  }
  delete(url: string): void {
    this.entries.delete(url);
  }
  clear(): void {
    this.entries.clear();
  }
}

/** Shared by clients that are not given their own cache. */
export const defaultCardCache = new CardCache();

/**
 * The card URL for an agent URL: a URL ending in `.json` is the card itself; otherwise the
 * well-known path below it (`https://host` → `https://host/.well-known/agent-card.json`).
 */
export function cardUrlFor(agentUrl: string | URL): string {
  const url = new URL(agentUrl);
  if (url.pathname.endsWith('.json')) return url.href;
  url.pathname = url.pathname.replace(/\/+$/, '') + WELL_KNOWN_CARD_PATH;
  return url.href;
}

/** The fields every use of a card relies on (CARD-03); anything else is left to the agent. */
export function checkCard(value: unknown, source = 'The agent card'): AgentCard {
  const problem = !isObject(value)
    ? 'is not a JSON object'
    : typeof value.name !== 'string'
      ? 'has no name'
      : !isObject(value.capabilities)
        ? 'has no capabilities'
        : !Array.isArray(value.supportedInterfaces) || value.supportedInterfaces.length === 0
          ? 'has no supportedInterfaces'
          : value.supportedInterfaces.some((i) => !isObject(i) || typeof i.url !== 'string' || typeof i.protocolBinding !== 'string')
            ? 'has an interface without url or protocolBinding'
            : undefined;
  if (problem) throw new A2AClientError('BAD_CARD', `${source} ${problem}`);
  return value as unknown as AgentCard;
}

function freshUntil(headers: Headers): number | undefined {
  const cc = (headers.get('cache-control') ?? '').toLowerCase();
  if (/(^|,)\s*no-store\b/.test(cc)) return undefined;
  const maxAge = /(^|,)\s*no-cache\b/.test(cc) ? null : /(?:^|,)\s*max-age\s*=\s*"?(\d+)/.exec(cc);
  // CACHE-05: without a lifetime the card is revalidated on every use (cheap with an ETag): it is
  // stale from now on (not from 1970, so that how long it has been stale means something).
  const age = Number(headers.get('age') ?? 0) || 0;
  return Date.now() + (maxAge ? Math.max(0, Number(maxAge[1]) - age) * 1000 : 0);
}

/**
 * Signature checks of fetched cards: `if-present` (default) verifies signed cards and accepts
 * unsigned ones; `require` also refuses unsigned cards; `off` skips verification.
 */
export type CardSignatureMode = 'if-present' | 'require' | 'off';

/** Where the keys come from and which algorithms are accepted (see verifyAgentCard). */
export type CardVerificationOptions = Omit<VerifyCardOptions, 'requireSignature' | 'signal' | 'cardUrl'>;

export interface ResolveCardOptions {
  fetch?: FetchLike;
  /** `false` disables caching. Default: a cache shared by the process. */
  cache?: CardCache | false | undefined;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal;
  /** Default `if-present`. */
  verifyCardSignatures?: CardSignatureMode | undefined;
  /**
   * Keys (`jwks`, `keys`), `fetchJwks`, `allowedAlgs`, `trustedJkus`, `trustJku`... Without keys,
   * the signature's `jku` is followed only when it is https on the card URL's https origin (or
   * allow-listed); `cardUrl` is filled in with the URL the card was fetched from.
   */
  cardVerification?: CardVerificationOptions | undefined;
  /** Called with the outcome of each verification (cards served from the cache are verified again). */
  onCardVerified?: (result: CardVerification) => void;
  /** Reads a card of another protocol version as a 1.0 card, or undefined (see TransportFactory.readCard); A2A 0.3 cards are read anyway. */
  readCard?: (card: unknown) => Promise<AgentCard | undefined>;
  /** The largest card read, in bytes (default 1 MiB): a larger one is BAD_CARD, and not downloaded further. */
  maxCardBytes?: number | undefined;
}

/** Default `maxCardBytes`: far above any real card, far below what would strain the client. */
export const DEFAULT_MAX_CARD_BYTES = 1024 * 1024;

/** Translated cards (A2A 0.3) → the card as the agent served it. */
const RAW_CARDS = new WeakMap<AgentCard, unknown>();

/** The card as the agent served it: the A2A 0.3 JSON behind a translated card, else the card itself. */
export function rawCardOf(card: AgentCard): unknown {
  return RAW_CARDS.get(card) ?? card;
}

/** Cards read by resolveCard → the URL they were read from. */
const CARD_URLS = new WeakMap<AgentCard, string>();

/**
 * The URL `card` was read from by resolveCard (createClient with an agent URL, fetchCard), else
 * undefined: its scheme says whether the agent serves TLS (TransportContext.cardUrl).
 */
export function cardUrlOf(card: AgentCard): string | undefined {
  return CARD_URLS.get(card);
}

/** `card`, remembered as read from `url`. */
function readFrom(card: AgentCard, url: string): AgentCard {
  CARD_URLS.set(card, url);
  return card;
}

/**
 * An A2A 0.3 card as a 1.0 card whose interfaces say `protocolVersion: '0.3'` (the translation,
 * src/compat, is loaded only now); undefined for a card of another shape.
 */
export async function readV03Card(value: unknown, source = 'The agent card'): Promise<AgentCard | undefined> {
  if (!isV03CardShape(value)) return undefined;
  const { readFetchedV03Card } = await import('./v03Translate.js');
  return readFetchedV03Card(value, source);
}

/**
 * `value` as a 1.0 card: translated by `readCard` when it reads it, else by readV03Card when
 * it is an A2A 0.3 card (the original kept for rawCardOf), else checked.
 */
export async function readAgentCard(value: unknown, readCard: ResolveCardOptions['readCard'], source?: string): Promise<AgentCard> {
  const card = (await readCard?.(value)) ?? (await readV03Card(value, source));
  if (!card) return checkCard(value, source);
  RAW_CARDS.set(card, value);
  return card;
}

/**
 * Verifies `card` (fetched from `cardUrl`) as `options` say (see cardVerification.ts): signed
 * cards by default, every card in `require` mode, none when `off`. A signed card whose key
 * cannot be found anywhere passes in `if-present` mode and fails in `require` mode; every other
 * failure rejects the card (CardVerificationError).
 */
export async function checkCardSignature(card: AgentCard, options: ResolveCardOptions & { cardUrl?: string }, source: string): Promise<boolean> {
  const mode = options.verifyCardSignatures ?? 'if-present';
  if (mode === 'off') return false;
  const signed = Array.isArray(card.signatures) && card.signatures.length > 0;
  if (!signed && mode === 'if-present') return false;
  // Loaded on use: bundlers split the verifier off, so unsigned agents never load it.
  const { verifyCard } = await import('./cardVerification.js');
  const check = await verifyCard(card, options, mode);
  if (check.failure === undefined) return check.verified;
  const { failure } = check;
  throw new CardVerificationError(`${source} failed signature verification (${failure.reason}): ${failure.message}`, {
    reason: failure.reason,
    kid: failure.kid,
    cause: failure,
  });
}

/**
 * A cached card, verified under these options over the card as served (SIGN-08): whatever
 * another resolution concluded with its own keys, jku trust or mode says nothing about these
 * (a card accepted through its own `jku` must still fail against pinned keys).
 */
async function verifiedFromCache(card: AgentCard, options: ResolveCardOptions & { cardUrl: string }, source: string): Promise<AgentCard> {
  await checkCardSignature(rawCardOf(card) as AgentCard, options, source);
  return card;
}

/** Fetches (or revalidates) the agent card at `agentUrl` (see cardUrlFor). */
export async function resolveCard(agentUrl: string | URL, options: ResolveCardOptions = {}): Promise<AgentCard> {
  const url = cardUrlFor(agentUrl);
  const cache = options.cache === false ? undefined : (options.cache ?? defaultCardCache);
  const cached = cache?.get(url);
  const source = `The agent card at ${url}`;
  if (cached && Date.now() < cached.freshUntil) return readFrom(await verifiedFromCache(cached.card, { ...options, cardUrl: url }, source), url);
  const headers = new Headers({ accept: 'application/json', [VERSION_HEADER]: PROTOCOL_VERSION });
  // The caller's headers replace these whatever their case (`-H A2A-Version=0.3` asks for the 0.3 card).
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  if (cached?.etag) headers.set('if-none-match', cached.etag);
  if (cached?.lastModified) headers.set('if-modified-since', cached.lastModified);
  // A conditional fetch() otherwise adds `Cache-Control: no-cache`, which servers built on
  // Express's req.fresh (the official SDK's card route) answer with the full card, never 304.
  if (cached) headers.set('cache-control', 'max-age=0');
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const get = (target: string) => send(fetch, target, { headers, ...(options.signal ? { signal: options.signal } : {}) });
  const res = await followCardRedirects(await get(url), { url, get });
  if (res.status === 304 && cached) {
    const until = freshUntil(res.headers);
    if (until === undefined) cache?.delete(url);
    else cached.freshUntil = until;
    return readFrom(await verifiedFromCache(cached.card, { ...options, cardUrl: url }, source), url);
  }
  if (!res.ok) throw new A2AClientError('BAD_CARD', `No agent card at ${url} (HTTP ${res.status})`, { status: res.status });
  const maxBytes = options.maxCardBytes ?? DEFAULT_MAX_CARD_BYTES;
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCappedResponse(res, maxBytes);
  } catch (error) {
    if (options.signal?.aborted) throw abortError(options.signal.reason, error);
    throw new A2AClientError('NETWORK', `${source} could not be read`, { cause: error, status: res.status });
  }
  if (!bytes) throw new A2AClientError('BAD_CARD', `${source}: card too large (more than ${maxBytes} bytes)`, { status: res.status });
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new A2AClientError('BAD_CARD', `${source} is not JSON`, { cause: error, status: res.status });
  }
  const card = await readAgentCard(body, options.readCard, source);
  // Signatures are checked over the card as served (before any translation).
  await checkCardSignature(body as AgentCard, { ...options, cardUrl: url }, source);
  const until = freshUntil(res.headers);
  if (cache && until !== undefined) {
    const entry: CacheEntry = { card, freshUntil: until };
    const etag = res.headers.get('etag');
    const lastModified = res.headers.get('last-modified');
    if (etag) entry.etag = etag;
    if (lastModified) entry.lastModified = lastModified;
    cache.set(url, entry);
  } else {
    cache?.delete(url);
  }
  return readFrom(card, url);
}
