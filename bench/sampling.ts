/**
 * Which server a row measures first, and which of a server's attempts the row keeps (run.ts,
 * extraRows.ts). Pure, so test/bench/sampling.test.ts checks them.
 */
import type { Measurement } from './load.js';

/**
 * The order a row measures its servers in: as listed (ours, SDK, ceiling) on odd rows, reversed
 * on even ones. Whatever an order effect favours (a machine that warms up or slows down over a
 * row, the previous server's after-load work), it does not always favour the same server.
 */
export function measureOrder<T>(servers: readonly T[], rowIndex: number): T[] {
  return rowIndex % 2 === 1 ? [...servers] : [...servers].reverse();
}

/**
 * `calmest`: the attempt other processes disturbed least (least foreign CPU; the first on a tie).
 * `median`: the attempt of median rate (the lower of the two middle ones on an even count), for
 * rows whose work runs partly in another process (the database): its CPU counts as foreign, so
 * the calmest attempt would be the one where the database did least, the slowest.
 */
export type Keep = 'calmest' | 'median';

export function keptAttempt(attempts: readonly Measurement[], keep: Keep): Measurement {
  if (attempts.length === 0) throw new Error('keptAttempt: no attempt');
  if (keep === 'median') {
    const byRate = [...attempts].sort((a, b) => a.rps - b.rps);
    return byRate[Math.floor((byRate.length - 1) / 2)]!;
  }
  return attempts.reduce((best, m) => ((m.foreignCpu ?? 0) < (best.foreignCpu ?? 0) ? m : best));
}
