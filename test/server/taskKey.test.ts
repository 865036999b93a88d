/**
 * The in-process map key of a (tenant, id) pair (src/server/taskKey.ts): the bare id in the
 * default tenant, distinct keys for distinct pairs whatever they contain, and a split that gives
 * the pair back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitTaskKey, taskKey } from '../../src/server/taskKey.js';

const pairs: Array<[string, string]> = [
  ['', 'task-1'],
  ['', '0\u0000task-1'],
  ['', '\u0000'],
  ['', ''],
  ['a', 'b\u0000c'],
  ['a\u0000b', 'c'],
  ['acme', 'task-1'],
  ['acme', ''],
  ['1', '0\u0000x'],
  ['10', 'x'],
  ['1', '0x'],
];

test('TENANT-06: in the default tenant the key of a plain id is the id itself', () => {
  assert.equal(taskKey('', '019ad6c8-2f4a-7c3e-9b1d-5e0f3a7c9d21'), '019ad6c8-2f4a-7c3e-9b1d-5e0f3a7c9d21');
});

test('TENANT-06: distinct (tenant, id) pairs never share a key, even with NULs and digits in them', () => {
  const keys = pairs.map(([tenant, id]) => taskKey(tenant, id));
  assert.equal(new Set(keys).size, pairs.length, JSON.stringify(keys));
});

test('splitTaskKey gives back the pair every key was made from', () => {
  for (const [tenant, id] of pairs) assert.deepEqual(splitTaskKey(taskKey(tenant, id)), { tenant, id });
});
