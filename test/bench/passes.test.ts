/**
 * `npm run bench -- --passes N` (bench/passes.ts): each row's ratios summarised across passes by
 * median and range, so a goal is judged on more than one draw from a noisy machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RowResult } from '../../bench/run.js';
import { formatSpread, spread, summarizePasses } from '../../bench/passes.js';

const row = (index: number, oursOverSdk: number | undefined, extra: Partial<RowResult> = {}): RowResult => ({
  index,
  row: `row${index}`,
  title: `Row ${index}`,
  unit: 'req/s',
  results: {},
  ...(oursOverSdk === undefined ? {} : { oursOverSdk }),
  ...extra,
});

test('bench passes: the median of an odd count is the middle value; of an even count, the mean of the two middle ones', () => {
  assert.deepEqual(spread([2.6, 1.5, 2.2]), { median: 2.2, min: 1.5, max: 2.6, count: 3 });
  assert.deepEqual(spread([1, 4, 2, 3]), { median: 2.5, min: 1, max: 4, count: 4 });
  assert.deepEqual(spread([undefined, NaN, 3]), { median: 3, min: 3, max: 3, count: 1 }, 'missing and NaN ratios are left out');
  assert.equal(spread([undefined, NaN]), undefined);
});

test('bench passes: one summary per row across passes, in row order, each ratio on its own', () => {
  const passes = [
    [row(6, 1.5, { oursOverCeiling: 0.3 }), row(7, 3.2)],
    [row(7, 3.5), row(6, 2.6, { oursOverCeiling: 0.5 })],
    [row(6, 2.2, { oursOverCeiling: 0.4 })],
  ];
  const summary = summarizePasses(passes);
  assert.deepEqual(
    summary.map((s) => [s.index, s.passes, s.oursOverSdk?.median, s.oursOverCeiling?.median]),
    [
      [6, 3, 2.2, 0.4],
      [7, 2, 3.35, undefined],
    ],
  );
  assert.equal(summary[0]?.oursOverSdk?.min, 1.5);
  assert.equal(summary[0]?.oursOverSdkPerCore, undefined, 'no pass had a per-core ratio');
});

test('bench passes: a spread prints as median (min–max), a single value alone, none as -', () => {
  assert.equal(formatSpread({ median: 2.2, min: 1.5, max: 2.6, count: 3 }), '2.20x (1.50–2.60)');
  assert.equal(formatSpread({ median: 0.4, min: 0.4, max: 0.4, count: 1 }, ''), '0.40');
  assert.equal(formatSpread(undefined), '-');
});
