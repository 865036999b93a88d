/**
 * Retention (off by default): shortly after start (`firstDelayMs`, so a server that restarts
 * more often than the interval still purges) and then every `intervalMs`, terminal tasks whose last status change is
 * older than `maxAgeMs` are deleted with their event logs, message ids, push configs and
 * push deliveries (pending and dead). Tasks that are running or waiting
 * for input are never touched. The timer does not keep the process alive.
 */
export interface RetentionOptions {
  /** Deletes terminal tasks older than the given instant; returns how many. */
  purge: (before: Date) => Promise<number>;
  maxAgeMs: number;
  /** Default: a tenth of maxAgeMs, between 1 minute and 1 hour. */
  intervalMs?: number;
  /** The first purge, this long after start (default 1 s, or the interval if shorter). */
  firstDelayMs?: number;
  onPurged?: (count: number) => void;
  onError?: (error: unknown) => void;
  now?: () => number;
}

export interface Retention {
  /** Runs one purge now (also what the timer does). */
  runOnce(): Promise<number>;
  stop(): void;
}

/** The first purge comes this long after start: a server restarting more often than the interval still purges. */
export const FIRST_DELAY_MS = 1000;

export function startRetention(options: RetentionOptions): Retention {
  if (!(options.maxAgeMs > 0)) throw new RangeError('retention maxAgeMs must be positive');
  const interval = options.intervalMs ?? Math.min(3_600_000, Math.max(60_000, Math.floor(options.maxAgeMs / 10)));
  const now = options.now ?? Date.now;
  let running: Promise<number> | undefined;
  const runOnce = (): Promise<number> => {
    running ??= options
      .purge(new Date(now() - options.maxAgeMs))
      .then((n) => {
        if (n > 0) options.onPurged?.(n);
        return n;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const tick = () => {
    runOnce().catch((error: unknown) => options.onError?.(error));
  };
  let timer: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    tick();
    timer = setInterval(tick, interval);
    timer.unref();
  }, Math.min(options.firstDelayMs ?? FIRST_DELAY_MS, interval));
  first.unref();
  return {
    runOnce,
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
