/** Server-generated ids are UUIDv7 (RFC 9562): well-formed, unique, and sorted in creation order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOrderedId } from '../../src/server/timeOrderedId.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds in the first 48 bits. */
const millisOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

test('ids are RFC 9562 version 7 UUIDs carrying the current time', () => {
  const before = Date.now();
  const id = timeOrderedId();
  const after = Date.now();
  assert.match(id, UUID_V7);
  assert.ok(millisOf(id) >= before && millisOf(id) <= after + 1, `${millisOf(id)} not in [${before}, ${after}]`);
});

test('ids made one after another are unique and sort in the order they were made', () => {
  const ids = Array.from({ length: 20_000 }, () => timeOrderedId());
  assert.equal(new Set(ids).size, ids.length);
  const sorted = [...ids].sort();
  assert.deepEqual(sorted, ids);
});

test('a burst within one millisecond stays ordered past the 12-bit counter, and a clock going back does not reorder', (t) => {
  let clock = 1_800_000_000_000;
  t.mock.method(Date, 'now', () => clock);
  const burst = Array.from({ length: 10_000 }, () => timeOrderedId());
  clock -= 5_000; // NTP step backwards
  const after = Array.from({ length: 10 }, () => timeOrderedId());
  const ids = [...burst, ...after];
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, UUID_V7);
  // Overflowing the counter borrows the next milliseconds instead of wrapping around.
  assert.ok(millisOf(burst[burst.length - 1] as string) > 1_800_000_000_000);
});

test('the random tail differs between ids of the same millisecond', () => {
  const tails = new Set(Array.from({ length: 1000 }, () => timeOrderedId().slice(19)));
  assert.ok(tails.size > 990, `only ${tails.size} distinct tails of 1000`);
});

test('every one of the 48 time bits lands in its place, including those above 2^32', (t) => {
  // Ascending and after the clocks above (a clock going back keeps the last millisecond).
  for (const clock of [0x02468ace1357, 0x13579bdf0246, 0xfedcba987654, 0xfffffffffffe]) {
    t.mock.method(Date, 'now', () => clock);
    const id = timeOrderedId();
    assert.match(id, UUID_V7);
    assert.equal(millisOf(id), clock, id);
    t.mock.restoreAll();
  }
});
