/**
 * The owner half of the store contract (issue 8, spec 13.1), run by every store through
 * runStoreContract: a task belongs to the principal that created it ('' = anonymous), for good;
 * records, lists and message records carry that owner, and a list with an owner filter sees
 * only that owner's tasks of the tenant (pages, keyset cursor and totalSize alike).
 */
import { describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamResponse, Task, TaskState } from '../../src/protocol/types.js';
import { DuplicateMessageError, VersionConflictError, type ListQuery, type TaskRecord, type TaskStore } from '../../src/server/stores/taskStore.js';
import type { ContractOptions, StoreUnderTest } from './contract.js';
import { freshStoreTest, makeTask, ts } from './contract.js';

function statusChange(task: Task, state: TaskState, at: number): { task: Task; events: StreamResponse[] } {
  const status = { state, timestamp: ts(at) };
  return { task: { ...task, status }, events: [{ statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status } }] };
}

/** Moves a task to `state` at `at` with the compare-and-set append of the server. */
async function move(store: TaskStore, target: { tenant: string; id: string }, change: { state: TaskState; at: number }): Promise<TaskRecord> {
  const current = await store.get(target.tenant, target.id);
  assert.ok(current, `${target.tenant}/${target.id} exists`);
  const next = statusChange(current.task, change.state, change.at);
  return (await store.append({ tenant: target.tenant, taskId: target.id, expectedVersion: current.version, ...next })).record;
}

function ids(records: TaskRecord[]): string[] {
  return records.map((r) => r.task.id);
}

/** Every page of a list query, following the keyset cursor; `between` runs after each page. */
async function walk(store: TaskStore, query: Omit<ListQuery, 'after'>, between?: (page: number) => Promise<void>): Promise<{ records: TaskRecord[]; totals: number[] }> {
  const records: TaskRecord[] = [];
  const totals: number[] = [];
  let after: ListQuery['after'];
  for (let page = 0; page < 1000; page++) {
    const result = await store.list({ ...query, ...(after ? { after } : {}) });
    records.push(...result.records);
    totals.push(result.totalSize);
    const last = result.records.at(-1);
    if (!result.hasMore || !last) return { records, totals };
    after = { timestamp: last.task.status.timestamp ?? '', id: last.task.id };
    await between?.(page);
  }
  throw new Error('list did not end');
}

