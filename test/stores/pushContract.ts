/**
 * The push half of the store contract (PushStore, R11, R13), run by every store through
 * runStoreContract: configs, the outbox written with create/append, head-of-line claims,
 * locks, retry / dead letter / complete, and purge. Times are explicit `now` values well after
 * the rows were enqueued, so nothing sleeps.
 */
import { describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import { PushConfigLimitError, isPushStore, type DeliveryKey, type PushDelivery, type PushStore, type StoredPushConfig } from '../../src/server/stores/pushStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import type { ContractOptions, StoreUnderTest } from './contract.js';
import { freshStoreTest, makeTask, purgeable, ts } from './contract.js';

type Store = TaskStore & PushStore;

const MINUTE = 60_000;

function config(taskId: string, id: string, extra: Partial<StoredPushConfig> = {}): StoredPushConfig {
  return { id, taskId, url: `https://hooks.example/${taskId}/${id}`, token: `tok-${id}`, ...extra };
}

function artifact(task: Task, text: string): StreamResponse {
  return { artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact: { artifactId: `a-${text}`, parts: [{ text }] } } };
}

/** Appends `texts` as artifact events at the current version. */
async function appendArtifacts(store: Store, target: { tenant: string; task: Task }, texts: string[]): Promise<void> {
  const current = await store.get(target.tenant, target.task.id);
  assert.ok(current);
  await store.append({ tenant: target.tenant, taskId: target.task.id, expectedVersion: current.version, task: current.task, events: texts.map((t) => artifact(target.task, t)) });
}

/** An instant `ms` after now: every row enqueued so far is due then. */
function later(ms = 0): Date {
  return new Date(Date.now() + MINUTE + ms);
}

function keyOf(d: DeliveryKey): string {
  return `${d.tenant}/${d.taskId}/${d.configId}#${d.seq}`;
}

function keys(ds: PushDelivery[]): string[] {
  return ds.map(keyOf).sort();
}

async function claimAll(store: Store, now: Date = later()): Promise<PushDelivery[]> {
  return store.claimDeliveries({ now, limit: 1000, lockMs: 1000 });
}

/** Claims and completes until nothing is due; returns the keys in delivery order. */
async function drain(store: Store, now: Date = later()): Promise<string[]> {
  const seen: string[] = [];
  for (let round = 0; round < 1000; round++) {
    const batch = await claimAll(store, now);
    if (batch.length === 0) return seen;
    for (const d of batch) {
      seen.push(keyOf(d));
      await store.completeDelivery(d);
    }
  }
  throw new Error('drain did not finish');
}

function asPush(store: TaskStore): Store {
  assert.ok(isPushStore(store), 'the store implements PushStore');
  return store as Store;
}

