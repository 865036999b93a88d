/**
 * `--passes N`: the selected rows run N times over (each pass on fresh servers, as every row
 * is), and each ratio is summarised across passes by its median and its range. One pass is one
 * draw from a noisy machine (the same build's ours/SDK on gRPC unary ranged 1.5x–2.6x on
 * 2026-12-02); a median of several is what a goal like "2x the SDK" should be judged on.
 * Pure, so test/bench/passes.test.ts checks it.
 */
import type { RowResult } from './run.js';

/** Median and range of one ratio across passes; undefined when no pass has it. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** Passes that had the ratio (a failed or skipped server leaves it out of a pass). */
  count: number;
}

export interface PassesSummary {
  index: number;
  row: string;
  title: string;
  passes: number;
  oursOverSdk?: Spread;
  oursOverSdkPerCore?: Spread;
  oursOverCeiling?: Spread;
  oursOverCeilingPerCore?: Spread;
}

const RATIOS = ['oursOverSdk', 'oursOverSdkPerCore', 'oursOverCeiling', 'oursOverCeilingPerCore'] as const;

/** The median (the mean of the two middle values on an even count) and range of the finite values. */
export function spread(values: readonly (number | undefined)[]): Spread | undefined {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return undefined;
  const mid = finite.length >> 1;
  const median = finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
  return { median, min: finite[0]!, max: finite[finite.length - 1]!, count: finite.length };
}

/** One summary per row seen in any pass, in row order. */
export function summarizePasses(passes: readonly (readonly RowResult[])[]): PassesSummary[] {
  const byRow = new Map<number, RowResult[]>();
  for (const pass of passes) for (const r of pass) byRow.set(r.index, [...(byRow.get(r.index) ?? []), r]);
  return [...byRow.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, results]) => {
      const first = results[0]!;
      const summary: PassesSummary = { index, row: first.row, title: first.title, passes: results.length };
      for (const ratio of RATIOS) {
        const s = spread(results.map((r) => r[ratio]));
        if (s) summary[ratio] = s;
      }
      return summary;
    });
}

/** `2.31x (1.98–2.60)`, or `-`. */
export function formatSpread(s: Spread | undefined, suffix = 'x'): string {
  if (!s) return '-';
  const f = (n: number) => `${n.toFixed(2)}${suffix}`;
  return s.count === 1 ? f(s.median) : `${f(s.median)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
}