export function runOwnerContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const onStore = freshStoreTest(makeStore);
  const ownerTest = (title: string, fn: (store: TaskStore, s: StoreUnderTest, t: TestContext) => Promise<void>): void => onStore(title, (s, t) => fn(s.store, s, t));

  describe(`TaskStore owner contract: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    ownerTest('create stores the owner; get, append and list return it; no owner means anonymous', async (store) => {
      const task = makeTask('mine', { at: 1 });
      const created = await store.create('', task, { owner: 'alice' });
      assert.deepEqual(created.record, { tenant: '', owner: 'alice', task, version: 1, seq: 1 });
      assert.deepEqual(await store.get('', 'mine'), { tenant: '', owner: 'alice', task, version: 1, seq: 1 });
      const appended = await move(store, { tenant: '', id: 'mine' }, { state: 'TASK_STATE_WORKING', at: 2 });
      assert.equal(appended.owner, 'alice');
      const snapshotOnly = await store.append({ tenant: '', taskId: 'mine', expectedVersion: 2, task: appended.task, events: [] });
      assert.equal(snapshotOnly.record.owner, 'alice');
      assert.equal((await store.get('', 'mine'))?.owner, 'alice');

      await store.create('', makeTask('anon', { at: 3 }));
      assert.equal((await store.get('', 'anon'))?.owner, '');
      await store.create('', makeTask('explicit-anon', { at: 4 }), { owner: '' });
      assert.equal((await store.get('', 'explicit-anon'))?.owner, '');

      const all = await store.list({ tenant: '', pageSize: 10 });
      assert.deepEqual(
        all.records.map((r) => [r.task.id, r.owner]),
        [
          ['explicit-anon', ''],
          ['anon', ''],
          ['mine', 'alice'],
        ],
      );
      assert.equal(all.totalSize, 3);
    });

    ownerTest('the owner is set once: many appends keep it, a second create of the id changes nothing', async (store) => {
      const task = makeTask('fixed');
      await store.create('t', task, { owner: 'alice' });
      for (let i = 1; i <= 5; i++) await move(store, { tenant: 't', id: 'fixed' }, { state: 'TASK_STATE_WORKING', at: i });
      await assert.rejects(store.create('t', task, { owner: 'mallory' }), (e: unknown) => e instanceof VersionConflictError);
      const record = await store.get('t', 'fixed');
      assert.equal(record?.owner, 'alice');
      assert.equal(record?.version, 6);
      assert.deepEqual(ids((await store.list({ tenant: 't', owner: 'mallory', pageSize: 10 })).records), []);
    });

    ownerTest('owners are case- and byte-exact, and unicode round-trips', async (store) => {
      const owners = ['alice', 'Alice', 'alice ', 'ålice-🌍', 'user:42@issuer.example'];
      for (const [i, owner] of owners.entries()) await store.create('', makeTask(`o${i}`, { at: i }), { owner });
      for (const [i, owner] of owners.entries()) {
        assert.equal((await store.get('', `o${i}`))?.owner, owner);
        const r = await store.list({ tenant: '', owner, pageSize: 10 });
        assert.deepEqual(ids(r.records), [`o${i}`], owner);
        assert.equal(r.totalSize, 1);
      }
    });

    ownerTest('list with an owner: only that owner\'s tasks, in order, totalSize counting only them; \'\' lists the anonymous ones', async (store) => {
      const owners = ['alice', 'bob', '', 'alice', 'carol', 'bob', 'alice', ''];
      for (const [i, owner] of owners.entries()) await store.create('', makeTask(`t${i}`, { at: i }), { owner });
      const list = async (owner: string) => {
        const r = await store.list({ tenant: '', owner, pageSize: 100 });
        assert.equal(r.totalSize, r.records.length);
        assert.equal(r.hasMore, false);
        for (const rec of r.records) assert.equal(rec.owner, owner);
        return ids(r.records);
      };
      assert.deepEqual(await list('alice'), ['t6', 't3', 't0']);
      assert.deepEqual(await list('bob'), ['t5', 't1']);
      assert.deepEqual(await list(''), ['t7', 't2']);
      assert.deepEqual(await list('nobody'), []);
      // Without an owner the list is the whole tenant, as before.
      assert.equal((await store.list({ tenant: '', pageSize: 100 })).totalSize, owners.length);
      // Pages of one owner: hasMore and totalSize concern that owner only.
      const first = await store.list({ tenant: '', owner: 'alice', pageSize: 2 });
      assert.deepEqual(ids(first.records), ['t6', 't3']);
      assert.equal(first.totalSize, 3);
      assert.equal(first.hasMore, true);
      const second = await store.list({ tenant: '', owner: 'alice', pageSize: 2, after: { timestamp: ts(3), id: 't3' } });
      assert.deepEqual(second, { records: [await store.get('', 't0')], totalSize: 3, hasMore: false });
      const exact = await store.list({ tenant: '', owner: 'bob', pageSize: 2 });
      assert.equal(exact.hasMore, false);
    });

    ownerTest('owner combines with contextId, status and statusTimestampAfter', async (store) => {
      const specs: Array<[string, string, string, TaskState, number]> = [
        ['a1', 'alice', 'x', 'TASK_STATE_WORKING', 1],
        ['b1', 'bob', 'x', 'TASK_STATE_WORKING', 2],
        ['a2', 'alice', 'y', 'TASK_STATE_COMPLETED', 3],
        ['a3', 'alice', 'x', 'TASK_STATE_COMPLETED', 4],
        ['b2', 'bob', 'y', 'TASK_STATE_COMPLETED', 5],
        ['n1', '', 'x', 'TASK_STATE_WORKING', 6],
      ];
      for (const [id, owner, contextId, state, at] of specs) await store.create('', makeTask(id, { contextId, state, at }), { owner });
      const list = async (q: Omit<ListQuery, 'tenant' | 'pageSize'>) => {
        const r = await store.list({ tenant: '', pageSize: 100, ...q });
        assert.equal(r.totalSize, r.records.length);
        return ids(r.records);
      };
      assert.deepEqual(await list({ owner: 'alice', contextId: 'x' }), ['a3', 'a1']);
      assert.deepEqual(await list({ owner: 'bob', contextId: 'x' }), ['b1']);
      assert.deepEqual(await list({ owner: '', contextId: 'x' }), ['n1']);
      assert.deepEqual(await list({ owner: 'alice', status: 'TASK_STATE_COMPLETED' }), ['a3', 'a2']);
      assert.deepEqual(await list({ owner: 'bob', status: 'TASK_STATE_WORKING' }), ['b1']);
      assert.deepEqual(await list({ owner: 'alice', statusTimestampAfter: ts(3) }), ['a3', 'a2']);
      assert.deepEqual(await list({ owner: 'alice', contextId: 'x', status: 'TASK_STATE_COMPLETED', statusTimestampAfter: ts(1) }), ['a3']);
      assert.deepEqual(await list({ owner: 'carol', contextId: 'x' }), []);
    });

    ownerTest('keyset pages of one owner stay stable while tasks of every owner change between pages', async (store) => {
      const mine: string[] = [];
      for (let i = 0; i < 40; i++) {
        const id = `k${String(i).padStart(2, '0')}`;
        const owner = i % 3 === 0 ? 'alice' : i % 3 === 1 ? 'bob' : '';
        await store.create('', makeTask(id, { at: Math.floor(i / 2) }), { owner });
        if (owner === 'alice') mine.push(id);
      }
      const touched = new Set<string>();
      let clock = 1000;
      const bump = async (id: string) => {
        await move(store, { tenant: '', id }, { state: 'TASK_STATE_WORKING', at: ++clock });
        touched.add(id);
      };
      const { records, totals } = await walk(store, { tenant: '', owner: 'alice', pageSize: 3 }, async (page) => {
        // One of alice's tasks already listed and one not yet listed move to the front, a task
        // of bob moves too, and new tasks of both arrive (behind the cursor).
        await bump(mine[mine.length - 1 - page * 3] as string);
        await bump(mine[Math.max(0, 5 - page)] as string);
        await bump(`k${String((page * 3 + 1) % 40).padStart(2, '0')}`);
        await store.create('', makeTask(`new-alice-${page}`, { at: 2000 + page }), { owner: 'alice' });
        await store.create('', makeTask(`new-bob-${page}`, { at: 2000 + page }), { owner: 'bob' });
      });
      const listed = ids(records);
      for (const r of records) assert.equal(r.owner, 'alice', `${r.task.id} is not alice's`);
      assert.equal(new Set(listed).size, listed.length, `duplicates in ${listed.join(',')}`);
      for (const id of mine) if (!touched.has(id)) assert.ok(listed.includes(id), `untouched ${id} was skipped`);
      for (const id of listed) assert.ok(mine.includes(id), `${id} was created after the listing started, behind the cursor`);
      const keys = records.map((r) => [r.task.status.timestamp ?? '', r.task.id] as const);
      for (let i = 1; i < keys.length; i++) {
        const [pt, pi] = keys[i - 1] as readonly [string, string];
        const [ct, ci] = keys[i] as readonly [string, string];
        assert.ok(pt > ct || (pt === ct && pi > ci), `order at ${i}`);
      }
      // totalSize is alice's count at the time of each page: it grows by her new task per page only.
      assert.equal(totals[0], mine.length);
      for (let i = 1; i < totals.length; i++) assert.equal(totals[i], mine.length + i, `page ${i}`);
    });

    ownerTest('tenant and owner together: one owner name in two tenants sees two separate sets', async (store) => {
      await store.create('a', makeTask('same', { contextId: 'c', at: 1 }), { owner: 'alice' });
      await store.create('b', makeTask('same', { contextId: 'c', at: 2 }), { owner: 'bob' });
      await store.create('b', makeTask('other', { contextId: 'c', at: 3 }), { owner: 'alice' });
      await store.create('', makeTask('root', { contextId: 'c', at: 4 }), { owner: 'alice' });
      assert.equal((await store.get('a', 'same'))?.owner, 'alice');
      assert.equal((await store.get('b', 'same'))?.owner, 'bob');
      const list = async (tenant: string, owner: string) => {
        const r = await store.list({ tenant, owner, pageSize: 10 });
        assert.equal(r.totalSize, r.records.length);
        for (const rec of r.records) assert.deepEqual([rec.tenant, rec.owner], [tenant, owner]);
        return ids(r.records);
      };
      assert.deepEqual(await list('a', 'alice'), ['same']);
      assert.deepEqual(await list('b', 'alice'), ['other']);
      assert.deepEqual(await list('', 'alice'), ['root']);
      assert.deepEqual(await list('a', 'bob'), []);
      assert.deepEqual(await list('b', 'bob'), ['same']);
      assert.deepEqual(ids((await store.list({ tenant: 'b', owner: 'alice', contextId: 'c', pageSize: 10 })).records), ['other']);
      // An append in one tenant leaves the other tenant's task, and its owner, alone.
      await move(store, { tenant: 'b', id: 'same' }, { state: 'TASK_STATE_WORKING', at: 9 });
      assert.deepEqual(await store.get('a', 'same').then((r) => [r?.owner, r?.version]), ['alice', 1]);
      assert.deepEqual(await store.get('b', 'same').then((r) => [r?.owner, r?.version]), ['bob', 2]);
    });

    ownerTest('findMessage carries the owner of the task the message was recorded with', async (store) => {
      const task = makeTask('owned');
      await store.create('', task, { owner: 'alice', claim: { messageId: 'm-create', fingerprint: 'f1' } });
      assert.deepEqual(await store.findMessage('', 'alice', 'm-create'), { messageId: 'm-create', taskId: 'owned', fingerprint: 'f1', owner: 'alice' });
      // A follow-up recorded with an append carries the task's owner too.
      await store.append({ tenant: '', taskId: 'owned', expectedVersion: 1, task, events: [], claim: { messageId: 'm-follow', fingerprint: 'f2' } });
      assert.deepEqual(await store.findMessage('', 'alice', 'm-follow'), { messageId: 'm-follow', taskId: 'owned', fingerprint: 'f2', owner: 'alice' });
      // The owner's own id again: refused, with that owner's record, and nothing written.
      await assert.rejects(store.create('', makeTask('again'), { owner: 'alice', claim: { messageId: 'm-create', fingerprint: 'f9' } }), (e: unknown) => {
        assert.ok(e instanceof DuplicateMessageError);
        assert.deepEqual(e.existing, { messageId: 'm-create', taskId: 'owned', fingerprint: 'f1', owner: 'alice' });
        return true;
      });
      assert.equal(await store.get('', 'again'), undefined);
      // Anonymous tasks record '' as the owner; tenants keep their own records.
      await store.create('', makeTask('anon'), { claim: { messageId: 'm-anon', fingerprint: 'f3' } });
      assert.equal((await store.findMessage('', '', 'm-anon'))?.owner, '');
      await store.create('t2', makeTask('owned'), { owner: 'bob', claim: { messageId: 'm-create', fingerprint: 'f1' } });
      assert.equal((await store.findMessage('t2', 'bob', 'm-create'))?.taskId, 'owned');
      assert.equal(await store.findMessage('t2', 'alice', 'm-create'), undefined);
    });

    ownerTest("IDEM-02 ERR-04 message ids are claimed per owner: another owner's id is unused for this one, at create and append, and a retry still finds its own", async (store) => {
      await store.create('', makeTask('a-task'), { owner: 'alice', claim: { messageId: 'a1', fingerprint: 'fa' } });
      // Bob's id "a1" is his own: not found for him, and claimed by his create as any new id.
      assert.equal(await store.findMessage('', 'bob', 'a1'), undefined);
      assert.equal(await store.findMessage('', '', 'a1'), undefined, 'nor for the anonymous owner');
      await store.create('', makeTask('b-task'), { owner: 'bob', claim: { messageId: 'a1', fingerprint: 'fb' } });
      assert.deepEqual(await store.findMessage('', 'bob', 'a1'), { messageId: 'a1', taskId: 'b-task', fingerprint: 'fb', owner: 'bob' });
      assert.deepEqual(await store.findMessage('', 'alice', 'a1'), { messageId: 'a1', taskId: 'a-task', fingerprint: 'fa', owner: 'alice' });
      // A follow-up is claimed for its task's owner: Alice's "f" and Bob's "f" do not meet, and
      // the anonymous owner is one more owner.
      const follow = async (taskId: string, fingerprint: string) => {
        const current = await store.get('', taskId);
        assert.ok(current);
        return store.append({ tenant: '', taskId, expectedVersion: current.version, task: current.task, events: [], claim: { messageId: 'f', fingerprint } });
      };
      await follow('a-task', 'fa2');
      await follow('b-task', 'fb2');
      await store.create('', makeTask('anon-task'), { claim: { messageId: 'f', fingerprint: 'fn' } });
      assert.deepEqual(
        await Promise.all(['alice', 'bob', ''].map(async (owner) => (await store.findMessage('', owner, 'f'))?.taskId)),
        ['a-task', 'b-task', 'anon-task'],
      );
      // The same owner's id again is still a duplicate, at append as at create, and writes nothing.
      const before = await store.get('', 'b-task');
      await assert.rejects(follow('b-task', 'fb3'), (e: unknown) => e instanceof DuplicateMessageError && e.existing.taskId === 'b-task' && e.existing.owner === 'bob' && e.existing.fingerprint === 'fb2');
      assert.equal((await store.get('', 'b-task'))?.version, before?.version);
      await assert.rejects(store.create('', makeTask('b-again'), { owner: 'bob', claim: { messageId: 'a1', fingerprint: 'fb' } }), (e: unknown) => e instanceof DuplicateMessageError && e.existing.taskId === 'b-task');
      assert.equal(await store.get('', 'b-again'), undefined);
      // Owners racing on one new id each get exactly one task of their own.
      const racing = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => store.create('', makeTask(`race-${i}`), { owner: i % 2 === 0 ? 'carol' : 'dave', claim: { messageId: 'r', fingerprint: 'same' } })),
      );
      assert.equal(racing.filter((r) => r.status === 'fulfilled').length, 2);
      for (const r of racing) if (r.status === 'rejected') assert.ok(r.reason instanceof DuplicateMessageError, String(r.reason));
      const carol = await store.findMessage('', 'carol', 'r');
      const dave = await store.findMessage('', 'dave', 'r');
      assert.equal((await store.get('', carol?.taskId ?? '?'))?.owner, 'carol');
      assert.equal((await store.get('', dave?.taskId ?? '?'))?.owner, 'dave');
    });

    ownerTest('reopened storage: owners persist and a second handle filters the same', async (store, { reopen }, t) => {
      if (!reopen) {
        t.skip(`${name} has no second handle on the same data`);
        return;
      }
      await store.create('', makeTask('p1', { at: 1 }), { owner: 'alice', claim: { messageId: 'pm', fingerprint: 'f' } });
      await store.create('', makeTask('p2', { at: 2 }), { owner: 'bob' });
      const other = await reopen();
      try {
        assert.equal((await other.get('', 'p1'))?.owner, 'alice');
        assert.equal((await other.findMessage('', 'alice', 'pm'))?.taskId, 'p1');
        assert.equal(await other.findMessage('', 'bob', 'pm'), undefined);
        assert.deepEqual(ids((await other.list({ tenant: '', owner: 'bob', pageSize: 5 })).records), ['p2']);
        const appended = await move(other, { tenant: '', id: 'p1' }, { state: 'TASK_STATE_WORKING', at: 3 });
        assert.equal(appended.owner, 'alice');
        assert.equal((await store.get('', 'p1'))?.owner, 'alice');
      } finally {
        await other.close?.();
      }
    });
  });
}
