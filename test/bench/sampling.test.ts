/**
 * The benchmark's sampling (bench/sampling.ts): servers are measured in alternating order, so an
 * order effect does not always favour the same side; rows whose work runs partly in the
 * database keep the median attempt, other rows the one other processes disturbed least.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Measurement } from '../../bench/load.js';
import { keptAttempt, measureOrder } from '../../bench/sampling.js';

const attempt = (rps: number, foreignCpu: number): Measurement => ({ rps, p50: 1, p99: 2, count: rps, non2xx: 0, errors: 0, foreignCpu });

test('bench order: ours first on odd rows, last on even rows; ours and the SDK swap places row by row', () => {
  const servers = ['ours', 'sdk', 'ceiling'] as const;
  assert.deepEqual(measureOrder(servers, 1), ['ours', 'sdk', 'ceiling']);
  assert.deepEqual(measureOrder(servers, 2), ['ceiling', 'sdk', 'ours']);
  assert.deepEqual(measureOrder(servers, 9), ['ours', 'sdk', 'ceiling']);
  assert.deepEqual(measureOrder(['ours', 'sdk'], 8), ['sdk', 'ours']);
  const firsts = [1, 2, 3, 4, 5, 6].map((row) => measureOrder(servers, row).find((s) => s !== 'ceiling'));
  assert.deepEqual(firsts, ['ours', 'sdk', 'ours', 'sdk', 'ours', 'sdk']);
  assert.deepEqual(servers, ['ours', 'sdk', 'ceiling'], 'the list given is not reordered');
});

test('bench attempts: calmest keeps the least foreign CPU (first on a tie)', () => {
  const a = attempt(1000, 0.4);
  const b = attempt(800, 0.1);
  const c = attempt(1200, 0.1);
  assert.equal(keptAttempt([a, b, c], 'calmest'), b);
  assert.equal(keptAttempt([a], 'calmest'), a);
});

test('bench attempts: median (database rows) keeps the attempt of median rate, whatever its foreign CPU', () => {
  // The database's CPU counts as foreign: the calmest attempt is the slowest one.
  const slow = attempt(500, 0.2);
  const mid = attempt(900, 0.6);
  const fast = attempt(1100, 0.9);
  assert.equal(keptAttempt([fast, slow, mid], 'calmest'), slow);
  assert.equal(keptAttempt([fast, slow, mid], 'median'), mid);
  assert.equal(keptAttempt([fast, slow], 'median'), slow, 'even count: the lower middle');
  assert.equal(keptAttempt([mid], 'median'), mid);
  assert.throws(() => keptAttempt([], 'median'));
});
