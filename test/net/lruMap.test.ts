/**
 * LruMap (src/net/lruMap.ts): the one bounded map behind the client's card cache, the JWKS cache
 * and the rate limiter's buckets. At most `max` entries; the least recently used goes first, a
 * recently read one stays; stale entries go before any other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruMap } from '../../src/net/lruMap.js';

test('bounded memory: N+1 distinct keys evict the least recently used; one read since survives', () => {
  const map = new LruMap<string, number>(3);
  for (const k of ['a', 'b', 'c']) map.set(k, 1);
  assert.equal(map.get('a'), 1);
  map.set('d', 1);
  assert.deepEqual([...map.keys()], ['c', 'a', 'd'], 'b, the least recently used, went');
  map.set('c', 2);
  map.set('e', 1);
  assert.equal(map.has('a'), false, 'a was the least recently used now');
  assert.equal(map.size, 3);
  for (let i = 0; i < 10_000; i++) map.set(`k${i}`, i);
  assert.equal(map.size, 3);
});

test('bounded memory: stale entries go first when full (whatever their recency), and the oldest as new keys come', () => {
  const stale = new Set<number>();
  const map = new LruMap<string, number>(3, (v) => stale.has(v));
  map.set('a', 1);
  map.set('b', 2);
  map.set('c', 3);
  map.get('a');
  stale.add(3);
  map.set('d', 4);
  assert.deepEqual([...map.keys()].sort(), ['a', 'b', 'd'], 'stale c went, not b (the least recently used)');
  stale.add(2);
  map.set('a', 5);
  assert.deepEqual([...map.keys()], ['d', 'a'], 'not full: the stale oldest (b) is dropped anyway');
  assert.throws(() => new LruMap(0), RangeError);
});

test('R25 a set on a full map looks at a few entries, not all of them: a full rate limiter costs the same per new address', () => {
  let looks = 0;
  const map = new LruMap<number, number>(10_000, () => (looks++, false));
  for (let i = 0; i < 10_000; i++) map.set(i, i);
  looks = 0;
  map.set(10_000, 0);
  assert.ok(looks <= 17, `${looks} entries looked at for one set`);
  assert.equal(map.size, 10_000);
  assert.equal(map.has(0), false, 'the least recently used went');
});
