/** The store contract on the in-memory store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { makeTask, runStoreContract } from './contract.js';

runStoreContract('memory', async () => ({ store: new MemoryTaskStore(), cleanup: async () => {} }));

test('memory outbox: the queues of (task, config) pairs stay apart whatever NULs their ids hold', async () => {
  const store = new MemoryTaskStore();
  const hook = (taskId: string, id: string) => ({ id, taskId, url: `https://hooks.example/${id.length}`, token: 't' });
  // Joined with NUL, both pairs read "a\0b\0c": one queue, one head, a delivery under the wrong config.
  await store.create('', makeTask('a\u0000b'), { pushConfig: hook('a\u0000b', 'c') });
  await store.create('', makeTask('a'), { pushConfig: hook('a', 'b\u0000c') });
  const claimed = await store.claimDeliveries({ now: new Date(Date.now() + 60_000), limit: 10, lockMs: 1000 });
  assert.deepEqual(claimed.map((d) => [d.taskId, d.configId, d.seq, d.config.id]).sort(), [
    ['a\u0000b', 'c', 1, 'c'],
    ['a', 'b\u0000c', 1, 'b\u0000c'],
  ]);
});
