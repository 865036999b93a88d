/**
 * Abuse limits (R25): a token-bucket rate limiter and a concurrency limiter, both keyed by a
 * string (a principal id, a remote address, a tenant + context id…), plus the error a server
 * answers with when one is exceeded. Pure and runtime-neutral: no timers, no Node imports; time
 * comes from an injectable clock, and memory is bounded by a key cap.
 *
 *   const perPrincipal = new RateLimiter({ ratePerSecond: 20, burst: 40 });
 *   const decision = perPrincipal.take(principal?.id ?? `ip:${remoteAddress}`);
 *   if (!decision.ok) throw limitExceeded('requests', decision.retryAfterMs);
 *
 *   const streams = new ConcurrencyLimiter({ max: 100 });
 *   const slot = streams.acquire(principalKey);
 *   if (!slot.ok) throw limitExceeded('streams');
 *   try { …serve the stream… } finally { slot.release(); }
 */
import { A2AError } from '../protocol/errors.js';
import { ERROR_TABLE } from '../protocol/errorTable.js';
import { LruMap } from '../net/lruMap.js';

export interface RateLimiterOptions {
  /** Sustained rate: tokens added per second (> 0). */
  ratePerSecond: number;
  /** Bucket size: how many requests may come at once after a quiet period (≥ 1). */
  burst: number;
  /**
   * Most keys tracked (default 10,000). Idle (full) buckets are dropped, which changes nothing:
   * the oldest as new keys come, all of them when the cap is reached; then the least recently
   * used, which forgives that key its debt (LruMap).
   */
  maxKeys?: number;
  /** Milliseconds clock (default Date.now); tests pass a fake one. */
  now?: () => number;
}

export type RateDecision = { ok: true; remaining: number } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** A token bucket per key: `burst` tokens, refilled at `ratePerSecond`; each request takes some. */
export class RateLimiter {
  private readonly buckets: LruMap<string, Bucket>;
  private readonly rate: number;
  private readonly burst: number;
  private readonly now: () => number;

  constructor(options: RateLimiterOptions) {
    if (!(options.ratePerSecond > 0) || !Number.isFinite(options.ratePerSecond)) throw new RangeError('ratePerSecond must be a positive number');
    if (!(options.burst >= 1) || !Number.isFinite(options.burst)) throw new RangeError('burst must be at least 1');
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.rate = options.ratePerSecond / 1000;
    this.burst = options.burst;
    this.now = options.now ?? Date.now;
    this.buckets = new LruMap(maxKeys, (b) => b.tokens + Math.max(0, this.now() - b.at) * this.rate >= this.burst);
  }

  /**
   * Takes `cost` tokens (default 1) from the key's bucket: ok with what is left, or refused with
   * how long until `cost` tokens are there. A refused request takes nothing.
   */
  take(key: string, cost = 1): RateDecision {
    if (!(cost > 0) || cost > this.burst) throw new RangeError(`cost must be in (0, ${this.burst}]`);
    const now = this.now();
    const bucket = this.refilled(key, now);
    // Most recently used last, so eviction finds the coldest keys first.
    this.buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { ok: true, remaining: Math.floor(bucket.tokens) };
    }
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil((cost - bucket.tokens) / this.rate)) };
  }

  /**
   * Gives `cost` tokens back to the key's bucket (up to `burst`): a request that took them turned
   * out not to count. Nothing for a key no longer tracked (its bucket is full again anyway).
   */
  refund(key: string, cost = 1): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + cost);
  }

  /** Tokens the key has now (burst for an unknown key), without taking any. */
  peek(key: string): number {
    return this.refilled(key, this.now()).tokens;
  }

  /** Keys currently tracked. */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string, now: number): Bucket {
    const b = this.buckets.get(key);
    if (!b) return { tokens: this.burst, at: now };
    // A clock that goes backwards refills nothing (and does not un-refill).
    const elapsed = Math.max(0, now - b.at);
    b.tokens = Math.min(this.burst, b.tokens + elapsed * this.rate);
    b.at = Math.max(b.at, now);
    return b;
  }
}

export interface ConcurrencyLimiterOptions {
  /** Most concurrent holders per key (≥ 1). */
  max: number;
}

export type Acquired = { ok: true; release: () => void } | { ok: false; active: number; max: number };

/** At most `max` concurrent holders per key; a slot is held from acquire() until release(). */
export class ConcurrencyLimiter {
  private readonly counts = new Map<string, number>();
  readonly max: number;

  constructor(options: ConcurrencyLimiterOptions) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError('max must be a positive integer');
    this.max = options.max;
  }

  /** A slot for `key`, or a refusal when `max` are held. release() is idempotent. */
  acquire(key: string): Acquired {
    const active = this.counts.get(key) ?? 0;
    if (active >= this.max) return { ok: false, active, max: this.max };
    this.counts.set(key, active + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const n = (this.counts.get(key) ?? 1) - 1;
        if (n <= 0) this.counts.delete(key);
        else this.counts.set(key, n);
      },
    };
  }

  /** Slots held for `key`. */
  active(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Keys holding at least one slot (memory is proportional to this). */
  get size(): number {
    return this.counts.size;
  }
}

/** Which limit was exceeded; goes into ErrorInfo.metadata.limit. */
export type LimitName = 'requests' | 'tasksPerContext' | 'streams';

/**
 * The error for an exceeded limit: RESOURCE_EXHAUSTED (HTTP 429, gRPC RESOURCE_EXHAUSTED,
 * JSON-RPC -32000), ErrorInfo.metadata `limit` and, for rate limits, `retryAfterMs` — from
 * which HTTP bindings can write `Retry-After: retryAfterSeconds(ms)`.
 */
export function limitExceeded(limit: LimitName, retryAfterMs?: number): A2AError {
  const messages: Record<LimitName, string> = {
    requests: 'Too many requests; slow down',
    tasksPerContext: 'Too many tasks in this context',
    streams: 'Too many open streams',
  };
  const metadata: Record<string, string> = { limit };
  if (retryAfterMs !== undefined) metadata.retryAfterMs = String(Math.ceil(retryAfterMs));
  return new A2AError('RESOURCE_EXHAUSTED', messages[limit], { metadata });
}

/** A Retry-After header value (whole seconds, at least 1) for a delay in milliseconds. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * How a "come back later" answer looks over HTTP: an exceeded limit is 429, a store that cannot
 * be reached (UNAVAILABLE) 503 — the ERROR_TABLE statuses — each with `Retry-After` when the
 * error says when to retry (ErrorInfo `retryAfterMs`). Undefined for every other error.
 */
export function httpBackOff(error: unknown): { status: number; headers: Record<string, string> } | undefined {
  if (!A2AError.is(error)) return undefined;
  if (error.reason !== 'UNAVAILABLE' && !isLimit(error)) return undefined;
  const ms = Number(error.metadata.retryAfterMs);
  return { status: ERROR_TABLE[error.reason].httpStatus, headers: Number.isFinite(ms) && ms > 0 ? { 'retry-after': retryAfterSeconds(ms) } : {} };
}

/**
 * An exceeded limit over HTTP, which JSON-RPC answers with 429 too (so HTTP clients and proxies
 * back off without parsing the body); its other errors, UNAVAILABLE included, are HTTP 200 (B6).
 */
export function httpLimitFailure(error: unknown): { status: number; headers: Record<string, string> } | undefined {
  return isLimit(error) ? httpBackOff(error) : undefined;
}

function isLimit(error: unknown): boolean {
  return A2AError.is(error) && error.reason === 'RESOURCE_EXHAUSTED' && error.metadata.limit !== undefined;
}
