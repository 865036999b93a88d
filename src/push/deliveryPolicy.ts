/**
 * What to do after one webhook attempt (R11, digest D7): pure functions, so the retry rules are
 * tested without sockets. 2xx acknowledges; 410 Gone disables the config; 408, 425, 429, 5xx and
 * network failures are retried with exponential backoff and full jitter (Retry-After honoured);
 * any other status (3xx included: redirects are never followed) is a permanent failure.
 */

export interface RetryPolicy {
  /** Attempts per delivery before it becomes a dead letter (default 10). */
  maxAttempts: number;
  /** A delivery older than this is dead-lettered instead of tried again (default 24 h). */
  maxAgeMs: number;
  /** First backoff ceiling (default 1 s); doubles per attempt. */
  baseDelayMs: number;
  /** Largest backoff (default 5 min); Retry-After may ask for more, up to maxAgeMs. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 10,
  maxAgeMs: 24 * 60 * 60 * 1000,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60 * 1000,
};

export type AttemptResult =
  | { kind: 'response'; status: number; retryAfter?: string | undefined }
  | { kind: 'network'; error: string }
  /** The URL failed the SSRF guard: retrying cannot help. */
  | { kind: 'blocked'; error: string };

export type Verdict =
  | { action: 'complete' }
  | { action: 'disable'; error: string }
  | { action: 'retry'; delayMs: number; error: string }
  | { action: 'dead'; error: string };

const RETRYABLE_STATUS = new Set([408, 425, 429]);

export interface DecideInput {
  result: AttemptResult;
  /** Attempts made including this one. */
  attempts: number;
  /** Age of the delivery in ms at the time of the decision. */
  ageMs: number;
  policy: RetryPolicy;
  /** Uniform [0, 1) source for the jitter (tests pass a fixed one). */
  random?: () => number;
  /** Current time in ms, to read HTTP-date Retry-After values. */
  now?: number;
}

export function decide(input: DecideInput): Verdict {
  const { result, policy } = input;
  if (result.kind === 'blocked') return { action: 'dead', error: result.error };
  let error: string;
  let retryAfterMs: number | undefined;
  if (result.kind === 'response') {
    const status = result.status;
    if (status >= 200 && status < 300) return { action: 'complete' };
    if (status === 410) return { action: 'disable', error: 'receiver answered 410 Gone: config disabled' };
    error = `receiver answered HTTP ${status}`;
    if (!(status >= 500 || RETRYABLE_STATUS.has(status))) return { action: 'dead', error };
    retryAfterMs = parseRetryAfter(result.retryAfter, input.now ?? Date.now());
  } else {
    error = result.error;
  }
  if (input.attempts >= policy.maxAttempts) return { action: 'dead', error: `${error} (gave up after ${input.attempts} attempts)` };
  const delayMs = Math.max(retryAfterMs ?? 0, backoffMs({ attempts: input.attempts, policy, random: input.random ?? Math.random }));
  if (input.ageMs + delayMs > policy.maxAgeMs) return { action: 'dead', error: `${error} (delivery older than ${policy.maxAgeMs} ms)` };
  return { action: 'retry', delayMs, error };
}

/** Full jitter: uniform in [0, min(max, base * 2^(attempts-1))], at least 1 ms. */
export function backoffMs(input: { attempts: number; policy: RetryPolicy; random: () => number }): number {
  const ceiling = Math.min(input.policy.maxDelayMs, input.policy.baseDelayMs * 2 ** Math.min(30, Math.max(0, input.attempts - 1)));
  return Math.max(1, Math.floor(input.random() * ceiling));
}

/** Retry-After as delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
