/**
 * R19: SQLite locked by another process past busy_timeout is UNAVAILABLE, not INTERNAL, for the
 * writes in the group commit (task writes) and those outside it (push configs and the outbox,
 * leases). The lock is real: a second connection on the same file holds BEGIN IMMEDIATE.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteTaskStore } from '../../src/stores/sqlite/index.js';
import { StoreUnavailableError } from '../../src/protocol/errors.js';
import { ok, send } from '../support/assertions.js';
import { BINDINGS } from '../support/bindings.js';
import { startServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-busy-'));
const closers: Array<() => unknown> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

function lockedStore(): { store: SqliteTaskStore; lock: () => void; unlock: () => void } {
  const path = join(dir, `${crypto.randomUUID()}.db`);
  const store = new SqliteTaskStore({ path, busyTimeoutMs: 50 });
  const other = new Database(path);
  closers.push(() => store.close(), () => other.close());
  return { store, lock: () => other.exec('BEGIN IMMEDIATE'), unlock: () => other.exec('COMMIT') };
}

const task = (id: string) => ({ id, contextId: `ctx-${id}`, status: { state: 'TASK_STATE_WORKING' as const } });
const config = { id: 'c1', taskId: 't1', url: 'https://hooks.example/a' };

test('R19: a task write while another process holds the write lock fails with StoreUnavailableError, and succeeds once it is released', async () => {
  const { store, lock, unlock } = lockedStore();
  lock();
  await assert.rejects(store.create('', task('t1')), StoreUnavailableError);
  unlock();
  assert.equal((await store.create('', task('t1'))).record.version, 1);
});

test('R19: push config writes, delivery claims and leases while locked fail with StoreUnavailableError', async () => {
  const { store, lock, unlock } = lockedStore();
  await store.create('', task('t1'));
  lock();
  await assert.rejects(store.putPushConfig('', config), StoreUnavailableError);
  await assert.rejects(store.putPushConfig('', config, { maxPerTask: 10 }), StoreUnavailableError);
  await assert.rejects(store.deletePushConfig('', 't1', 'c1'), StoreUnavailableError);
  await assert.rejects(store.claimDeliveries({ now: new Date(), limit: 10, lockMs: 1000 }), StoreUnavailableError);
  await assert.rejects(store.acquireLease({ tenant: '', taskId: 't1', owner: 'me', ttlMs: 1000 }), StoreUnavailableError);
  unlock();
  await store.putPushConfig('', config, { maxPerTask: 10 });
  assert.equal(await store.deletePushConfig('', 't1', 'c1'), true);
});

for (const binding of BINDINGS) {
  test(`R19 ${binding.name}: CreateTaskPushNotificationConfig while SQLite is locked answers UNAVAILABLE, then works`, async () => {
    const { store, lock, unlock } = lockedStore();
    const server = await startServer({ handler: { store, push: { allowPrivateWebhooks: true, deliver: false } } });
    closers.push(() => server.close());
    const b = binding.create(server);
    const taskId = ok(await b.call('sendMessage', send('hi'))).task.id as string;
    const create = () => b.call('createTaskPushNotificationConfig', { taskId, id: 'c1', url: 'https://hooks.example/a' });
    lock();
    const refused = await create();
    unlock();
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.error.reason, 'UNAVAILABLE');
    assert.equal((await create()).ok, true);
  });
}
