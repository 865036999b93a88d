/** What a store upgraded from schema v2 must still have and newly do (shared by the SQL store tests). */
import assert from 'node:assert/strict';
import type { Task } from '../../src/protocol/types.js';
import type { LeaseStore } from '../../src/server/stores/leaseStore.js';
import type { PushStore } from '../../src/server/stores/pushStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';

export async function assertUpgradedFromV2(
  store: TaskStore & PushStore & LeaseStore & { purgeTerminal(o: { before: Date }): Promise<number> },
  old: Task,
): Promise<void> {
  assert.deepEqual((await store.get('', 'old'))?.task, old);
  assert.equal((await store.getPushConfig('', 'old', 'c'))?.url, 'https://hooks.example/');
  assert.equal(await store.acquireLease({ tenant: '', taskId: 'old', owner: 'A', ttlMs: 1 }), true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(
    (await store.expiredLeases(10)).map((l) => [l.taskId, l.owner]),
    [['old', 'A']],
  );
  assert.equal(await store.takeOverLease({ tenant: '', taskId: 'old', owner: 'B', previousOwner: 'A', ttlMs: 60_000 }), true);
  assert.equal(await store.purgeTerminal({ before: new Date('2100-01-01') }), 0);
}
