/**
 * Schema upgrades, shared by the SQL store tests: what an older schema held (seeded by these
 * functions through the test's own connection) and what the upgraded store must still have and
 * newly do.
 */
import assert from 'node:assert/strict';
import type { Task } from '../../src/protocol/types.js';
import type { LeaseStore } from '../../src/server/stores/leaseStore.js';
import type { PushStore } from '../../src/server/stores/pushStore.js';
import type { TaskRecord, TaskStore } from '../../src/server/stores/taskStore.js';
import { applyEvent } from '../../src/protocol/applyEvent.js';
import { chunkEvent } from './chunkContract.js';

/**
 * Runs one statement on the old schema: `{s}.` prefixes table names (the schema in PostgreSQL,
 * nothing in SQLite) and `$1`, `$2`, … are the parameters.
 */
export type SeedSql = (sql: string, params: unknown[]) => Promise<unknown>;

type UpgradedStore = TaskStore & PushStore & LeaseStore & { purgeTerminal(o: { before: Date }): Promise<number> };

const CREATED = '2025-01-01T00:00:00.000Z';

/** A task row of the old schema; `owner` (schema v4 on) and `created` (default CREATED) when given. */
async function seedTask(exec: SeedSql, row: { tenant: string; task: Task; owner?: string; created?: string }): Promise<void> {
  const { tenant, task } = row;
  const owned = row.owner === undefined ? { column: '', value: '' } : { column: ', owner', value: ', $8' };
  await exec(
    `INSERT INTO {s}.tasks (tenant, id, context_id, state, status_ts, version, seq, task_json, created_at, updated_at${owned.column})
     VALUES ($1, $2, $3, $4, $5, 1, 1, $6, $7, $7${owned.value})`,
    [tenant, task.id, task.contextId ?? null, task.status.state, task.status.timestamp, JSON.stringify(task), row.created ?? CREATED, ...(row.owner === undefined ? [] : [row.owner])],
  );
  await exec(`INSERT INTO {s}.events (tenant, task_id, seq, event_json) VALUES ($1, $2, 1, $3)`, [tenant, task.id, JSON.stringify({ task })]);
}

/** Schema v2 data: task `old` (tenant '') with its first event and push config `c`. */
export async function seedV2(exec: SeedSql, old: Task): Promise<void> {
  await seedTask(exec, { tenant: '', task: old });
  await exec(`INSERT INTO {s}.push_configs (tenant, task_id, id, config_json) VALUES ('', $1, 'c', $2)`, [
    old.id,
    JSON.stringify({ id: 'c', taskId: old.id, url: 'https://hooks.example/' }),
  ]);
}

/** Schema v3 data: the v2 data, the message id `old-m` recorded with `old`, and task `other` in tenant `t`. */
export async function seedV3(exec: SeedSql, old: Task): Promise<void> {
  await seedV2(exec, old);
  await exec(`INSERT INTO {s}.messages (tenant, message_id, task_id, fingerprint) VALUES ('', 'old-m', $1, 'f-old')`, [old.id]);
  await seedTask(exec, { tenant: 't', task: { ...old, id: 'other' } });
}

