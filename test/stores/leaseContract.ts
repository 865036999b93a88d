/**
 * The lease half of the store contract (LeaseStore, issue 7), run by every store through
 * runStoreContract: acquire / renew / release, takeover candidates, compare-and-set takeover
 * (across two handles on shared storage), and retention purge. Expiry is real time: leases that
 * must expire get a TTL of SHORT ms and the test waits EXPIRE ms, nothing longer.
 */
import { describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskState } from '../../src/protocol/types.js';
import { LeaseLostError, isLeaseStore, type Lease, type LeaseStore } from '../../src/server/stores/leaseStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import type { ContractOptions, StoreUnderTest } from './contract.js';
import { freshStoreTest, makeTask, purgeable, ts } from './contract.js';
import { chunkEvent } from './chunkContract.js';
import { applyEvent } from '../../src/protocol/applyEvent.js';

type Store = TaskStore & LeaseStore;

/** TTL of a lease the test lets expire, and how long it waits for that. */
const SHORT = 50;
const EXPIRE = 80;
/** TTL of a lease that stays live for the whole test. */
const LONG = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function asLease(store: TaskStore): Store {
  assert.ok(isLeaseStore(store), 'the store implements LeaseStore');
  return store as Store;
}

/** Creates a task and moves it to `state` with append (as the server would). */
async function taskIn(store: Store, spec: { tenant?: string; id: string; state: TaskState }): Promise<void> {
  const tenant = spec.tenant ?? '';
  const task = makeTask(spec.id);
  await store.create(tenant, task);
  if (spec.state === 'TASK_STATE_SUBMITTED') return;
  const status = { state: spec.state, timestamp: ts(1) };
  await store.append({
    tenant,
    taskId: spec.id,
    expectedVersion: 1,
    task: { ...task, status },
    events: [{ statusUpdate: { taskId: spec.id, contextId: task.contextId ?? '', status } }],
  });
}

/** `tenant/taskId` of renewed leases, sorted. */
function keys(leases: Array<{ tenant: string; taskId: string }>): string[] {
  return leases.map((l) => `${l.tenant}/${l.taskId}`).sort();
}

function brief(leases: Lease[]): string[] {
  return leases.map((l) => `${l.tenant}/${l.taskId}@${l.owner}`);
}

