/**
 * Time limits and cancellation for one call: the caller's AbortSignal and `timeoutMs` become
 * one signal for the transport, and whatever an aborted fetch throws becomes TIMEOUT or ABORTED.
 */
import { A2AClientError } from './errors.js';

const TIMED_OUT = Symbol('timeout');

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
    if (!this.signal.aborted) return error;
    const reason: unknown = this.signal.reason;
    if (reason === TIMED_OUT) {
      return A2AClientError.is(error, 'TIMEOUT') ? error : new A2AClientError('TIMEOUT', 'The call timed out', { cause: error });
    }
    return A2AClientError.is(error, 'ABORTED') ? error : new A2AClientError('ABORTED', 'The call was aborted', { cause: reason ?? error });
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
