/**
 * The TaskStore contract suite (architecture decision 5). Every store — memory, SQLite,
 * PostgreSQL — runs these tests unchanged; a behaviour not pinned here is not part of the
 * contract. `makeStore` returns a fresh, empty store per test; stores on shared storage may also
 * return `reopen`, a second handle on the same data (another process, in effect), which adds the
 * persistence and cross-handle compare-and-set tests.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamResponse, Task, TaskState } from '../../src/protocol/types.js';
import { VersionConflictError, type StoredEvent, type TaskRecord, type TaskStore } from '../../src/server/stores/taskStore.js';
import { DuplicateMessageError } from '../../src/server/stores/taskStore.js';
import { messageFingerprint } from '../../src/server/messageFingerprint.js';
import { runPushContract } from './pushContract.js';
import { runLeaseContract } from './leaseContract.js';
import { runOwnerContract } from './ownerContract.js';
import { runContextContract } from './contextContract.js';
import { runChunkContract } from './chunkContract.js';
import { runListSizeContract } from './listSizeContract.js';

export interface StoreUnderTest {
  store: TaskStore;
  cleanup: () => Promise<void>;
  /** A second, independent handle on the same storage (SQL stores). */
  reopen?: () => Promise<TaskStore>;
}

const BASE = Date.UTC(2025, 0, 1);

/** Canonical ISO timestamp `seconds` after 2025-01-01T00:00:00.000Z. */
export function ts(seconds: number): string {
  return new Date(BASE + seconds * 1000).toISOString();
}

export function makeTask(id: string, options: { contextId?: string; state?: TaskState; at?: number; text?: string } = {}): Task {
  return {
    id,
    ...(options.contextId !== undefined ? { contextId: options.contextId } : { contextId: `ctx-${id}` }),
    status: { state: options.state ?? 'TASK_STATE_SUBMITTED', timestamp: ts(options.at ?? 0) },
    history: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: options.text ?? `hello ${id}` }], taskId: id }],
  };
}

function statusEvent(task: Task, state: TaskState, at: number): StreamResponse {
  return { statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: { state, timestamp: ts(at) } } };
}

function artifactEvent(task: Task, text: string): StreamResponse {
  return { artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact: { artifactId: `a-${text}`, parts: [{ text }] } } };
}

function withStatus(task: Task, state: TaskState, at: number): Task {
  return { ...task, status: { state, timestamp: ts(at) } };
}

function seqs(events: StoredEvent[]): number[] {
  return events.map((e) => e.seq);
}

function ids(records: TaskRecord[]): string[] {
  return records.map((r) => r.task.id);
}

/** Appends with the read / compare-and-set / retry loop of TaskWriter. */
async function appendWithRetry(store: TaskStore, input: { tenant: string; taskId: string; events: StreamResponse[] }): Promise<number> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const current = await store.get(input.tenant, input.taskId);
    assert.ok(current, 'task exists');
    try {
      await store.append({ ...input, expectedVersion: current.version, task: current.task });
      return attempt;
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  throw new Error('gave up after 10000 conflicts');
}

/** Walks every page of a list query; `between` runs after each page. */
async function allPages(
  store: TaskStore,
  query: Omit<Parameters<TaskStore['list']>[0], 'after'>,
  between?: (page: number) => Promise<void>,
): Promise<{ pages: TaskRecord[][]; totals: number[]; hasMore: boolean[] }> {
  const pages: TaskRecord[][] = [];
  const totals: number[] = [];
  const hasMore: boolean[] = [];
  let after: { timestamp: string; id: string } | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await store.list({ ...query, ...(after ? { after } : {}) });
    pages.push(result.records);
    totals.push(result.totalSize);
    hasMore.push(result.hasMore);
    const last = result.records[result.records.length - 1];
    if (!result.hasMore || !last) break;
    after = { timestamp: last.task.status.timestamp ?? '', id: last.task.id };
    await between?.(page);
  }
  return { pages, totals, hasMore };
}

export interface ContractOptions {
  /** Skip the whole suite with this reason (e.g. no PostgreSQL available). */
  skip?: string;
}

export type FreshStoreTest = (title: string, fn: (s: StoreUnderTest, t: TestContext) => Promise<void>, options?: { timeout?: number }) => void;

/** Declares tests that each run on a fresh store from `makeStore`, always cleaned up (default timeout 30 s). */
export function freshStoreTest(makeStore: () => Promise<StoreUnderTest>, defaultTimeout = 30_000): FreshStoreTest {
  return (title, fn, options = {}) => {
    test(title, { timeout: options.timeout ?? defaultTimeout }, async (t) => {
      const s = await makeStore();
      try {
        await fn(s, t);
      } finally {
        await s.cleanup();
      }
    });
  };
}