export function runLeaseContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const onStore = freshStoreTest(makeStore);
  const leaseTest = (title: string, fn: (store: Store, s: StoreUnderTest, t: TestContext) => Promise<void>): void => onStore(title, (s, t) => fn(asLease(s.store), s, t));

  describe(`LeaseStore contract: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    leaseTest('acquire: free → true; another owner → false while live; the holder re-acquires (extends); tenants and tasks separate', async (store) => {
      // A lease may precede its task: no task exists here.
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT }), true);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: 'other', taskId: 't', owner: 'B', ttlMs: LONG }), true);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't2', owner: 'B', ttlMs: LONG }), true);
      // Re-acquiring extends A's lease past the short TTL it was first taken with.
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: LONG }), true);
      await sleep(EXPIRE);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT }), true);
    });

    leaseTest('acquire after expiry: another owner takes it; the previous holder then cannot', async (store) => {
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT }), true);
      await sleep(EXPIRE);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), true);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), true);
      // The holder re-acquiring with ttlMs 0 expires its lease at once (shutdown hands tasks over so).
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: 0 }), true);
      await sleep(5);
      assert.equal((await store.renewLeases('B', LONG)).length, 0);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'C', ttlMs: LONG }), true);
    });

    leaseTest('renew: extends every live lease of the owner, returns their keys; expired ones are not revived', async (store) => {
      assert.equal((await store.renewLeases('A', LONG)).length, 0);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'dead1', owner: 'A', ttlMs: SHORT }), true);
      assert.equal(await store.acquireLease({ tenant: 'x', taskId: 'dead2', owner: 'A', ttlMs: SHORT }), true);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'b', owner: 'B', ttlMs: SHORT }), true);
      await sleep(EXPIRE);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'live1', owner: 'A', ttlMs: SHORT }), true);
      assert.equal(await store.acquireLease({ tenant: 'x', taskId: 'live2', owner: 'A', ttlMs: SHORT }), true);
      assert.deepEqual(keys(await store.renewLeases('A', LONG)), ['/live1', 'x/live2'], 'the renewed ones, not the expired ones');
      await sleep(EXPIRE);
      // The renewed leases outlived their first TTL; the expired ones stayed expired.
      for (const [tenant, taskId] of [
        ['', 'live1'],
        ['x', 'live2'],
      ] as const) {
        assert.equal(await store.acquireLease({ tenant, taskId, owner: 'C', ttlMs: LONG }), false, `${tenant}/${taskId} renewed`);
      }
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'dead1', owner: 'C', ttlMs: LONG }), true);
      assert.equal(await store.acquireLease({ tenant: 'x', taskId: 'dead2', owner: 'C', ttlMs: LONG }), true);
      // B's lease was not A's to renew.
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'b', owner: 'C', ttlMs: LONG }), true);
      assert.equal((await store.renewLeases('A', LONG)).length, 2);
      assert.equal((await store.renewLeases('nobody', LONG)).length, 0);
    });

    leaseTest('release: only by the holder (expired or not); a non-owner or an unknown lease changes nothing', async (store) => {
      await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: LONG });
      await store.releaseLease('', 't', 'B');
      await store.releaseLease('other', 't', 'A');
      await store.releaseLease('', 'nope', 'A');
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), false);
      await store.releaseLease('', 't', 'A');
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: SHORT }), true);
      await sleep(EXPIRE);
      await store.releaseLease('', 't', 'B');
      await taskIn(store, { id: 't', state: 'TASK_STATE_WORKING' });
      // Released, so not a takeover candidate (it would be, expired, had B kept it).
      assert.deepEqual(await store.expiredLeases(10), []);
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'C', previousOwner: 'B', ttlMs: LONG }), false);
    });

    leaseTest('expiredLeases: expired leases of SUBMITTED/WORKING tasks, oldest expiry first; stale ones are deleted', async (store) => {
      await taskIn(store, { id: 'sub', state: 'TASK_STATE_SUBMITTED' });
      await taskIn(store, { id: 'work', state: 'TASK_STATE_WORKING' });
      await taskIn(store, { tenant: 'b', id: 'work', state: 'TASK_STATE_WORKING' });
      await taskIn(store, { id: 'done', state: 'TASK_STATE_COMPLETED' });
      await taskIn(store, { id: 'input', state: 'TASK_STATE_INPUT_REQUIRED' });
      await taskIn(store, { id: 'live', state: 'TASK_STATE_WORKING' });
      // Each later acquire with a longer TTL: a definite expiry order however long a call takes.
      await store.acquireLease({ tenant: 'b', taskId: 'work', owner: 'B', ttlMs: 5 });
      await store.acquireLease({ tenant: '', taskId: 'work', owner: 'A', ttlMs: 15 });
      await store.acquireLease({ tenant: '', taskId: 'sub', owner: 'A', ttlMs: 30 });
      for (const taskId of ['done', 'input', 'missing']) await store.acquireLease({ tenant: '', taskId, owner: 'A', ttlMs: 1 });
      await store.acquireLease({ tenant: '', taskId: 'live', owner: 'A', ttlMs: LONG });
      // Live, and its task not created yet: untouched by the clean-up.
      await store.acquireLease({ tenant: '', taskId: 'future', owner: 'A', ttlMs: LONG });
      await sleep(EXPIRE);
      const started = Date.now();
      const expired = await store.expiredLeases(10);
      assert.deepEqual(brief(expired), ['b/work@B', '/work@A', '/sub@A']);
      for (const l of expired) {
        assert.equal(new Date(l.expiresAt).toISOString(), l.expiresAt, 'ISO 8601');
        assert.ok(Date.parse(l.expiresAt) <= started + 1000, l.expiresAt);
      }
      const times = expired.map((l) => Date.parse(l.expiresAt));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
      );
      assert.deepEqual(brief(await store.expiredLeases(2)), ['b/work@B', '/work@A']);
      assert.deepEqual(await store.expiredLeases(0), []);
      // The stale leases are gone: nothing left to take over from A (a lease still there would allow it).
      for (const taskId of ['done', 'input', 'missing']) {
        assert.equal(await store.takeOverLease({ tenant: '', taskId, owner: 'C', previousOwner: 'A', ttlMs: LONG }), false, taskId);
      }
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'future', owner: 'C', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'live', owner: 'C', ttlMs: LONG }), false);
      // A candidate stays one until someone takes it.
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 'work', owner: 'C', previousOwner: 'A', ttlMs: LONG }), true);
      assert.deepEqual(brief(await store.expiredLeases(10)), ['b/work@B', '/sub@A']);
    });

    leaseTest('expiredLeases: a task that settles after its lease expired is no longer a candidate, and its lease goes', async (store) => {
      await taskIn(store, { id: 't', state: 'TASK_STATE_SUBMITTED' });
      await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT });
      await sleep(EXPIRE);
      assert.deepEqual(brief(await store.expiredLeases(10)), ['/t@A']);
      const record = await store.get('', 't');
      assert.ok(record);
      const status = { state: 'TASK_STATE_FAILED' as const, timestamp: ts(2) };
      await store.append({ tenant: '', taskId: 't', expectedVersion: record.version, task: { ...record.task, status }, events: [] });
      assert.deepEqual(await store.expiredLeases(10), []);
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), false);
    });

    leaseTest('R3 append with leaseOwner: written while that owner holds the live lease; after expiry or a takeover LeaseLostError and nothing written (claim included)', async (store) => {
      await taskIn(store, { id: 't', state: 'TASK_STATE_WORKING' });
      const write = async (leaseOwner: string | undefined, text: string, claim?: string) => {
        const record = await store.get('', 't');
        assert.ok(record);
        const task = { ...record.task, metadata: { text } };
        return store.append({
          tenant: '',
          taskId: 't',
          expectedVersion: record.version,
          task,
          events: [{ statusUpdate: { taskId: 't', contextId: task.contextId ?? '', status: task.status } }],
          ...(leaseOwner !== undefined ? { leaseOwner } : {}),
          ...(claim ? { claim: { messageId: claim, fingerprint: 'f' } } : {}),
        });
      };
      await assert.rejects(write('A', 'no lease yet'), (e: Error) => e instanceof LeaseLostError && /lease of task t was lost/.test(e.message));
      await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT });
      const kept = await write('A', 'while held');
      await assert.rejects(write('B', 'not the holder'), LeaseLostError);
      await sleep(EXPIRE);
      // Expired, not yet taken over: still refused (the owner's check may have passed before a pause).
      await assert.rejects(write('A', 'after expiry'), LeaseLostError);
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), true);
      await assert.rejects(write('A', 'after takeover', 'm-late'), LeaseLostError);
      await assert.rejects(write('A', 'after takeover, no claim'), LeaseLostError);
      const after = await store.get('', 't');
      assert.equal(after?.version, kept.record.version, 'nothing written by the refused appends');
      assert.deepEqual(await store.events('', 't', kept.record.seq), []);
      assert.equal(await store.findMessage('', '', 'm-late'), undefined, 'the refused claim was not recorded');
      // The new holder writes; a write without leaseOwner (a cancel, say) is not fenced.
      await write('B', 'new holder', 'm-new');
      await write(undefined, 'unfenced');
      assert.equal((await store.get('', 't'))?.task.metadata?.text, 'unfenced');
      assert.equal((await store.findMessage('', '', 'm-new'))?.taskId, 't');
    });

    leaseTest('R3 STREAM-10 leased artifact chunks: written while the owner holds the lease, refused (LeaseLostError, nothing written) once another owner holds it', async (store) => {
      await taskIn(store, { id: 't', state: 'TASK_STATE_WORKING' });
      const chunk = async (leaseOwner: string, text: string) => {
        const record = await store.get('', 't');
        assert.ok(record);
        const events = [chunkEvent(record.task, 'a', text)];
        return store.append({ tenant: '', taskId: 't', expectedVersion: record.version, task: events.reduce(applyEvent, record.task), events, leaseOwner });
      };
      await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: LONG });
      let kept = await chunk('A', 'first');
      for (let i = 0; i < 5; i++) kept = await chunk('A', `more ${i}`);
      await assert.rejects(chunk('B', 'not the holder'), LeaseLostError);
      await store.releaseLease('', 't', 'A');
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), true);
      await assert.rejects(chunk('A', 'after another took the lease'), LeaseLostError);
      assert.deepEqual(await store.get('', 't'), kept.record, 'nothing written by the refused chunks');
      assert.deepEqual(await store.events('', 't', kept.record.seq), []);
      const last = await chunk('B', 'new holder');
      assert.deepEqual(
        last.record.task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')),
        ['first', 'more 0', 'more 1', 'more 2', 'more 3', 'more 4', 'new holder'],
      );
      assert.deepEqual(await store.get('', 't'), last.record);
    });

    leaseTest('takeOverLease: compare-and-set on the previous owner and expiry; the new owner then holds it', async (store) => {
      await taskIn(store, { id: 't', state: 'TASK_STATE_WORKING' });
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), false, 'no lease');
      await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT });
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), false, 'still live');
      await sleep(EXPIRE);
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'X', ttlMs: LONG }), false, 'wrong previous owner');
      assert.equal(await store.takeOverLease({ tenant: 'other', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), false, 'other tenant');
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'B', previousOwner: 'A', ttlMs: LONG }), true);
      assert.equal(await store.takeOverLease({ tenant: '', taskId: 't', owner: 'C', previousOwner: 'A', ttlMs: LONG }), false, 'already taken');
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 't', owner: 'B', ttlMs: LONG }), true);
      assert.equal((await store.renewLeases('B', LONG)).length, 1);
      assert.deepEqual(await store.expiredLeases(10), []);
    });

    leaseTest('concurrent takeovers of one expired lease (two handles on shared storage): exactly one wins', async (store, s) => {
      const other = s.reopen ? asLease(await s.reopen()) : store;
      try {
        await taskIn(store, { id: 't', state: 'TASK_STATE_WORKING' });
        await store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: SHORT });
        await sleep(EXPIRE);
        const [candidate] = await other.expiredLeases(10);
        assert.equal(candidate?.owner, 'A');
        const handles = [store, other];
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (handles[i % 2] as Store).takeOverLease({ tenant: '', taskId: 't', owner: `B${i}`, previousOwner: 'A', ttlMs: LONG }),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1, JSON.stringify(results));
        const winner = `B${results.indexOf(true)}`;
        for (let i = 0; i < 8; i++) {
          const owner = `B${i}`;
          assert.equal(await (handles[(i + 1) % 2] as Store).acquireLease({ tenant: '', taskId: 't', owner, ttlMs: LONG }), owner === winner, owner);
        }
      } finally {
        if (other !== store) await other.close?.();
      }
    });

    leaseTest('concurrent acquires of one free lease: exactly one owner gets it', async (store, s) => {
      const other = s.reopen ? asLease(await s.reopen()) : store;
      try {
        const handles = [store, other];
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (handles[i % 2] as Store).acquireLease({ tenant: '', taskId: 'race', owner: `O${i}`, ttlMs: LONG })),
        );
        assert.equal(results.filter(Boolean).length, 1, JSON.stringify(results));
      } finally {
        if (other !== store) await other.close?.();
      }
    });

    leaseTest('ttlMs and limit must be sensible', async (store) => {
      await assert.rejects(store.acquireLease({ tenant: '', taskId: 't', owner: 'A', ttlMs: Number.NaN }), RangeError);
      await assert.rejects(store.renewLeases('A', -1), RangeError);
      await assert.rejects(store.expiredLeases(-1), RangeError);
      await assert.rejects(store.expiredLeases(1.5), RangeError);
    });

    leaseTest('retention purge removes the purged tasks’ leases, and only theirs', async (store) => {
      await store.create('', makeTask('done', { state: 'TASK_STATE_COMPLETED', at: 1 }));
      await store.create('', makeTask('live', { state: 'TASK_STATE_WORKING', at: 1 }));
      await store.acquireLease({ tenant: '', taskId: 'done', owner: 'A', ttlMs: LONG });
      await store.acquireLease({ tenant: '', taskId: 'live', owner: 'A', ttlMs: LONG });
      await store.acquireLease({ tenant: '', taskId: 'unborn', owner: 'A', ttlMs: LONG });
      assert.equal(await purgeable(store).purgeTerminal({ before: ts(50) }), 1);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'done', owner: 'B', ttlMs: LONG }), true, 'the purged task’s lease is gone');
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'live', owner: 'B', ttlMs: LONG }), false);
      assert.equal(await store.acquireLease({ tenant: '', taskId: 'unborn', owner: 'B', ttlMs: LONG }), false);
      assert.equal((await store.renewLeases('A', LONG)).length, 2);
    });
  });
}
