/**
 * The context half of the store contract (TENANT-06 / CTX-04), run by every store through
 * runStoreContract: claimContext answers whose a context is — its recorded owner, else its
 * oldest task's, else the first claimant's — atomically (racing claims of one new context agree
 * on one owner), per tenant; retention keeps a purged context its owner's and
 * forgets it only once it has had no task for a retention period.
 */
import { describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import type { ContractOptions, StoreUnderTest } from './contract.js';
import { freshStoreTest, makeTask, purgeable, ts } from './contract.js';

export function runContextContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const onStore = freshStoreTest(makeStore);
  const contextTest = (title: string, fn: (store: TaskStore, s: StoreUnderTest, t: TestContext) => Promise<void>): void => onStore(title, (s, t) => fn(s.store, s, t));

  describe(`TaskStore context contract: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    contextTest('TENANT-06 claimContext: a context id unknown to everyone goes to its first claimant, for good, per tenant', async (store, { reopen }) => {
      assert.equal(await store.claimContext('', 'c', 'alice'), 'alice');
      assert.equal(await store.claimContext('', 'c', 'bob'), 'alice');
      assert.equal(await store.claimContext('', 'c', ''), 'alice');
      assert.equal(await store.claimContext('', 'c', 'alice'), 'alice');
      assert.equal(await store.claimContext('t', 'c', 'bob'), 'bob', 'another tenant has its own contexts');
      // An anonymous caller (behind an authenticator) owns its contexts too.
      assert.equal(await store.claimContext('', 'anon', ''), '');
      assert.equal(await store.claimContext('', 'anon', 'alice'), '');
      // A task created later in a claimed context does not change its owner.
      await store.create('', makeTask('late', { contextId: 'c' }), { owner: 'bob' });
      assert.equal(await store.claimContext('', 'c', 'bob'), 'alice');
      if (!reopen) return;
      const other = await reopen();
      try {
        assert.equal(await other.claimContext('', 'c', 'bob'), 'alice', 'the record persists');
        assert.equal(await other.claimContext('t', 'c', 'alice'), 'bob');
      } finally {
        await other.close?.();
      }
    });

    contextTest('TENANT-06 claimContext: a context whose tasks say whose it is needs no record; of two owners, the oldest task\'s', async (store) => {
      await store.create('', makeTask('t1', { contextId: 'mine', at: 5 }), { owner: 'alice' });
      assert.equal(await store.claimContext('', 'mine', 'bob'), 'alice');
      assert.equal(await store.claimContext('', 'mine', 'alice'), 'alice');
      // Two owners (data from before contexts were checked): created first wins, whatever the status times.
      await store.create('', makeTask('m1', { contextId: 'mixed', at: 9 }), { owner: 'bob' });
      await store.create('', makeTask('m2', { contextId: 'mixed', at: 1 }), { owner: 'carol' });
      assert.equal(await store.claimContext('', 'mixed', 'carol'), 'bob');
      assert.equal(await store.claimContext('', 'mixed', 'dave'), 'bob');
      // A task of another tenant in a context of the same id says nothing here.
      await store.create('t', makeTask('x1', { contextId: 'free' }), { owner: 'mallory' });
      assert.equal(await store.claimContext('', 'free', 'alice'), 'alice');
      // An anonymous task makes its context the anonymous owner's.
      await store.create('', makeTask('n1', { contextId: 'open' }));
      assert.equal(await store.claimContext('', 'open', 'alice'), '');
    });

    contextTest('TENANT-06 claimContext: callers racing to claim one new context all get the same one owner', async (store) => {
      for (let round = 0; round < 5; round++) {
        const owners = Array.from({ length: 12 }, (_, i) => `p${i}`);
        const got = await Promise.all(owners.map((owner) => store.claimContext('', `race-${round}`, owner)));
        assert.equal(new Set(got).size, 1, `round ${round}: ${got.join(',')}`);
        assert.ok(owners.includes(got[0] as string), `round ${round}: ${got[0]}`);
        assert.equal(await store.claimContext('', `race-${round}`, 'late'), got[0]);
      }
    });

    contextTest('TENANT-06 retention: a purged context stays its owner\'s; one with no task left is forgotten a retention period later', async (raw) => {
      const store = purgeable(raw);
      await store.create('', makeTask('done', { contextId: 'kept', state: 'TASK_STATE_COMPLETED', at: 1 }), { owner: 'alice' });
      await store.create('', makeTask('later', { contextId: 'kept', state: 'TASK_STATE_COMPLETED', at: 2 }), { owner: 'alice' });
      await store.create('', makeTask('live', { contextId: 'busy', state: 'TASK_STATE_WORKING', at: 1 }), { owner: 'bob' });
      await store.create('', makeTask('old', { contextId: 'busy', state: 'TASK_STATE_COMPLETED', at: 1 }), { owner: 'bob' });
      assert.equal(await store.claimContext('', 'talk', 'carol'), 'carol');
      assert.equal(await store.purgeTerminal({ before: ts(50), batchSize: 1 }), 3);
      assert.equal(await store.get('', 'done'), undefined);
      // Its tasks are gone, its owner is not.
      assert.equal(await store.claimContext('', 'kept', 'mallory'), 'alice');
      assert.equal(await store.claimContext('', 'busy', 'mallory'), 'bob');
      assert.equal(await store.claimContext('', 'talk', 'mallory'), 'carol');
      // A retention period after the purge (a cutoff past the records' times): a context with no
      // task left is forgotten, and free again; one with a task stays its owner's.
      assert.equal(await store.purgeTerminal({ before: new Date(Date.now() + 60_000), batchSize: 1 }), 0);
      assert.equal(await store.claimContext('', 'kept', 'mallory'), 'mallory');
      assert.equal(await store.claimContext('', 'talk', 'mallory'), 'mallory');
      assert.equal(await store.claimContext('', 'busy', 'mallory'), 'bob');
    });
  });
}
