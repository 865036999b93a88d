/**
 * Per-webhook-host slots (R12) that never let one slow host hold up the others. A claimed
 * delivery is admitted to its host: it starts when the host has a free slot, or waits for one
 * when fewer deliveries than the cap already wait (so each waits at most about one attempt,
 * well inside its claim's lock); beyond that it is given back to the outbox for later
 * (`deferMs`), freeing the dispatcher for deliveries to other hosts. The dispatcher keeps one
 * set keyed by host name and one keyed by resolved address (`tryAdmit`, which never waits).
 */

interface HostState {
  running: number;
  waiters: Array<() => void>;
  /** Smoothed attempt duration (ms), once an attempt finished. */
  ewmaMs: number | undefined;
  /** When the host last finished an attempt, or became busy. */
  progressAt: number;
}

/** A deferred delivery comes back after this long at least (a fast host frees slots quickly)... */
const MIN_DEFER_MS = 20;
/** ...and at most this long (a hanging host is retried by its own deliveries' timeouts). */
const MAX_DEFER_MS = 5_000;

const STARTED: Promise<void> = Promise.resolve();

export class HostSlots {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly cap: number) {}

  /**
   * A slot on `host`: resolved when it is held (at once or after waiting), or undefined when the
   * delivery should be deferred. Every resolved slot is given back with release().
   */
  admit(host: string): Promise<void> | undefined {
    const state = this.stateOf(host);
    if (state.running < this.cap) {
      state.running++;
      return STARTED;
    }
    if (state.waiters.length >= this.cap) return undefined;
    const waiters = state.waiters;
    return new Promise<void>((resolve) => waiters.push(resolve));
  }

  /** A slot on `host` if one is free now (true: held, give it back with release()); never waits. */
  tryAdmit(host: string): boolean {
    const state = this.stateOf(host);
    if (state.running >= this.cap) return false;
    state.running++;
    return true;
  }

  /**
   * An attempt on `host` that took `durationMs` ended (undefined: it was not made after all): its
   * slot goes to the next waiter, or is freed.
   */
  release(host: string, durationMs: number | undefined): void {
    const state = this.hosts.get(host);
    if (!state) return;
    if (durationMs !== undefined) {
      state.ewmaMs = state.ewmaMs === undefined ? durationMs : state.ewmaMs * 0.8 + durationMs * 0.2;
      state.progressAt = Date.now();
    }
    const next = state.waiters.shift();
    if (next) return next();
    if (--state.running === 0) this.hosts.delete(host);
  }

  private stateOf(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = { running: 0, waiters: [], ewmaMs: undefined, progressAt: Date.now() };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** How long to defer a delivery to `host`: about how long its attempts take, or have been stuck. */
  deferMs(host: string): number {
    const state = this.hosts.get(host);
    if (!state) return MIN_DEFER_MS;
    const stuckMs = Date.now() - state.progressAt;
    return Math.min(MAX_DEFER_MS, Math.max(MIN_DEFER_MS, state.ewmaMs ?? 0, stuckMs));
  }
}
