/**
 * R2/R24: a run outlives a short store outage. A write the store could not take
 * (StoreUnavailableError: PostgreSQL restarting or failing over, a cut connection) is tried
 * again, with exponential backoff and jitter, until a deadline — the run's lease deadline, past
 * which another instance may take the task over, or STORE_PATIENCE_MS after its first failure
 * when there are no leases. The caller (the agent's TaskUpdater call) waits meanwhile, so the agent is
 * held back rather than failed. Whether a write whose outcome is unknown was applied is for the
 * caller to find out before trying again (TaskWriter).
 */
import { StoreUnavailableError } from '../protocol/errors.js';
import { DEFAULT_LEASE_TTL_MS } from './leases.js';

/** A deadline, in Date.now() milliseconds, read again before every wait (a renewed lease moves it). */
export type Deadline = () => number;

/**
 * Until when a write is tried again: a deadline, or `'patience'` — STORE_PATIENCE_MS from its
 * first failure (a write without a lease; nothing is computed while writes succeed).
 */
export type WriteDeadline = Deadline | 'patience';

/** How long a write without a lease deadline keeps trying: the default lease TTL. */
export const STORE_PATIENCE_MS = DEFAULT_LEASE_TTL_MS;

const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

/** The waits between the tries of one write. */
export class Patience {
  private delay = FIRST_DELAY_MS;

  constructor(private until: WriteDeadline | undefined) {}

  /**
   * After a failed try: waits before the next and resolves true, or resolves false at once when
   * `error` is not the store being unreachable, or the deadline has passed (or there is none).
   */
  async another(error: unknown): Promise<boolean> {
    if (!(error instanceof StoreUnavailableError) || !this.until) return false;
    if (this.until === 'patience') this.until = deadlineIn(STORE_PATIENCE_MS);
    const left = this.until() - Date.now();
    if (left <= 0) return false;
    const ms = Math.min(left, this.delay / 2 + (Math.random() * this.delay) / 2);
    this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return true;
  }
}

/** `attempt` until it succeeds, tried again (with Patience's waits) while the store is out of reach and `until` allows. */
export async function patiently<T>(until: WriteDeadline | undefined, attempt: (retry: boolean) => Promise<T>): Promise<T> {
  const patience = new Patience(until);
  for (let retry = false; ; retry = true) {
    try {
      return await attempt(retry);
    } catch (error) {
      if (!(await patience.another(error))) throw error;
    }
  }
}

/** A deadline `ms` from now. */
export function deadlineIn(ms: number): Deadline {
  const at = Date.now() + ms;
  return () => at;
}

/** The store out of reach, when `error` is that or wraps it (an agent may rethrow with a cause). */
export function storeOutOfReach(error: unknown): StoreUnavailableError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) if (e instanceof StoreUnavailableError) return e;
  return undefined;
}