export function runStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const storeTest = freshStoreTest(makeStore);

  describe(`TaskStore contract: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    storeTest('get and events of an unknown task: undefined and []', async ({ store }) => {
      assert.equal(await store.get('', 'nope'), undefined);
      assert.deepEqual(await store.events('', 'nope', 0), []);
    });

    storeTest('create: version 1, seq 1, the {task} snapshot as event 1; get returns the same task', async ({ store }) => {
      const task = makeTask('t1', { contextId: 'c1' });
      const created = await store.create('', task);
      assert.deepEqual(created.record, { tenant: '', owner: '', task, version: 1, seq: 1 });
      assert.deepEqual(created.events, [{ seq: 1, event: { task } }]);
      assert.deepEqual(await store.get('', 't1'), { tenant: '', owner: '', task, version: 1, seq: 1 });
      assert.deepEqual(await store.events('', 't1', 0), [{ seq: 1, event: { task } }]);
    });

    storeTest('create with its first change (then): the changed task, the snapshot then the change\'s events, and writes continue after it', async ({ store }) => {
      const task = makeTask('t-then', { contextId: 'c1' });
      const next = withStatus(task, 'TASK_STATE_WORKING', 5);
      const events = [statusEvent(task, 'TASK_STATE_WORKING', 5), artifactEvent(task, 'x')];
      const created = await store.create('', task, { then: { task: next, events } });
      assert.deepEqual(created.record.task, next);
      assert.equal(created.record.seq, 3);
      assert.deepEqual(created.events, [
        { seq: 1, event: { task } },
        { seq: 2, event: events[0] },
        { seq: 3, event: events[1] },
      ]);
      assert.deepEqual(await store.get('', 't-then'), created.record);
      assert.deepEqual(await store.events('', 't-then', 0), created.events);
      const done = withStatus(next, 'TASK_STATE_COMPLETED', 6);
      const after = await store.append({ tenant: '', taskId: 't-then', expectedVersion: created.record.version, task: done, events: [statusEvent(task, 'TASK_STATE_COMPLETED', 6)] });
      assert.equal(after.record.seq, 4);
      assert.deepEqual(seqs(await store.events('', 't-then', 0)), [1, 2, 3, 4]);
      // A stale version (the creation's own) is refused like any other.
      await assert.rejects(
        store.append({ tenant: '', taskId: 't-then', expectedVersion: created.record.version, task: done, events: [] }),
        (e: unknown) => e instanceof VersionConflictError,
      );
    });

    storeTest('create twice → VersionConflictError, the first task untouched', async ({ store }) => {
      const task = makeTask('dup');
      await store.create('', task);
      await assert.rejects(store.create('', { ...task, metadata: { second: true } }), (e: unknown) => {
        assert.ok(e instanceof VersionConflictError);
        assert.equal(e.taskId, 'dup');
        return true;
      });
      assert.deepEqual((await store.get('', 'dup'))?.task, task);
      assert.deepEqual(seqs(await store.events('', 'dup', 0)), [1]);
    });

    storeTest('append with the current version: new snapshot, version + 1, events numbered after seq', async ({ store }) => {
      const task = makeTask('a1');
      await store.create('', task);
      const next = withStatus(task, 'TASK_STATE_WORKING', 5);
      const events = [statusEvent(task, 'TASK_STATE_WORKING', 5), artifactEvent(task, 'x')];
      const result = await store.append({ tenant: '', taskId: 'a1', expectedVersion: 1, task: next, events });
      assert.deepEqual(result.record, { tenant: '', owner: '', task: next, version: 2, seq: 3 });
      assert.deepEqual(result.events, [
        { seq: 2, event: events[0] },
        { seq: 3, event: events[1] },
      ]);
      assert.deepEqual(await store.get('', 'a1'), { tenant: '', owner: '', task: next, version: 2, seq: 3 });
      assert.deepEqual(await store.events('', 'a1', 0), [{ seq: 1, event: { task } }, ...result.events]);
    });

    storeTest('append with a stale, future or unknown version → VersionConflictError and nothing written', async ({ store }) => {
      const task = makeTask('cas');
      await store.create('', task);
      await store.append({ tenant: '', taskId: 'cas', expectedVersion: 1, task: withStatus(task, 'TASK_STATE_WORKING', 1), events: [statusEvent(task, 'TASK_STATE_WORKING', 1)] });
      const before = await store.get('', 'cas');
      for (const expectedVersion of [1, 3, 0, -1]) {
        await assert.rejects(
          store.append({ tenant: '', taskId: 'cas', expectedVersion, task: withStatus(task, 'TASK_STATE_FAILED', 9), events: [statusEvent(task, 'TASK_STATE_FAILED', 9)] }),
          (e: unknown) => e instanceof VersionConflictError && e.taskId === 'cas',
        );
      }
      assert.deepEqual(await store.get('', 'cas'), before);
      assert.deepEqual(seqs(await store.events('', 'cas', 0)), [1, 2]);
      await assert.rejects(
        store.append({ tenant: '', taskId: 'missing', expectedVersion: 1, task: makeTask('missing'), events: [] }),
        (e: unknown) => e instanceof VersionConflictError && e.taskId === 'missing',
      );
      assert.equal(await store.get('', 'missing'), undefined);
    });

    storeTest('seq stays gapless across appends, including snapshot-only (empty) appends', async ({ store }) => {
      const task = makeTask('gap');
      await store.create('', task);
      let version = 1;
      let expectedSeq = 1;
      const batches = [2, 0, 1, 0, 0, 3, 1, 0, 5];
      for (const [i, size] of batches.entries()) {
        const events = Array.from({ length: size }, (_, k) => artifactEvent(task, `${i}.${k}`));
        const snapshot = { ...task, metadata: { step: i } };
        const result = await store.append({ tenant: '', taskId: 'gap', expectedVersion: version, task: snapshot, events });
        version++;
        assert.equal(result.record.version, version);
        assert.deepEqual(
          seqs(result.events),
          Array.from({ length: size }, (_, k) => expectedSeq + k + 1),
        );
        expectedSeq += size;
        assert.equal(result.record.seq, expectedSeq);
        assert.deepEqual((await store.get('', 'gap'))?.task.metadata, { step: i });
      }
      const all = await store.events('', 'gap', 0);
      assert.deepEqual(
        seqs(all),
        Array.from({ length: expectedSeq }, (_, k) => k + 1),
      );
      assert.equal((await store.get('', 'gap'))?.seq, expectedSeq);
    });

    storeTest('events(afterSeq) returns exactly seq afterSeq+1 … n, in order', async ({ store }) => {
      const task = makeTask('slice');
      await store.create('', task);
      const events = Array.from({ length: 9 }, (_, k) => artifactEvent(task, `e${k}`));
      await store.append({ tenant: '', taskId: 'slice', expectedVersion: 1, task, events: events.slice(0, 4) });
      await store.append({ tenant: '', taskId: 'slice', expectedVersion: 2, task, events: events.slice(4) });
      const n = 10;
      for (let after = 0; after <= n + 2; after++) {
        const slice = await store.events('', 'slice', after);
        assert.deepEqual(
          seqs(slice),
          Array.from({ length: Math.max(0, n - after) }, (_, k) => after + k + 1),
          `afterSeq ${after}`,
        );
        for (const e of slice) if (e.seq > 1) assert.deepEqual(e.event, events[e.seq - 2]);
      }
    });

    storeTest('tenants are isolated: same id, separate snapshots, logs, versions and lists', async ({ store }) => {
      const a = makeTask('same', { contextId: 'shared-ctx', text: 'tenant a' });
      const b = makeTask('same', { contextId: 'shared-ctx', text: 'tenant b', at: 1 });
      await store.create('a', a);
      await store.create('b', b);
      await store.append({ tenant: 'a', taskId: 'same', expectedVersion: 1, task: withStatus(a, 'TASK_STATE_WORKING', 2), events: [statusEvent(a, 'TASK_STATE_WORKING', 2)] });
      assert.deepEqual(await store.get('b', 'same'), { tenant: 'b', owner: '', task: b, version: 1, seq: 1 });
      assert.equal((await store.get('a', 'same'))?.version, 2);
      assert.equal(await store.get('', 'same'), undefined);
      assert.deepEqual(seqs(await store.events('b', 'same', 0)), [1]);
      assert.deepEqual(seqs(await store.events('a', 'same', 0)), [1, 2]);
      await assert.rejects(
        store.append({ tenant: 'b', taskId: 'same', expectedVersion: 2, task: b, events: [] }),
        (e: unknown) => e instanceof VersionConflictError,
      );
      const listA = await store.list({ tenant: 'a', pageSize: 10 });
      assert.deepEqual(
        listA.records.map((r) => [r.tenant, r.task.history?.[0]?.parts]),
        [['a', [{ text: 'tenant a' }]]],
      );
      assert.equal(listA.totalSize, 1);
      assert.equal((await store.list({ tenant: 'b', contextId: 'shared-ctx', pageSize: 10 })).totalSize, 1);
      assert.deepEqual(await store.list({ tenant: 'c', pageSize: 10 }), { records: [], totalSize: 0, hasMore: false });
    });

    storeTest('list: newest status timestamp first, ties broken by id descending, records complete', async ({ store }) => {
      await store.create('', makeTask('b', { at: 10 }));
      await store.create('', makeTask('a', { at: 10 }));
      await store.create('', makeTask('c', { at: 10 }));
      await store.create('', makeTask('old', { at: 1 }));
      await store.create('', makeTask('new', { at: 20 }));
      const moved = makeTask('moved', { at: 0 });
      await store.create('', moved);
      // A status change re-sorts the task by its new timestamp.
      await store.append({ tenant: '', taskId: 'moved', expectedVersion: 1, task: withStatus(moved, 'TASK_STATE_WORKING', 15), events: [statusEvent(moved, 'TASK_STATE_WORKING', 15)] });
      const result = await store.list({ tenant: '', pageSize: 100 });
      assert.deepEqual(ids(result.records), ['new', 'moved', 'c', 'b', 'a', 'old']);
      assert.equal(result.totalSize, 6);
      assert.equal(result.hasMore, false);
      const movedRecord = result.records[1];
      assert.deepEqual(movedRecord, { tenant: '', owner: '', task: withStatus(moved, 'TASK_STATE_WORKING', 15), version: 2, seq: 2 });
    });

    storeTest('list filters: contextId, status, statusTimestampAfter (inclusive, any ISO form), combined', async ({ store }) => {
      const specs: Array<[string, string, TaskState, number]> = [
        ['t1', 'x', 'TASK_STATE_SUBMITTED', 1],
        ['t2', 'x', 'TASK_STATE_WORKING', 2],
        ['t3', 'y', 'TASK_STATE_WORKING', 3],
        ['t4', 'y', 'TASK_STATE_COMPLETED', 4],
        ['t5', 'x', 'TASK_STATE_COMPLETED', 5],
        ['t6', 'z', 'TASK_STATE_INPUT_REQUIRED', 6],
      ];
      for (const [id, contextId, state, at] of specs) await store.create('', makeTask(id, { contextId, state, at }));
      const list = async (q: { contextId?: string; status?: TaskState; statusTimestampAfter?: string }) => {
        const r = await store.list({ tenant: '', pageSize: 100, ...q });
        assert.equal(r.totalSize, r.records.length);
        assert.equal(r.hasMore, false);
        return ids(r.records);
      };
      assert.deepEqual(await list({ contextId: 'x' }), ['t5', 't2', 't1']);
      assert.deepEqual(await list({ contextId: 'nope' }), []);
      assert.deepEqual(await list({ status: 'TASK_STATE_WORKING' }), ['t3', 't2']);
      assert.deepEqual(await list({ status: 'TASK_STATE_CANCELED' }), []);
      assert.deepEqual(await list({ statusTimestampAfter: ts(4) }), ['t6', 't5', 't4']);
      assert.deepEqual(await list({ statusTimestampAfter: ts(4.001) }), ['t6', 't5']);
      // The same instant written without milliseconds, and with a zone offset.
      assert.deepEqual(await list({ statusTimestampAfter: ts(4).replace('.000Z', 'Z') }), ['t6', 't5', 't4']);
      assert.deepEqual(await list({ statusTimestampAfter: '2025-01-01T01:00:04+01:00' }), ['t6', 't5', 't4']);
      assert.deepEqual(await list({ statusTimestampAfter: ts(100) }), []);
      assert.deepEqual(await list({ contextId: 'x', status: 'TASK_STATE_COMPLETED' }), ['t5']);
      assert.deepEqual(await list({ contextId: 'y', statusTimestampAfter: ts(3) }), ['t4', 't3']);
      assert.deepEqual(await list({ contextId: 'x', status: 'TASK_STATE_WORKING', statusTimestampAfter: ts(2) }), ['t2']);
      assert.deepEqual(await list({ status: 'TASK_STATE_WORKING', statusTimestampAfter: ts(2.5) }), ['t3']);
    });

    storeTest('LIST-07 / JSON-04: statusTimestampAfter is compared at full precision, not cut to milliseconds', async ({ store }) => {
      // Stored status timestamps have millisecond precision; the bound may have up to nanoseconds.
      await store.create('', makeTask('at4', { at: 4 }));
      await store.create('', makeTask('at4.001', { at: 4.001 }));
      const list = async (statusTimestampAfter: string) => ids((await store.list({ tenant: '', pageSize: 100, statusTimestampAfter })).records);
      const at4 = ts(4).slice(0, -1); // 2025-01-01T00:00:04.000
      for (const below of ['999', '5', '000001']) {
        assert.deepEqual(await list(`${at4}${below}Z`), ['at4.001'], `.000${below} is after .000`);
      }
      assert.deepEqual(await list('2025-01-01T01:00:04.000999+01:00'), ['at4.001'], 'with a zone offset');
      assert.deepEqual(await list(`${at4}000Z`), ['at4.001', 'at4'], 'zeros below the millisecond change nothing');
      assert.deepEqual(await list(`${ts(4.001).slice(0, -1)}000000Z`), ['at4.001'], 'inclusive at full precision');
      assert.deepEqual(await list(`${ts(4.001).slice(0, -1)}000001Z`), []);
    });

    storeTest('list pagination: every task exactly once, in order; totalSize on every page; hasMore only before the last', async ({ store }) => {
      // 23 tasks, several sharing a timestamp so the id tie-break crosses page boundaries.
      const expected: string[] = [];
      for (let i = 0; i < 23; i++) {
        const id = `p${String(i).padStart(2, '0')}`;
        await store.create('', makeTask(id, { at: Math.floor(i / 4) }));
        expected.push(id);
      }
      expected.sort((x, y) => (Math.floor(Number(y.slice(1)) / 4) - Math.floor(Number(x.slice(1)) / 4)) || (x < y ? 1 : -1));
      for (const pageSize of [1, 3, 4, 5, 22, 23, 24, 100]) {
        const { pages, totals, hasMore } = await allPages(store, { tenant: '', pageSize });
        assert.deepEqual(pages.flat().map((r) => r.task.id), expected, `pageSize ${pageSize}`);
        assert.ok(totals.every((t) => t === 23), `totalSize on every page, pageSize ${pageSize}`);
        assert.equal(pages.length, Math.ceil(23 / pageSize));
        assert.deepEqual(
          hasMore,
          pages.map((_, i) => i < pages.length - 1),
        );
        for (const page of pages) assert.ok(page.length <= pageSize);
      }
      // Filtered pagination keeps the filter on every page.
      const odd = await allPages(store, { tenant: '', pageSize: 2, contextId: 'ctx-p07' });
      assert.deepEqual(odd.pages.flat().map((r) => r.task.id), ['p07']);
    });

    storeTest('list cursor: strictly after (timestamp, id), whether or not that task still sits there', async ({ store }) => {
      for (const id of ['a', 'b', 'c', 'd']) await store.create('', makeTask(id, { at: 5 }));
      await store.create('', makeTask('e', { at: 4 }));
      // The cursor need not name an existing task: everything strictly after it in the order.
      const r1 = await store.list({ tenant: '', pageSize: 10, after: { timestamp: ts(5), id: 'bb' } });
      assert.deepEqual(ids(r1.records), ['b', 'a', 'e']);
      assert.equal(r1.totalSize, 5);
      const r2 = await store.list({ tenant: '', pageSize: 10, after: { timestamp: ts(5), id: 'a' } });
      assert.deepEqual(ids(r2.records), ['e']);
      const r3 = await store.list({ tenant: '', pageSize: 10, after: { timestamp: ts(4.5), id: '' } });
      assert.deepEqual(ids(r3.records), ['e']);
      const r4 = await store.list({ tenant: '', pageSize: 2, after: { timestamp: ts(99), id: 'z' } });
      assert.deepEqual(ids(r4.records), ['d', 'c']);
      assert.equal(r4.hasMore, true);
      const r5 = await store.list({ tenant: '', pageSize: 2, after: { timestamp: ts(0), id: 'z' } });
      assert.deepEqual(r5, { records: [], totalSize: 5, hasMore: false });
    });

    storeTest('list pagination stays stable when tasks change between pages: no duplicate, no untouched task skipped', async ({ store }) => {
      const all: string[] = [];
      for (let i = 0; i < 30; i++) {
        const id = `s${String(i).padStart(2, '0')}`;
        await store.create('', makeTask(id, { at: i }));
        all.push(id);
      }
      const touched = new Set<string>();
      let clock = 1000;
      const bump = async (id: string) => {
        const record = await store.get('', id);
        assert.ok(record);
        clock++;
        await store.append({ tenant: '', taskId: id, expectedVersion: record.version, task: withStatus(record.task, 'TASK_STATE_WORKING', clock), events: [statusEvent(record.task, 'TASK_STATE_WORKING', clock)] });
        touched.add(id);
      };
      const { pages } = await allPages(store, { tenant: '', pageSize: 4 }, async (page) => {
        // Move an already-listed task and a not-yet-listed one to the front, and add a new task.
        await bump(`s${String(29 - page * 4).padStart(2, '0')}`);
        await bump(`s${String(Math.max(0, 10 - page)).padStart(2, '0')}`);
        await store.create('', makeTask(`new${page}`, { at: 2000 + page }));
      });
      const listed = pages.flat().map((r) => r.task.id);
      assert.equal(new Set(listed).size, listed.length, `duplicates in ${listed.join(',')}`);
      for (const id of all) if (!touched.has(id)) assert.ok(listed.includes(id), `untouched ${id} was skipped`);
      for (const id of listed) assert.ok(all.includes(id), `${id} was created after the listing started, behind the cursor`);
      // Order holds across pages: (timestamp, id) strictly decreasing.
      const keys = pages.flat().map((r) => [r.task.status.timestamp ?? '', r.task.id] as const);
      for (let i = 1; i < keys.length; i++) {
        const [pt, pi] = keys[i - 1] as readonly [string, string];
        const [ct, ci] = keys[i] as readonly [string, string];
        assert.ok(pt > ct || (pt === ct && pi > ci), `order at ${i}`);
      }
    });

    storeTest('many concurrent writers with compare-and-set retry: gapless 1..n, no lost event', async ({ store }) => {
      const task = makeTask('hot');
      await store.create('', task);
      const writers = 16;
      const perWriter = 12;
      let conflicts = 0;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let k = 0; k < perWriter; k++) {
            conflicts += await appendWithRetry(store, { tenant: '', taskId: 'hot', events: [artifactEvent(task, `w${w}-${k}`)] });
          }
        }),
      );
      const n = 1 + writers * perWriter;
      const record = await store.get('', 'hot');
      assert.equal(record?.seq, n);
      assert.equal(record?.version, n);
      const log = await store.events('', 'hot', 0);
      assert.deepEqual(
        seqs(log),
        Array.from({ length: n }, (_, k) => k + 1),
      );
      const texts = log.slice(1).map((e) => ('artifactUpdate' in e.event ? e.event.artifactUpdate.artifact.artifactId : '?'));
      assert.equal(new Set(texts).size, writers * perWriter);
      // Each writer's own events keep their order.
      for (let w = 0; w < writers; w++) {
        const mine = texts.filter((t) => t.startsWith(`a-w${w}-`));
        assert.deepEqual(
          mine,
          Array.from({ length: perWriter }, (_, k) => `a-w${w}-${k}`),
        );
      }
      assert.ok(conflicts >= 0);
    });

    storeTest('concurrent creates of one id: exactly one wins', async ({ store }) => {
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.create('', makeTask('race', { text: `writer ${i}` }))));
      const won = results.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof VersionConflictError);
      assert.deepEqual(seqs(await store.events('', 'race', 0)), [1]);
    });

    storeTest('large payloads round-trip intact (2 MiB artifact, 1,000-message history)', async ({ store }) => {
      const big = 'x'.repeat(1024 * 1024) + 'é'.repeat(512 * 1024);
      const task: Task = {
        ...makeTask('big'),
        history: Array.from({ length: 1000 }, (_, i) => ({ messageId: `h${i}`, role: 'ROLE_USER' as const, parts: [{ text: `message ${i}` }] })),
      };
      await store.create('', task);
      const artifact = { artifactId: 'big', parts: [{ text: big }] };
      const next: Task = { ...task, artifacts: [artifact] };
      await store.append({ tenant: '', taskId: 'big', expectedVersion: 1, task: next, events: [{ artifactUpdate: { taskId: 'big', contextId: task.contextId ?? '', artifact } }] });
      const got = await store.get('', 'big');
      assert.equal(got?.task.artifacts?.[0]?.parts[0] && 'text' in got.task.artifacts[0].parts[0] ? got.task.artifacts[0].parts[0].text : '', big);
      assert.equal(got?.task.history?.length, 1000);
      const [event] = await store.events('', 'big', 1);
      assert.deepEqual(event?.event, { artifactUpdate: { taskId: 'big', contextId: task.contextId, artifact } });
    });

    storeTest('unicode everywhere round-trips exactly (ids, tenant, context, text, data, NUL, separators, lone surrogates)', async ({ store }) => {
      const text = 'héllo 世界 🌍👩‍👩‍👧 مرحبا ה\u0301 \u0000 nul \u2028\u2029 tab\t "quotes" \\ back \ud800 lone \udfff';
      const tenant = 'tenant-ü-🌍';
      const id = 'tâche-任务-🚀';
      const task: Task = {
        id,
        contextId: 'contexte-上下文',
        status: { state: 'TASK_STATE_WORKING', timestamp: ts(1), message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text }] } },
        history: [{ messageId: 'u', role: 'ROLE_USER', parts: [{ text }, { data: { [text]: [text, 1.5, 0, 1e21, true, null] } }] }],
        metadata: { 'clé 🔑': text },
      };
      await store.create(tenant, task);
      const got = await store.get(tenant, id);
      assert.deepEqual(got?.task, JSON.parse(JSON.stringify(task)));
      await store.append({ tenant, taskId: id, expectedVersion: 1, task, events: [artifactEvent(task, text)] });
      const events = await store.events(tenant, id, 0);
      assert.deepEqual(events[1]?.event, artifactEvent(task, text));
      const listed = await store.list({ tenant, contextId: 'contexte-上下文', pageSize: 5 });
      assert.deepEqual(ids(listed.records), [id]);
      assert.equal(await store.get('tenant-u-🌍', id), undefined);
    });

    storeTest('R4 message records: written with the create or append they caused; a repeat writes nothing', async ({ store }) => {
      const first = makeTask('idem');
      const claim = { messageId: 'm-1', fingerprint: messageFingerprint({ parts: [{ text: 'hello' }] }) };
      await store.create('', first, { claim });
      assert.deepEqual(await store.findMessage('', '', 'm-1'), { messageId: 'm-1', taskId: 'idem', fingerprint: claim.fingerprint, owner: '' });
      assert.equal(await store.findMessage('', '', 'm-2'), undefined);
      assert.equal(await store.findMessage('other', '', 'm-1'), undefined);
      // The same id again, for a new task: refused, and that task does not exist.
      await assert.rejects(store.create('', makeTask('idem-2'), { claim }), (e: unknown) => {
        assert.ok(e instanceof DuplicateMessageError);
        assert.deepEqual(e.existing, { messageId: 'm-1', taskId: 'idem', fingerprint: claim.fingerprint, owner: '' });
        return true;
      });
      assert.equal(await store.get('', 'idem-2'), undefined);
      assert.deepEqual(await store.events('', 'idem-2', 0), []);
      // A follow-up records its id with the append; repeating it changes nothing.
      const follow = { messageId: 'm-3', fingerprint: 'f3' };
      await store.append({ tenant: '', taskId: 'idem', expectedVersion: 1, task: first, events: [artifactEvent(first, 'a')], claim: follow });
      assert.equal((await store.findMessage('', '', 'm-3'))?.taskId, 'idem');
      await assert.rejects(
        store.append({ tenant: '', taskId: 'idem', expectedVersion: 2, task: withStatus(first, 'TASK_STATE_FAILED', 9), events: [artifactEvent(first, 'b')], claim: follow }),
        (e: unknown) => e instanceof DuplicateMessageError && e.existing.taskId === 'idem',
      );
      assert.deepEqual(await store.get('', 'idem'), { tenant: '', owner: '', task: first, version: 2, seq: 2 });
      // A stale version still reports the version conflict, and records nothing.
      await assert.rejects(
        store.append({ tenant: '', taskId: 'idem', expectedVersion: 1, task: first, events: [], claim: { messageId: 'm-4', fingerprint: 'f4' } }),
        (e: unknown) => e instanceof VersionConflictError,
      );
      assert.equal(await store.findMessage('', '', 'm-4'), undefined);
      // Tenants do not share message ids.
      await store.create('other', makeTask('idem-other'), { claim });
      assert.equal((await store.findMessage('other', '', 'm-1'))?.taskId, 'idem-other');
      // Concurrent duplicates: exactly one write wins.
      const racing = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.create('', makeTask(`dup-${i}`), { claim: { messageId: 'm-race', fingerprint: 'same' } })),
      );
      assert.equal(racing.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of racing) if (r.status === 'rejected') assert.ok(r.reason instanceof DuplicateMessageError, String(r.reason));
      const winner = (await store.findMessage('', '', 'm-race'))?.taskId;
      const existing = await Promise.all(Array.from({ length: 8 }, async (_, i) => ((await store.get('', `dup-${i}`)) ? `dup-${i}` : undefined)));
      assert.deepEqual(existing.filter(Boolean), [winner]);
    });

    storeTest('messageFingerprint: key order does not matter, values do', async () => {
      const a = messageFingerprint({ role: 'ROLE_USER', parts: [{ text: 'x', metadata: { b: 1, a: 2 } }] });
      assert.equal(a, messageFingerprint({ parts: [{ metadata: { a: 2, b: 1 }, text: 'x' }], role: 'ROLE_USER' }));
      assert.notEqual(a, messageFingerprint({ role: 'ROLE_USER', parts: [{ text: 'y', metadata: { b: 1, a: 2 } }] }));
      assert.notEqual(messageFingerprint({ parts: [{ text: 'x' }, { text: 'y' }] }), messageFingerprint({ parts: [{ text: 'y' }, { text: 'x' }] }));
    });

    storeTest('reopened storage: data persists and compare-and-set holds across handles', async ({ store, reopen }, t) => {
      if (!reopen) {
        t.skip(`${name} has no second handle on the same data`);
        return;
      }
      const task = makeTask('shared');
      await store.create('', task);
      await store.append({ tenant: '', taskId: 'shared', expectedVersion: 1, task: withStatus(task, 'TASK_STATE_WORKING', 3), events: [statusEvent(task, 'TASK_STATE_WORKING', 3)] });
      const other = await reopen();
      try {
        assert.deepEqual(await other.get('', 'shared'), await store.get('', 'shared'));
        assert.deepEqual(await other.events('', 'shared', 0), await store.events('', 'shared', 0));
        await assert.rejects(other.create('', task), (e: unknown) => e instanceof VersionConflictError);
        await other.append({ tenant: '', taskId: 'shared', expectedVersion: 2, task, events: [] });
        await assert.rejects(
          store.append({ tenant: '', taskId: 'shared', expectedVersion: 2, task, events: [artifactEvent(task, 'lost?')] }),
          (e: unknown) => e instanceof VersionConflictError,
        );
        // Writers on both handles at once still produce one gapless log.
        await Promise.all([
          ...Array.from({ length: 6 }, (_, w) => appendWithRetry(store, { tenant: '', taskId: 'shared', events: [artifactEvent(task, `s${w}`)] })),
          ...Array.from({ length: 6 }, (_, w) => appendWithRetry(other, { tenant: '', taskId: 'shared', events: [artifactEvent(task, `o${w}`)] })),
        ]);
        assert.deepEqual(
          seqs(await other.events('', 'shared', 0)),
          Array.from({ length: 14 }, (_, k) => k + 1),
        );
        assert.equal((await store.get('', 'shared'))?.version, 15);
      } finally {
        await other.close?.();
      }
    });

    storeTest('retention: purgeTerminal deletes old terminal tasks with their events and message ids; others stay', async ({ store }) => {
      await purgeScenario(purgeable(store));
    });
  });

  runPushContract(name, makeStore, options);
  runLeaseContract(name, makeStore, options);
  runOwnerContract(name, makeStore, options);
  runContextContract(name, makeStore, options);
  runChunkContract(name, makeStore, options);
  runListSizeContract(name, makeStore, options);
}

/**
 * Retention: old terminal tasks go with their events and message ids; others stay. `countEvents`
 * counts every event the store holds (default: those of the tasks it lists).
 */
export async function purgeScenario(store: PurgeableStore, countEvents = () => listedEvents(store, ['', 't2'])): Promise<void> {
  await store.create('', makeTask('old-done', { state: 'TASK_STATE_COMPLETED', at: 1 }), { claim: { messageId: 'old-m', fingerprint: 'f' } });
  await store.create('t2', makeTask('old-failed', { state: 'TASK_STATE_FAILED', at: 2 }));
  await store.create('', makeTask('old-working', { state: 'TASK_STATE_WORKING', at: 1 }));
  await store.create('', makeTask('old-input', { state: 'TASK_STATE_INPUT_REQUIRED', at: 1 }));
  await store.create('', makeTask('new-done', { state: 'TASK_STATE_COMPLETED', at: 100 }));
  for (let i = 0; i < 7; i++) await store.create('', makeTask(`bulk${i}`, { state: 'TASK_STATE_CANCELED', at: 3 }));
  assert.equal(await store.purgeTerminal({ before: ts(50), batchSize: 3 }), 9);
  assert.equal(await store.get('', 'old-done'), undefined);
  assert.equal(await store.get('t2', 'old-failed'), undefined);
  assert.deepEqual(await store.events('', 'old-done', 0), []);
  assert.equal(await store.findMessage('', '', 'old-m'), undefined);
  assert.ok(await store.get('', 'old-working'));
  assert.ok(await store.get('', 'old-input'));
  assert.ok(await store.get('', 'new-done'));
  assert.equal(await countEvents(), 3);
  assert.equal(await store.purgeTerminal({ before: new Date(Date.parse(ts(50))) }), 0);
}

export type PurgeableStore = TaskStore & { purgeTerminal(options: { before: string | Date; batchSize?: number }): Promise<number> };

/** The store's retention purge: every store of the contract has one (memory, SQLite, PostgreSQL). */
export function purgeable(store: TaskStore): PurgeableStore {
  assert.equal(typeof (store as Partial<PurgeableStore>).purgeTerminal, 'function', 'the store has a retention purge (purgeTerminal)');
  return store as PurgeableStore;
}

async function listedEvents(store: TaskStore, tenants: string[]): Promise<number> {
  let n = 0;
  for (const tenant of tenants) {
    for (const r of (await store.list({ tenant, pageSize: 1000 })).records) n += (await store.events(tenant, r.task.id, 0)).length;
  }
  return n;
}
