/**
 * Time limits and cancellation for one call: the caller's AbortSignal and `timeoutMs` become
 * one signal for the transport, and whatever an aborted fetch throws becomes TIMEOUT or ABORTED.
 */
import { A2AClientError } from './errors.js';

const TIMED_OUT = Symbol('timeout');

/** An AbortSignal.timeout() fired: its reason is a DOMException named TimeoutError. */
function isTimeoutReason(reason: unknown): boolean {
  return reason === TIMED_OUT || (reason instanceof Error && reason.name === 'TimeoutError');
}

/**
 * What a signal aborted with `reason` means for the call that `error` ended: TIMEOUT for a
 * deadline's timer or an AbortSignal.timeout(), else ABORTED (`error` itself when it says so).
 */
export function abortError(reason: unknown, error: unknown): A2AClientError {
  if (isTimeoutReason(reason)) return timedOut(error);
  return A2AClientError.is(error, 'ABORTED') ? error : new A2AClientError('ABORTED', 'The call was aborted', { cause: reason ?? error });
}

/** TIMEOUT: the call's `timeoutMs` ran out (`error` itself when it says so). */
export function timedOut(error: unknown): A2AClientError {
  return A2AClientError.is(error, 'TIMEOUT') ? error : new A2AClientError('TIMEOUT', 'The call timed out', { cause: error });
}

/** The calls following one caller signal, behind one 'abort' listener on it. */
interface Followers {
  calls: Set<() => void>;
  listener: () => void;
}
const followers = new WeakMap<AbortSignal, Followers>();

/**
 * Runs `onAbort` when `signal` aborts; returns the way to stop. One listener per signal, however
 * many calls share it: a batch of calls cancelled by one controller would otherwise add a
 * listener each, and Node warns (MaxListenersExceededWarning) past ten.
 */
function follow(signal: AbortSignal, onAbort: () => void): () => void {
  let f = followers.get(signal);
  if (!f) {
    const calls = new Set<() => void>();
    const listener = () => {
      followers.delete(signal);
      for (const call of [...calls]) call();
    };
    f = { calls, listener };
    followers.set(signal, f);
    signal.addEventListener('abort', listener, { once: true });
  }
  const mine = f;
  mine.calls.add(onAbort);
  return () => {
    mine.calls.delete(onAbort);
    if (mine.calls.size > 0 || followers.get(signal) !== mine) return;
    followers.delete(signal);
    signal.removeEventListener('abort', mine.listener);
  };
}

export class Deadline {
  readonly signal: AbortSignal;
  /** When `timeoutMs` runs out, in ms since the epoch; undefined without one. */
  readonly at: number | undefined;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unfollow: (() => void) | undefined;

  constructor(
    outer: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    this.signal = this.controller.signal;
    if (outer?.aborted) this.controller.abort(outer.reason);
    else if (outer) this.unfollow = follow(outer, () => this.controller.abort(outer.reason));
    if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.at = Date.now() + timeoutMs;
      this.timer = setTimeout(() => this.controller.abort(TIMED_OUT), timeoutMs);
    }
  }

  /** Stops the timer (a stream is open: `timeoutMs` bounds opening it, not reading it). */
  stopTimer(): void {
    clearTimeout(this.timer);
  }

  /** Releases the timer and the listener on the caller's signal. */
  dispose(): void {
    this.stopTimer();
    this.unfollow?.();
  }

  /** Throws TIMEOUT/ABORTED if the deadline has fired. */
  check(): void {
    if (this.signal.aborted) throw this.wrap(undefined);
  }

  /** Turns a failure into TIMEOUT or ABORTED when it happened because this deadline fired. */
  wrap(error: unknown): unknown {
    return this.signal.aborted ? abortError(this.signal.reason, error) : error;
  }

  /**
   * `work`'s result, or TIMEOUT / ABORTED as soon as the deadline fires: for work that does not
   * take the signal (an auth provider, an interceptor — a hung token endpoint), which is left
   * to finish on its own.
   */
  async race<T>(work: T | Promise<T>): Promise<T> {
    this.check();
    let stop = () => {};
    const fired = new Promise<never>((_resolve, reject) => {
      const onAbort = () => reject(this.wrap(undefined));
      this.signal.addEventListener('abort', onAbort, { once: true });
      stop = () => this.signal.removeEventListener('abort', onAbort);
    });
    try {
      return await Promise.race([work, fired]);
    } finally {
      stop();
    }
  }
}

/** Resolves after `ms`; rejects with ABORTED (or the deadline's error) when `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(new A2AClientError('ABORTED', 'The call was aborted', { cause: signal?.reason }));
    };
    if (signal?.aborted) return abort();
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
