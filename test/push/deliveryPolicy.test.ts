/** R11 / D7: the retry rules of push delivery, as pure functions (no sockets, no clocks). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, decide, DEFAULT_RETRY_POLICY, parseRetryAfter, type AttemptResult } from '../../src/push/deliveryPolicy.js';

const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, maxAgeMs: 3_600_000 };
const verdict = (result: AttemptResult, attempts = 1, ageMs = 0) => decide({ result, attempts, ageMs, policy, random: () => 0.5, now: 0 });

test('D7 any 2xx acknowledges', () => {
  for (const status of [200, 201, 202, 204, 299]) assert.equal(verdict({ kind: 'response', status }).action, 'complete');
});

test('R11 410 Gone disables the config', () => {
  assert.equal(verdict({ kind: 'response', status: 410 }).action, 'disable');
});

test('D7 408, 425, 429, 5xx and network failures are retried', () => {
  for (const status of [408, 425, 429, 500, 502, 503, 504, 599]) assert.equal(verdict({ kind: 'response', status }).action, 'retry', String(status));
  assert.equal(verdict({ kind: 'network', error: 'network error ECONNREFUSED' }).action, 'retry');
});

test('D7 R12 other 4xx and every 3xx (redirects are not followed) are permanent', () => {
  for (const status of [301, 302, 307, 308, 400, 401, 403, 404, 413, 422]) assert.equal(verdict({ kind: 'response', status }).action, 'dead', String(status));
});

test('R14 a URL the SSRF guard refuses is dead at once', () => {
  assert.equal(verdict({ kind: 'blocked', error: 'address' }).action, 'dead');
});

test('R11 exponential backoff with full jitter, capped', () => {
  const at = (attempts: number, r: number) => backoffMs({ attempts, policy, random: () => r });
  assert.equal(at(1, 0.999999), 999);
  assert.equal(at(2, 0.999999), 1999);
  assert.equal(at(3, 0.999999), 3999);
  assert.equal(at(20, 0.999999), 59_999, 'capped at maxDelayMs');
  assert.equal(at(3, 0), 1, 'jitter reaches down to (almost) zero');
  assert.equal(at(3, 0.5), 2000);
});

test('R11 max attempts then dead letter', () => {
  assert.equal(verdict({ kind: 'response', status: 503 }, 4).action, 'retry');
  const last = verdict({ kind: 'response', status: 503 }, 5);
  assert.equal(last.action, 'dead');
  assert.match((last as { error: string }).error, /gave up after 5 attempts/);
});

test('R11 max age then dead letter', () => {
  assert.equal(verdict({ kind: 'response', status: 503 }, 1, policy.maxAgeMs - 10).action, 'dead');
  assert.equal(verdict({ kind: 'response', status: 503 }, 1, 1000).action, 'retry');
});

test('R11 Retry-After (seconds or HTTP date) is honoured when longer than the backoff', () => {
  const v = verdict({ kind: 'response', status: 429, retryAfter: '120' });
  assert.deepEqual(v.action === 'retry' && v.delayMs, 120_000);
  const short = verdict({ kind: 'response', status: 503, retryAfter: '0' });
  assert.deepEqual(short.action === 'retry' && short.delayMs, 500, 'the backoff wins when longer');
  assert.equal(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0), 60_000);
  assert.equal(parseRetryAfter('soon', 0), undefined);
  assert.equal(parseRetryAfter(undefined, 0), undefined);
});
