/** R25 building blocks: the token-bucket RateLimiter, the ConcurrencyLimiter and the limit error. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConcurrencyLimiter, RateLimiter, limitExceeded, retryAfterSeconds } from '../../src/server/limits.js';
import { ERROR_TABLE, errorDetails } from '../../src/protocol/errorTable.js';
import { prng } from '../support/prng.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('RateLimiter (token bucket per key)', () => {
  test('a burst is served at once, then requests are refused with the time until the next token', () => {
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3, now: c.now });
    assert.deepEqual([limiter.take('alice'), limiter.take('alice'), limiter.take('alice')], [
      { ok: true, remaining: 2 },
      { ok: true, remaining: 1 },
      { ok: true, remaining: 0 },
    ]);
    assert.deepEqual(limiter.take('alice'), { ok: false, retryAfterMs: 500 });
    c.advance(499);
    assert.equal(limiter.take('alice').ok, false, 'one ms short');
    c.advance(1);
    assert.deepEqual(limiter.take('alice'), { ok: true, remaining: 0 });
  });

  test('keys are independent: one principal over its limit does not affect another (R25)', () => {
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, now: c.now });
    assert.equal(limiter.take('alice').ok, true);
    assert.equal(limiter.take('alice').ok, false);
    assert.equal(limiter.take('bob').ok, true);
    assert.equal(limiter.take('ip:203.0.113.7').ok, true);
  });

  test('refill is capped at the burst, refused requests take nothing, costs above 1 work', () => {
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 10, burst: 5, now: c.now });
    c.advance(60_000);
    assert.equal(limiter.peek('k'), 5);
    assert.deepEqual(limiter.take('k', 4), { ok: true, remaining: 1 });
    assert.deepEqual(limiter.take('k', 3), { ok: false, retryAfterMs: 200 });
    assert.equal(limiter.peek('k'), 1, 'the refused take took nothing');
    c.advance(200);
    assert.deepEqual(limiter.take('k', 3), { ok: true, remaining: 0 });
    assert.throws(() => limiter.take('k', 6), RangeError, 'a cost above the burst could never pass');
    assert.throws(() => limiter.take('k', 0), RangeError);
  });

  test('a clock going backwards neither refills nor drains', () => {
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 2, now: c.now });
    limiter.take('k');
    limiter.take('k');
    c.advance(-10_000);
    assert.equal(limiter.take('k').ok, false);
    c.advance(10_000);
    assert.equal(limiter.take('k').ok, false, 'no credit for the time travelled back');
    c.advance(1000);
    assert.equal(limiter.take('k').ok, true);
  });

  test('memory is bounded by maxKeys: idle keys go first, then the least recently used', () => {
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 2, maxKeys: 3, now: c.now });
    limiter.take('a');
    limiter.take('a');
    limiter.take('b');
    limiter.take('c');
    c.advance(1000); // b and c are full again (idle); a has 1 token
    limiter.take('d');
    assert.equal(limiter.size, 2, 'idle b and c dropped, a (in debt) kept');
    assert.equal(limiter.peek('a'), 1);
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    assert.ok(limiter.size <= 3);
  });

  test('seeded random traffic never exceeds burst + rate × elapsed per key', () => {
    const random = prng(0x25);
    const c = clock();
    const limiter = new RateLimiter({ ratePerSecond: 5, burst: 10, now: c.now });
    const served = new Map<string, number>();
    const start = c.now();
    for (let i = 0; i < 20_000; i++) {
      c.advance(Math.floor(random() * 20));
      const key = `p${Math.floor(random() * 4)}`;
      if (limiter.take(key).ok) served.set(key, (served.get(key) ?? 0) + 1);
    }
    const elapsedS = (c.now() - start) / 1000;
    for (const [key, n] of served) assert.ok(n <= 10 + 5 * elapsedS + 1e-9, `${key}: ${n} in ${elapsedS} s`);
    for (const [key, n] of served) assert.ok(n >= 5 * elapsedS * 0.9, `${key}: heavy traffic is served at about the rate (${n})`);
  });

  test('options are checked', () => {
    assert.throws(() => new RateLimiter({ ratePerSecond: 0, burst: 1 }), RangeError);
    assert.throws(() => new RateLimiter({ ratePerSecond: 1, burst: 0 }), RangeError);
    assert.throws(() => new RateLimiter({ ratePerSecond: Infinity, burst: 1 }), RangeError);
    assert.throws(() => new RateLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 0 }), RangeError);
  });
});

describe('ConcurrencyLimiter (max concurrent holders per key)', () => {
  test('max slots per key, independent keys, idempotent release', () => {
    const limiter = new ConcurrencyLimiter({ max: 2 });
    const a1 = limiter.acquire('alice');
    const a2 = limiter.acquire('alice');
    assert.ok(a1.ok && a2.ok);
    assert.deepEqual(limiter.acquire('alice'), { ok: false, active: 2, max: 2 });
    assert.equal(limiter.acquire('bob').ok, true, 'another principal is unaffected');
    a1.release();
    a1.release();
    assert.equal(limiter.active('alice'), 1, 'a double release frees one slot only');
    const a3 = limiter.acquire('alice');
    assert.ok(a3.ok);
    assert.equal(limiter.acquire('alice').ok, false);
    a2.release();
    a3.release();
    assert.equal(limiter.active('alice'), 0);
    assert.equal(limiter.size, 1, 'only bob holds a slot: released keys are forgotten');
  });

  test('options are checked', () => {
    assert.throws(() => new ConcurrencyLimiter({ max: 0 }), RangeError);
    assert.throws(() => new ConcurrencyLimiter({ max: 1.5 }), RangeError);
  });
});

describe('the limit error', () => {
  test('RESOURCE_EXHAUSTED: HTTP 429, gRPC RESOURCE_EXHAUSTED, JSON-RPC -32000, ErrorInfo names the limit', () => {
    const e = limitExceeded('requests', 1234.2);
    assert.equal(e.reason, 'RESOURCE_EXHAUSTED');
    assert.deepEqual(e.metadata, { limit: 'requests', retryAfterMs: '1235' });
    const row = ERROR_TABLE[e.reason];
    assert.deepEqual([row.httpStatus, row.grpcStatus, row.jsonRpcCode], [429, 'RESOURCE_EXHAUSTED', -32000]);
    assert.deepEqual(errorDetails(e)[0], { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RESOURCE_EXHAUSTED', domain: 'a2a-kit', metadata: { limit: 'requests', retryAfterMs: '1235' } });
    assert.deepEqual(limitExceeded('streams').metadata, { limit: 'streams' });
    assert.deepEqual(limitExceeded('tasksPerContext').metadata, { limit: 'tasksPerContext' });
  });

  test('Retry-After in whole seconds, at least 1', () => {
    assert.deepEqual([retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(1001), retryAfterSeconds(0)], ['1', '1', '2', '1']);
  });
});
