/**
 * How many gRPC health `Watch` streams may be open (healthService.ts): each holds a call and a
 * listener for as long as the client keeps it, so they are capped per connection (the peer's
 * address and port: one HTTP/2 connection) and in all. Past either cap a Watch is refused with
 * RESOURCE_EXHAUSTED (limitExceeded('streams')); a slot is given back when its stream ends.
 */
import { ConcurrencyLimiter, limitExceeded } from '../../server/limits.js';

export interface HealthWatchLimits {
  /** Watch streams open at once on one connection (default 100). */
  perConnection?: number;
  /** Watch streams open at once on the server (default 1,000). */
  total?: number;
}

export const DEFAULT_WATCHES_PER_CONNECTION = 100;
export const DEFAULT_WATCHES_TOTAL = 1000;

/** A slot taker: the release function of a new Watch on `connection`, or a RESOURCE_EXHAUSTED throw. */
export function healthWatchSlots(limits: HealthWatchLimits = {}): (connection: string) => () => void {
  const perConnection = new ConcurrencyLimiter({ max: limits.perConnection ?? DEFAULT_WATCHES_PER_CONNECTION });
  const total = new ConcurrencyLimiter({ max: limits.total ?? DEFAULT_WATCHES_TOTAL });
  return (connection) => {
    const all = total.acquire('');
    if (!all.ok) throw limitExceeded('streams');
    const mine = perConnection.acquire(connection);
    if (!mine.ok) {
      all.release();
      throw limitExceeded('streams');
    }
    return () => {
      mine.release();
      all.release();
    };
  };
}
