/**
 * Schema upgrades, shared by the SQL store tests: what an older schema held (seeded by these
 * functions through the test's own connection) and what the upgraded store must still have and
 * newly do.
 */
import assert from 'node:assert/strict';
import type { Task } from '../../src/protocol/types.js';
import type { LeaseStore } from '../../src/server/stores/leaseStore.js';
import type { PushStore } from '../../src/server/stores/pushStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';

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
  assert.deepEqual(await store.findMessage('', 'old-m'), { messageId: 'old-m', taskId: 'old', fingerprint: 'f-old', owner: '' });
  assert.equal((await store.getPushConfig('', 'old', 'c'))?.url, 'https://hooks.example/');
  const listed = async (query: { tenant: string; owner?: string }) => (await store.list({ ...query, pageSize: 10 })).records.map((r) => `${r.task.id}@${r.owner}`);
  assert.deepEqual(await listed({ tenant: '', owner: '' }), ['old@']);
  assert.deepEqual(await listed({ tenant: '', owner: 'alice' }), []);
  assert.deepEqual(await listed({ tenant: 't', owner: '' }), ['other@']);
  // Old tasks keep '' through appends; new tasks take their creator.
  const appended = await store.append({ tenant: '', taskId: 'old', expectedVersion: 1, task: old, events: [], claim: { messageId: 'old-m2', fingerprint: 'f2' } });
  assert.equal(appended.record.owner, '');
  assert.equal((await store.findMessage('', 'old-m2'))?.owner, '');
  await store.create('', { ...old, id: 'new', status: { ...old.status, timestamp: '2030-01-01T00:00:00.000Z' } }, { owner: 'alice', claim: { messageId: 'new-m', fingerprint: 'f3' } });
  assert.deepEqual(await listed({ tenant: '', owner: 'alice' }), ['new@alice']);
  assert.deepEqual(await listed({ tenant: '' }), ['new@alice', 'old@']);
  assert.equal((await store.findMessage('', 'new-m'))?.owner, 'alice');
  // The old message id, reused by someone else, still names its (anonymous) task.
  await assert.rejects(store.create('', { ...old, id: 'reuse' }, { owner: 'alice', claim: { messageId: 'old-m', fingerprint: 'x' } }), (e: unknown) => {
    assert.deepEqual((e as { existing?: unknown }).existing, { messageId: 'old-m', taskId: 'old', fingerprint: 'f-old', owner: '' });
    return true;
  });
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