export async function assertUpgradedFromV2(store: UpgradedStore, old: Task): Promise<void> {
  assert.deepEqual((await store.get('', 'old'))?.task, old);
  assert.equal((await store.get('', 'old'))?.owner, '');
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

/** Issue 8 (schema v4): every earlier task, and its message ids, belongs to the anonymous owner ''. */
export async function assertUpgradedFromV3(store: UpgradedStore, old: Task): Promise<void> {
  assert.deepEqual(await store.get('', 'old'), { tenant: '', owner: '', task: old, version: 1, seq: 1 });
  assert.equal((await store.get('t', 'other'))?.owner, '');
  assert.deepEqual(await store.findMessage('', '', 'old-m'), { messageId: 'old-m', taskId: 'old', fingerprint: 'f-old', owner: '' });
  assert.equal((await store.getPushConfig('', 'old', 'c'))?.url, 'https://hooks.example/');
  const listed = async (query: { tenant: string; owner?: string }) => (await store.list({ ...query, pageSize: 10 })).records.map((r) => `${r.task.id}@${r.owner}`);
  assert.deepEqual(await listed({ tenant: '', owner: '' }), ['old@']);
  assert.deepEqual(await listed({ tenant: '', owner: 'alice' }), []);
  assert.deepEqual(await listed({ tenant: 't', owner: '' }), ['other@']);
  // Old tasks keep '' through appends; new tasks take their creator.
  const appended = await store.append({ tenant: '', taskId: 'old', expectedVersion: 1, task: old, events: [], claim: { messageId: 'old-m2', fingerprint: 'f2' } });
  assert.equal(appended.record.owner, '');
  assert.equal((await store.findMessage('', '', 'old-m2'))?.owner, '');
  await store.create('', { ...old, id: 'new', status: { ...old.status, timestamp: '2030-01-01T00:00:00.000Z' } }, { owner: 'alice', claim: { messageId: 'new-m', fingerprint: 'f3' } });
  assert.deepEqual(await listed({ tenant: '', owner: 'alice' }), ['new@alice']);
  assert.deepEqual(await listed({ tenant: '' }), ['new@alice', 'old@']);
  assert.equal((await store.findMessage('', 'alice', 'new-m'))?.owner, 'alice');
  // The old message id is the anonymous owner's (IDEM-02): reused by the anonymous owner it still
  // names its task; Alice's "old-m" is an id of her own.
  await assert.rejects(store.create('', { ...old, id: 'reuse' }, { claim: { messageId: 'old-m', fingerprint: 'x' } }), (e: unknown) => {
    assert.deepEqual((e as { existing?: unknown }).existing, { messageId: 'old-m', taskId: 'old', fingerprint: 'f-old', owner: '' });
    return true;
  });
  await store.create('', { ...old, id: 'reuse' }, { owner: 'alice', claim: { messageId: 'old-m', fingerprint: 'x' } });
  assert.equal((await store.findMessage('', 'alice', 'old-m'))?.taskId, 'reuse');
}

const V5_DONE_AT = '2025-01-01T00:00:01.000Z';

/**
 * Schema v5 data: context `shared` with tasks of two owners (Alice's first, done; Bob's later,
 * working), and context `solo` with one done task of Carol's.
 */
export async function seedV5(exec: SeedSql): Promise<void> {
  const task = (id: string, contextId: string, state: Task['status']['state']): Task => ({ id, contextId, status: { state, timestamp: V5_DONE_AT } });
  await seedTask(exec, { tenant: '', task: task('a-old', 'shared', 'TASK_STATE_COMPLETED'), owner: 'alice', created: '2025-01-01T00:00:00.000Z' });
  await seedTask(exec, { tenant: '', task: task('b-new', 'shared', 'TASK_STATE_WORKING'), owner: 'bob', created: '2025-01-02T00:00:00.000Z' });
  await seedTask(exec, { tenant: '', task: task('c-done', 'solo', 'TASK_STATE_COMPLETED'), owner: 'carol' });
}

/**
 * TENANT-06 (schema v6): the contexts of v5 tasks keep their owners — the oldest task's, for a
 * context of two — before and after retention purges those tasks; a new context id is claimed.
 */
export async function assertUpgradedFromV5(store: UpgradedStore): Promise<void> {
  assert.equal(await store.claimContext('', 'shared', 'mallory'), 'alice');
  assert.equal(await store.claimContext('', 'new', 'dave'), 'dave');
  // `solo` is first looked at after its only task is purged: retention recorded it.
  assert.equal(await store.purgeTerminal({ before: new Date('2025-06-01') }), 2);
  assert.equal(await store.get('', 'c-done'), undefined);
  assert.equal(await store.claimContext('', 'solo', 'mallory'), 'carol');
  assert.equal(await store.claimContext('', 'shared', 'mallory'), 'alice');
  assert.equal((await store.get('', 'b-new'))?.owner, 'bob');
}

const V6_DONE_AT = '2025-01-01T00:00:01.000Z';

/**
 * Schema v6 data: message ids recorded with tasks of Alice (done), Bob (working) and the
 * anonymous owner, one in tenant `t`, and one whose task is gone (`m-orphan`).
 */
export async function seedV6(exec: SeedSql): Promise<void> {
  const task = (id: string, state: Task['status']['state']): Task => ({ id, contextId: `c-${id}`, status: { state, timestamp: V6_DONE_AT } });
  await seedTask(exec, { tenant: '', task: task('a-done', 'TASK_STATE_COMPLETED'), owner: 'alice' });
  await seedTask(exec, { tenant: '', task: task('b-work', 'TASK_STATE_WORKING'), owner: 'bob' });
  await seedTask(exec, { tenant: '', task: task('anon', 'TASK_STATE_WORKING'), owner: '' });
  await seedTask(exec, { tenant: 't', task: task('a-t', 'TASK_STATE_WORKING'), owner: 'alice' });
  const message = (row: readonly [tenant: string, messageId: string, taskId: string]) =>
    exec(`INSERT INTO {s}.messages (tenant, message_id, task_id, fingerprint) VALUES ($1, $2, $3, $4)`, [...row, `f-${row[1]}`]);
  for (const row of [
    ['', 'm-alice', 'a-done'],
    ['', 'm-alice-2', 'a-done'],
    ['', 'm-bob', 'b-work'],
    ['', 'm-anon', 'anon'],
    ['t', 'm-t', 'a-t'],
    ['', 'm-orphan', 'gone'],
  ] as const) {
    await message(row);
  }
}

/**
 * IDEM-02 / ERR-04 (schema v7): each recorded message id became its task's owner's — found by
 * that owner, retried as before, unused for everyone else — and retention still deletes them.
 */
export async function assertUpgradedFromV6(store: UpgradedStore): Promise<void> {
  const found = async (tenant: string, owner: string, messageId: string) => (await store.findMessage(tenant, owner, messageId))?.taskId;
  assert.deepEqual(await store.findMessage('', 'alice', 'm-alice'), { messageId: 'm-alice', taskId: 'a-done', fingerprint: 'f-m-alice', owner: 'alice' });
  assert.equal(await found('', 'bob', 'm-bob'), 'b-work');
  assert.equal(await found('', '', 'm-anon'), 'anon');
  assert.equal(await found('t', 'alice', 'm-t'), 'a-t');
  assert.equal(await found('', '', 'm-orphan'), 'gone', 'a row without its task stays as findMessage reported it: anonymous');
  for (const [owner, messageId] of [['bob', 'm-alice'], ['', 'm-alice'], ['alice', 'm-bob'], ['alice', 'm-anon'], ['alice', 'm-orphan'], ['bob', 'm-t']]) {
    assert.equal(await found('', owner as string, messageId as string), undefined, `${messageId} is not ${owner || 'anonymous'}'s`);
  }
  // The owner's retry is still a duplicate; another owner's same id is claimed as a new one.
  const bobTask = await store.get('', 'b-work');
  assert.ok(bobTask);
  await assert.rejects(store.append({ tenant: '', taskId: 'b-work', expectedVersion: bobTask.version, task: bobTask.task, events: [], claim: { messageId: 'm-bob', fingerprint: 'x' } }), (e: unknown) => {
    assert.deepEqual((e as { existing?: unknown }).existing, { messageId: 'm-bob', taskId: 'b-work', fingerprint: 'f-m-bob', owner: 'bob' });
    return true;
  });
  await store.append({ tenant: '', taskId: 'b-work', expectedVersion: bobTask.version, task: bobTask.task, events: [], claim: { messageId: 'm-alice', fingerprint: 'fb' } });
  assert.equal(await found('', 'bob', 'm-alice'), 'b-work');
  assert.equal(await found('', 'alice', 'm-alice'), 'a-done');
  // Retention deletes the message ids of the tasks it purges, and only theirs.
  assert.equal(await store.purgeTerminal({ before: new Date('2025-06-01') }), 1);
  assert.equal(await found('', 'alice', 'm-alice'), undefined);
  assert.equal(await found('', 'alice', 'm-alice-2'), undefined);
  assert.equal(await found('', 'bob', 'm-alice'), 'b-work');
  assert.equal(await found('', 'bob', 'm-bob'), 'b-work');
  // Alice may use her purged ids again.
  await store.create('', { id: 'a-new', contextId: 'c-new', status: { state: 'TASK_STATE_WORKING', timestamp: '2030-01-01T00:00:00.000Z' } }, { owner: 'alice', claim: { messageId: 'm-alice', fingerprint: 'f' } });
  assert.equal(await found('', 'alice', 'm-alice'), 'a-new');
}

/**
 * Schema v7 data: the v5 tasks (seedV5: the task rows have not changed since), and the message
 * id `m-bob` recorded for Bob with his working task `b-new` (IDEM-02: per owner).
 */
export async function seedV7(exec: SeedSql): Promise<void> {
  await seedV5(exec);
  await exec(`INSERT INTO {s}.messages (tenant, owner, message_id, task_id, fingerprint) VALUES ('', 'bob', 'm-bob', 'b-new', 'f-m-bob')`, []);
}

/**
 * STREAM-10 (schema v8, snapshot lag): a v7 task reads back unchanged, and chunks appended after
 * the upgrade read back whole; its owner's message ids work as before over the lagging snapshot
 * (a claiming append is never a chunk write: it writes the snapshot, caught up).
 */
export async function assertUpgradedFromV7(store: UpgradedStore): Promise<void> {
  const before = await store.get('', 'b-new');
  assert.equal(before?.seq, 1);
  let record = before as TaskRecord;
  for (let i = 0; i < 50; i++) {
    const events = [chunkEvent(record.task, 'a', `chunk ${i}`)];
    record = (await store.append({ tenant: '', taskId: 'b-new', expectedVersion: record.version, task: events.reduce(applyEvent, record.task), events })).record;
  }
  assert.deepEqual(await store.get('', 'b-new'), record);
  assert.deepEqual((await store.list({ tenant: '', owner: 'bob', pageSize: 5 })).records, [record]);
  assert.equal(record.task.artifacts?.[0]?.parts.length, 50);
  assert.equal(record.seq, 51);
  // Bob's recorded id is still his duplicate (nothing written); a new one is claimed with a chunk.
  const chunk = (text: string) => [chunkEvent(record.task, 'a', text)];
  const retried = chunk('retried');
  await assert.rejects(
    store.append({ tenant: '', taskId: 'b-new', expectedVersion: record.version, task: retried.reduce(applyEvent, record.task), events: retried, claim: { messageId: 'm-bob', fingerprint: 'x' } }),
    (e: unknown) => {
      assert.deepEqual((e as { existing?: unknown }).existing, { messageId: 'm-bob', taskId: 'b-new', fingerprint: 'f-m-bob', owner: 'bob' });
      return true;
    },
  );
  assert.deepEqual(await store.get('', 'b-new'), record, 'the refused claim wrote nothing');
  const claimed = chunk('claimed');
  record = (
    await store.append({ tenant: '', taskId: 'b-new', expectedVersion: record.version, task: claimed.reduce(applyEvent, record.task), events: claimed, claim: { messageId: 'm-bob-2', fingerprint: 'f2' } })
  ).record;
  assert.deepEqual(await store.get('', 'b-new'), record);
  assert.equal(record.task.artifacts?.[0]?.parts.length, 51);
  assert.equal((await store.findMessage('', 'bob', 'm-bob-2'))?.taskId, 'b-new');
  assert.equal(await store.findMessage('', 'alice', 'm-bob'), undefined);
}