export function runPushContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const onStore = freshStoreTest(makeStore, 60_000);
  const pushTest = (title: string, fn: (store: Store, s: StoreUnderTest, t: TestContext) => Promise<void>): void => onStore(title, (s, t) => fn(asPush(s.store), s, t));

  describe(`PushStore contract: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    pushTest('configs: put, get, replace (upsert), tenant kept out of the stored config, tenants and tasks isolated', async (store) => {
      await store.create('t', makeTask('task'));
      const stored = await store.putPushConfig('t', { ...config('task', 'c1'), tenant: 't' });
      assert.deepEqual(stored, config('task', 'c1'));
      assert.deepEqual(await store.getPushConfig('t', 'task', 'c1'), config('task', 'c1'));
      const replaced = config('task', 'c1', { url: 'https://other.example/', authentication: { scheme: 'Bearer', credentials: 'enc:xyz' } });
      await store.putPushConfig('t', replaced);
      assert.deepEqual(await store.getPushConfig('t', 'task', 'c1'), replaced);
      assert.equal(await store.getPushConfig('t', 'task', 'nope'), undefined);
      assert.equal(await store.getPushConfig('other', 'task', 'c1'), undefined);
      assert.equal(await store.getPushConfig('t', 'other-task', 'c1'), undefined);
      assert.deepEqual(await store.listPushConfigs('other', 'task', { pageSize: 10 }), { configs: [], hasMore: false });
    });

    pushTest('configs: listed by id ascending, keyset pages with hasMore', async (store) => {
      await store.create('', makeTask('task'));
      const ids = ['b', 'a', 'e', 'c', 'd'];
      for (const id of ids) await store.putPushConfig('', config('task', id));
      await store.create('', makeTask('other'));
      await store.putPushConfig('', config('other', 'a0'));
      const all = await store.listPushConfigs('', 'task', { pageSize: 10 });
      assert.deepEqual(all, { configs: ['a', 'b', 'c', 'd', 'e'].map((id) => config('task', id)), hasMore: false });
      const p1 = await store.listPushConfigs('', 'task', { pageSize: 2 });
      assert.deepEqual(
        p1.configs.map((c) => c.id),
        ['a', 'b'],
      );
      assert.equal(p1.hasMore, true);
      const p2 = await store.listPushConfigs('', 'task', { pageSize: 2, afterId: 'b' });
      assert.deepEqual(
        p2.configs.map((c) => c.id),
        ['c', 'd'],
      );
      assert.equal(p2.hasMore, true);
      const p3 = await store.listPushConfigs('', 'task', { pageSize: 2, afterId: 'd' });
      assert.deepEqual(p3, { configs: [config('task', 'e')], hasMore: false });
      // An afterId that is not a config id: strictly after it in id order.
      assert.deepEqual(
        (await store.listPushConfigs('', 'task', { pageSize: 10, afterId: 'bb' })).configs.map((c) => c.id),
        ['c', 'd', 'e'],
      );
      assert.deepEqual(await store.listPushConfigs('', 'task', { pageSize: 3, afterId: 'e' }), { configs: [], hasMore: false });
      assert.deepEqual(await store.listPushConfigs('', 'task', { pageSize: 0 }), { configs: [], hasMore: true });
    });

    pushTest('PUSH limits: maxPerTask is counted with the write, so 30 concurrent puts store exactly 10', async (store) => {
      await store.create('', makeTask('task'));
      await store.create('', makeTask('other'));
      const puts = Array.from({ length: 30 }, (_, i) => store.putPushConfig('', config('task', `c${String(i).padStart(2, '0')}`), { maxPerTask: 10 }));
      // Another task's puts at the same time are counted apart.
      puts.push(...Array.from({ length: 3 }, (_, i) => store.putPushConfig('', config('other', `o${i}`), { maxPerTask: 10 })));
      const outcomes = await Promise.allSettled(puts);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      for (const o of refused) assert.ok(o.reason instanceof PushConfigLimitError && o.reason.maxPerTask === 10, String(o.reason));
      assert.equal(refused.length, 20);
      assert.equal((await store.listPushConfigs('', 'task', { pageSize: 100 })).configs.length, 10);
      assert.equal((await store.listPushConfigs('', 'other', { pageSize: 100 })).configs.length, 3);
      // A full task still takes a replacement of one of its configs (D3), and nothing new.
      const [first] = (await store.listPushConfigs('', 'task', { pageSize: 1 })).configs;
      assert.ok(first);
      const replaced = { ...first, url: 'https://replaced.example/' };
      assert.deepEqual(await store.putPushConfig('', replaced, { maxPerTask: 10 }), replaced);
      assert.deepEqual(await store.getPushConfig('', 'task', first.id), replaced);
      await assert.rejects(store.putPushConfig('', config('task', 'late'), { maxPerTask: 10 }), PushConfigLimitError);
      assert.equal(await store.getPushConfig('', 'task', 'late'), undefined);
      // Without the option, no limit.
      await store.putPushConfig('', config('task', 'unlimited'));
      assert.equal((await store.listPushConfigs('', 'task', { pageSize: 100 })).configs.length, 11);
    });

    pushTest('configs: delete says whether it existed, and is idempotent', async (store) => {
      await store.create('', makeTask('task'));
      await store.putPushConfig('', config('task', 'c1'));
      await store.putPushConfig('', config('task', 'c2'));
      assert.equal(await store.deletePushConfig('', 'task', 'c1'), true);
      assert.equal(await store.deletePushConfig('', 'task', 'c1'), false);
      assert.equal(await store.deletePushConfig('', 'task', 'never'), false);
      assert.equal(await store.deletePushConfig('other', 'task', 'c2'), false);
      assert.equal(await store.getPushConfig('', 'task', 'c1'), undefined);
      assert.deepEqual(
        (await store.listPushConfigs('', 'task', { pageSize: 10 })).configs.map((c) => c.id),
        ['c2'],
      );
    });

    pushTest('create with pushConfig registers the config and enqueues seq 1 (the task snapshot) for it', async (store) => {
      const task = makeTask('t1');
      const before = Date.now();
      await store.create('ten', task, { pushConfig: config('t1', 'hook') });
      assert.deepEqual(await store.getPushConfig('ten', 't1', 'hook'), config('t1', 'hook'));
      const due = await store.nextDeliveryDue();
      assert.ok(due && due.getTime() <= Date.now() && due.getTime() >= before - 1000, String(due));
      const [d, ...rest] = await claimAll(store);
      assert.deepEqual(rest, []);
      assert.ok(d);
      assert.deepEqual(
        { ...d, createdAt: undefined },
        { tenant: 'ten', taskId: 't1', configId: 'hook', seq: 1, event: { task }, config: config('t1', 'hook'), attempts: 0, createdAt: undefined },
      );
      assert.ok(Math.abs(Date.parse(d.createdAt) - Date.now()) < 60_000, d.createdAt);
      // A create without a config, or one that loses the race, enqueues nothing.
      await store.create('ten', makeTask('plain'));
      await assert.rejects(store.create('ten', makeTask('t1'), { pushConfig: config('t1', 'second') }));
      assert.equal(await store.getPushConfig('ten', 't1', 'second'), undefined);
      assert.deepEqual(keys(await claimAll(store, later(5 * MINUTE))), ['ten/t1/hook#1'], 'only seq 1 of the first create, again once its lock ran out');
    });

    pushTest('append enqueues every new event for every config of the task, not earlier events, not other tasks', async (store) => {
      const task = makeTask('t');
      await store.create('', task);
      await appendArtifacts(store, { tenant: '', task }, ['before']); // seq 2, no config yet
      await store.putPushConfig('', config('t', 'a'));
      await store.putPushConfig('', config('t', 'b'));
      const other = makeTask('quiet');
      await store.create('', other);
      await appendArtifacts(store, { tenant: '', task: other }, ['x']);
      assert.equal(await store.nextDeliveryDue(), undefined);
      await appendArtifacts(store, { tenant: '', task }, ['one', 'two']); // seq 3, 4
      await appendArtifacts(store, { tenant: '', task }, []); // snapshot only: nothing to deliver
      const delivered: PushDelivery[] = [];
      for (;;) {
        const batch = await claimAll(store);
        if (batch.length === 0) break;
        assert.ok(batch.length <= 2, 'one head per config');
        for (const d of batch) {
          delivered.push(d);
          await store.completeDelivery(d);
        }
      }
      assert.deepEqual(
        delivered.map((d) => `${d.configId}#${d.seq}`).sort(),
        ['a#3', 'a#4', 'b#3', 'b#4'],
      );
      for (const d of delivered) {
        assert.deepEqual(d.event, artifact(task, d.seq === 3 ? 'one' : 'two'));
        assert.deepEqual(d.config, config('t', d.configId));
      }
      assert.equal(await store.nextDeliveryDue(), undefined);
    });

    pushTest('head of line: seq n+1 is not handed out while seq n is pending, locked or backing off; other configs proceed', async (store) => {
      const task = makeTask('t');
      await store.create('', task, { pushConfig: config('t', 'slow') });
      await store.putPushConfig('', config('t', 'fast'));
      await appendArtifacts(store, { tenant: '', task }, ['e2', 'e3']);
      const T = later().getTime();
      const first = await store.claimDeliveries({ now: new Date(T), limit: 10, lockMs: 30_000 });
      assert.deepEqual(
        first.map((d) => `${d.configId}#${d.seq}`).sort(),
        ['fast#2', 'slow#1'],
      );
      // slow#1 locked: slow#2 waits; fast#2 is locked too, fast#3 waits.
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 1000), limit: 10, lockMs: 30_000 }), []);
      const slow1 = first.find((d) => d.configId === 'slow');
      const fast2 = first.find((d) => d.configId === 'fast');
      assert.ok(slow1 && fast2);
      await store.retryDelivery(slow1, { nextAttemptAt: new Date(T + 10 * MINUTE), error: 'HTTP 503' });
      await store.completeDelivery(fast2);
      // slow#1 backs off; slow#2 still may not overtake it.
      const second = await store.claimDeliveries({ now: new Date(T + 2000), limit: 10, lockMs: 30_000 });
      assert.deepEqual(
        second.map((d) => `${d.configId}#${d.seq}`),
        ['fast#3'],
      );
      const fast3 = second[0];
      assert.ok(fast3);
      await store.completeDelivery(fast3);
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 5 * MINUTE), limit: 10, lockMs: 30_000 }), []);
      assert.equal((await store.nextDeliveryDue())?.getTime(), T + 10 * MINUTE, 'the backing-off head, not the blocked seq 2');
      const retried = await store.claimDeliveries({ now: new Date(T + 10 * MINUTE), limit: 10, lockMs: 30_000 });
      assert.deepEqual(
        retried.map((d) => [d.configId, d.seq, d.attempts]),
        [['slow', 1, 1]],
      );
      assert.ok(retried[0]);
      await store.completeDelivery(retried[0]);
      assert.deepEqual(await drain(store, new Date(T + 11 * MINUTE)), ['/t/slow#2', '/t/slow#3']);
    });

    pushTest('locks: a claimed delivery is not claimed again until lockMs has passed (a crashed worker’s rows come back)', async (store) => {
      await store.create('', makeTask('t'), { pushConfig: config('t', 'c') });
      const T = later().getTime();
      const [d] = await store.claimDeliveries({ now: new Date(T), limit: 5, lockMs: 30_000 });
      assert.ok(d);
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T), limit: 5, lockMs: 30_000 }), []);
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 29_999), limit: 5, lockMs: 30_000 }), []);
      assert.equal((await store.nextDeliveryDue())?.getTime(), T + 30_000, 'a locked row is due when its lock runs out');
      const [again] = await store.claimDeliveries({ now: new Date(T + 30_001), limit: 5, lockMs: 30_000 });
      assert.deepEqual(again && { key: keyOf(again), attempts: again.attempts }, { key: keyOf(d), attempts: 0 });
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 40_000), limit: 5, lockMs: 30_000 }), []);
    });

    pushTest('claim: oldest next attempt first, at most `limit`, not before next_attempt_at', async (store) => {
      for (const id of ['a', 'b', 'c']) await store.create('', makeTask(id), { pushConfig: config(id, 'h') });
      const T = later().getTime();
      const claimed = await store.claimDeliveries({ now: new Date(T), limit: 3, lockMs: 1 });
      assert.equal(claimed.length, 3);
      const at: Record<string, number> = { a: T + 3000, b: T + 1000, c: T + 2000 };
      for (const d of claimed) await store.retryDelivery(d, { nextAttemptAt: new Date(at[d.taskId] ?? 0), error: 'timeout' });
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 999), limit: 3, lockMs: 1 }), []);
      assert.equal((await store.nextDeliveryDue())?.getTime(), T + 1000);
      const two = await store.claimDeliveries({ now: new Date(T + 5000), limit: 2, lockMs: 1 });
      assert.deepEqual(
        two.map((d) => d.taskId),
        ['b', 'c'],
      );
      assert.deepEqual(
        two.map((d) => d.attempts),
        [1, 1],
      );
      assert.deepEqual(
        (await store.claimDeliveries({ now: new Date(T + 5000), limit: 2, lockMs: 1 })).map((d) => d.taskId),
        ['a'],
      );
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 9000), limit: 0, lockMs: 1 }), []);
    });

    pushTest('dead letters: kept with attempts and error, newest first, no longer claimed or blocking the next seq', async (store) => {
      const task = makeTask('t');
      await store.create('ten', task, { pushConfig: config('t', 'c') });
      await appendArtifacts(store, { tenant: 'ten', task }, ['e2']);
      const T = later().getTime();
      const [d1] = await store.claimDeliveries({ now: new Date(T), limit: 5, lockMs: 1000 });
      assert.ok(d1 && d1.seq === 1);
      await store.retryDelivery(d1, { nextAttemptAt: new Date(T + 1000), error: 'HTTP 500' });
      const [again] = await store.claimDeliveries({ now: new Date(T + 1000), limit: 5, lockMs: 1000 });
      assert.ok(again && again.seq === 1 && again.attempts === 1);
      await store.deadLetterDelivery(again, { error: 'HTTP 410 Gone' });
      const dead = await store.listDeadLetters('ten');
      assert.equal(dead.length, 1);
      assert.deepEqual(
        { ...dead[0], createdAt: undefined },
        { tenant: 'ten', taskId: 't', configId: 'c', seq: 1, attempts: 2, error: 'HTTP 410 Gone', createdAt: undefined },
      );
      assert.equal(dead[0]?.createdAt, d1.createdAt);
      // seq 2 is now head of line.
      const [d2] = await store.claimDeliveries({ now: new Date(T + 2000), limit: 5, lockMs: 1000 });
      assert.equal(d2?.seq, 2);
      assert.ok(d2);
      await store.deadLetterDelivery(d2, { error: 'too old' });
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 99 * MINUTE), limit: 5, lockMs: 1000 }), []);
      assert.equal(await store.nextDeliveryDue(), undefined);
      // Completing or retrying a dead letter changes nothing.
      await store.retryDelivery(d2, { nextAttemptAt: new Date(T), error: 'x' });
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 99 * MINUTE), limit: 5, lockMs: 1000 }), []);
      const both = await store.listDeadLetters('ten');
      assert.deepEqual(
        both.map((x) => [x.seq, x.error]),
        [
          [2, 'too old'],
          [1, 'HTTP 410 Gone'],
        ],
      );
      assert.deepEqual(
        (await store.listDeadLetters('ten', { limit: 1 })).map((x) => x.seq),
        [2],
      );
      assert.deepEqual(
        (await store.listDeadLetters('ten', { taskId: 't' })).map((x) => x.seq),
        [2, 1],
      );
      assert.deepEqual(await store.listDeadLetters('ten', { taskId: 'other' }), []);
      assert.deepEqual(await store.listDeadLetters('other'), []);
    });

    pushTest('R12 defer: unlocked, due again at the time given, attempts unchanged; a dead letter stays dead', async (store) => {
      await store.create('ten', makeTask('t'), { pushConfig: config('t', 'c') });
      const T = later().getTime();
      const [d] = await store.claimDeliveries({ now: new Date(T), limit: 5, lockMs: 60_000 });
      assert.ok(d && d.seq === 1 && d.attempts === 0);
      await store.deferDelivery(d, { nextAttemptAt: new Date(T + 500) });
      // Unlocked (the 60 s lock is gone), but not due before the time given.
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 499), limit: 5, lockMs: 1000 }), []);
      assert.equal((await store.nextDeliveryDue())?.getTime(), T + 500);
      const [again] = await store.claimDeliveries({ now: new Date(T + 500), limit: 5, lockMs: 1000 });
      assert.ok(again && again.seq === 1);
      assert.equal(again.attempts, 0, 'a deferred delivery was not attempted');
      await store.deadLetterDelivery(again, { error: 'x' });
      await store.deferDelivery(again, { nextAttemptAt: new Date(T) });
      await store.deferDelivery({ tenant: 'ten', taskId: 'nope', configId: 'c', seq: 1 }, { nextAttemptAt: new Date(T) });
      assert.deepEqual(await store.claimDeliveries({ now: new Date(T + 99 * MINUTE), limit: 5, lockMs: 1000 }), []);
    });

    pushTest('complete removes the delivery; completing twice or an unknown key is harmless', async (store) => {
      await store.create('', makeTask('t'), { pushConfig: config('t', 'c') });
      const [d] = await claimAll(store);
      assert.ok(d);
      await store.completeDelivery(d);
      await store.completeDelivery(d);
      await store.completeDelivery({ tenant: '', taskId: 'nope', configId: 'c', seq: 1 });
      await store.retryDelivery({ tenant: '', taskId: 'nope', configId: 'c', seq: 1 }, { nextAttemptAt: new Date(), error: 'x' });
      await store.deadLetterDelivery({ tenant: '', taskId: 'nope', configId: 'c', seq: 1 }, { error: 'x' });
      assert.equal(await store.nextDeliveryDue(), undefined);
      assert.deepEqual(await claimAll(store, later(MINUTE)), []);
      assert.deepEqual(await store.listDeadLetters(''), []);
    });

    pushTest('deleting a config drops its pending deliveries (PUSH-07); a new config of that id only gets later events', async (store) => {
      const task = makeTask('t');
      await store.create('', task, { pushConfig: config('t', 'gone') });
      await store.putPushConfig('', config('t', 'kept'));
      await appendArtifacts(store, { tenant: '', task }, ['e2', 'e3']);
      const T = later().getTime();
      const claimed = await store.claimDeliveries({ now: new Date(T), limit: 10, lockMs: 1000 });
      assert.deepEqual(
        claimed.map((d) => `${d.configId}#${d.seq}`).sort(),
        ['gone#1', 'kept#2'],
      );
      assert.equal(await store.deletePushConfig('', 't', 'gone'), true);
      // The worker holding gone#1 reports back after the delete: nothing comes back to life.
      const gone1 = claimed.find((d) => d.configId === 'gone');
      assert.ok(gone1);
      await store.retryDelivery(gone1, { nextAttemptAt: new Date(T), error: 'late' });
      assert.deepEqual(await drain(store, new Date(T + MINUTE)), ['/t/kept#2', '/t/kept#3']);
      await store.putPushConfig('', config('t', 'gone', { url: 'https://new.example/' }));
      await appendArtifacts(store, { tenant: '', task }, ['e4']);
      const fresh = await claimAll(store, new Date(T + 2 * MINUTE));
      assert.deepEqual(
        fresh.map((d) => [d.configId, d.seq, d.config.url]).sort(),
        [
          ['gone', 4, 'https://new.example/'],
          ['kept', 4, 'https://hooks.example/t/kept'],
        ],
      );
    });

    pushTest('tenants: the same task and config ids in two tenants are separate queues', async (store) => {
      for (const tenant of ['a', 'b']) await store.create(tenant, makeTask('t'), { pushConfig: config('t', 'c') });
      const T = later().getTime();
      const both = await store.claimDeliveries({ now: new Date(T), limit: 10, lockMs: 1000 });
      assert.deepEqual(keys(both), ['a/t/c#1', 'b/t/c#1']);
      await store.deletePushConfig('a', 't', 'c');
      assert.deepEqual(await store.getPushConfig('b', 't', 'c'), config('t', 'c'));
      const b1 = both.find((d) => d.tenant === 'b');
      assert.ok(b1);
      await store.retryDelivery(b1, { nextAttemptAt: new Date(T), error: 'e' });
      assert.deepEqual(keys(await store.claimDeliveries({ now: new Date(T + 1), limit: 10, lockMs: 1000 })), ['b/t/c#1']);
    });

    pushTest('retention purge removes the purged tasks’ configs, pending deliveries and dead letters', async (store) => {
      const done = makeTask('done', { state: 'TASK_STATE_COMPLETED', at: 1 });
      await store.create('', done, { pushConfig: config('done', 'c') });
      await appendArtifacts(store, { tenant: '', task: done }, ['e2', 'e3']);
      const [d1] = await claimAll(store);
      assert.ok(d1);
      await store.deadLetterDelivery(d1, { error: 'dead' });
      await store.create('', makeTask('live', { state: 'TASK_STATE_WORKING', at: 1 }), { pushConfig: config('live', 'c') });
      assert.equal(await purgeable(store).purgeTerminal({ before: ts(50) }), 1);
      assert.equal(await store.getPushConfig('', 'done', 'c'), undefined);
      assert.deepEqual(await store.listPushConfigs('', 'done', { pageSize: 10 }), { configs: [], hasMore: false });
      assert.deepEqual(await store.listDeadLetters(''), []);
      assert.deepEqual(keys(await claimAll(store)), ['/live/c#1']);
      // A new task with the purged id starts clean.
      await store.create('', makeTask('done'), { pushConfig: config('done', 'c') });
      assert.deepEqual(keys(await claimAll(store, later(MINUTE))), ['/done/c#1', '/live/c#1']);
    });

    pushTest('reopened storage: pending deliveries, their attempts and locks survive closing the first handle', async (store, s, t) => {
      if (!s.reopen) {
        t.skip(`${name} has no second handle on the same data`);
        return;
      }
      const task = makeTask('t');
      await store.create('', task, { pushConfig: config('t', 'c') });
      await appendArtifacts(store, { tenant: '', task }, ['e2']);
      const T = later().getTime();
      const [d1] = await store.claimDeliveries({ now: new Date(T), limit: 5, lockMs: 1000 });
      assert.ok(d1);
      await store.retryDelivery(d1, { nextAttemptAt: new Date(T + 5000), error: 'HTTP 502' });
      await store.claimDeliveries({ now: new Date(T + 5000), limit: 5, lockMs: 30_000 });
      await store.close?.();
      const other = asPush(await s.reopen());
      try {
        assert.equal((await other.nextDeliveryDue())?.getTime(), T + 35_000);
        assert.deepEqual(await other.claimDeliveries({ now: new Date(T + 34_999), limit: 5, lockMs: 1000 }), []);
        const [again] = await other.claimDeliveries({ now: new Date(T + 35_001), limit: 5, lockMs: 1000 });
        assert.deepEqual(again && [again.seq, again.attempts, again.event], [1, 1, { task }]);
        assert.ok(again);
        await other.completeDelivery(again);
        assert.deepEqual(await drain(other, new Date(T + MINUTE)), ['/t/c#2']);
      } finally {
        await other.close?.();
      }
    });

    pushTest('two handles claiming at once never get the same delivery, nor two of one config', async (store, s, t) => {
      if (!s.reopen) {
        t.skip(`${name} has no second handle on the same data`);
        return;
      }
      const other = asPush(await s.reopen());
      try {
        const tasks = 30;
        for (let i = 0; i < tasks; i++) {
          const task = makeTask(`t${i}`);
          await store.create('', task, { pushConfig: config(task.id, 'a') });
          await store.putPushConfig('', config(task.id, 'b'));
          await appendArtifacts(store, { tenant: '', task }, ['e2', 'e3']);
        }
        const now = later();
        const delivered = new Set<string>();
        for (let round = 0; round < 100; round++) {
          const batches = await Promise.all([store, other, store, other].map((h) => h.claimDeliveries({ now, limit: 7, lockMs: MINUTE })));
          const claimed = batches.flat();
          if (claimed.length === 0) break;
          const configs = claimed.map((d) => `${d.tenant}/${d.taskId}/${d.configId}`);
          assert.equal(new Set(configs).size, configs.length, `one head per config at a time: ${configs.join(' ')}`);
          for (const d of claimed) {
            assert.ok(!delivered.has(keyOf(d)), `${keyOf(d)} claimed twice`);
            delivered.add(keyOf(d));
          }
          // Complete from the other handle, alternating.
          await Promise.all(claimed.map((d, i) => (i % 2 ? store : other).completeDelivery(d)));
        }
        // Config a (registered with the task) gets seq 1–3, config b (put after create) seq 2–3.
        assert.equal(delivered.size, tasks * 5);
        assert.equal(await other.nextDeliveryDue(), undefined);
      } finally {
        await other.close?.();
      }
    });
  });
}
