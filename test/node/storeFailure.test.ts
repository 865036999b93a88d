/**
 * A run whose outcome cannot be stored answers its caller with an InternalError, never with a
 * stale or missing task (a blocking SendMessage once answered 200 SUBMITTED from a full disk).
 * The real SQLite store gets triggers that refuse every write to its tasks and events while the
 * run goes on (SQLITE_CONSTRAINT_TRIGGER): a failure that waiting does not mend. A full disk
 * (SQLITE_FULL) or a read-only file is the store out of reach instead, whose writes are retried
 * and whose caller gets UNAVAILABLE (test/stores/sqliteFull.test.ts).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteTaskStore } from '../../src/stores/sqlite/index.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Task } from '../../src/protocol/types.js';
import { rpc, startServer, userMessage, type TestServer } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-store-failure-'));
const servers: TestServer[] = [];
const stores: SqliteTaskStore[] = [];
after(async () => {
  for (const s of servers) await s.close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serverWith(executor: (store: SqliteTaskStore) => AgentExecutor): Promise<{ s: TestServer; store: SqliteTaskStore; errors: unknown[] }> {
  const store = new SqliteTaskStore({ path: join(dir, `${crypto.randomUUID()}.db`) });
  stores.push(store);
  const errors: unknown[] = [];
  const s = await startServer(executor(store), { store, onError: (e) => errors.push(e) });
  servers.push(s);
  return { s, store, errors };
}

const WRITES = ['INSERT ON tasks', 'UPDATE ON tasks', 'INSERT ON events'];

/** Every write to the store's tasks and events fails from now on, until allowWrites. */
function refuseWrites(store: SqliteTaskStore): void {
  for (const [i, on] of WRITES.entries()) store.db.exec(`CREATE TRIGGER refuse_${i} BEFORE ${on} BEGIN SELECT RAISE(ABORT, 'writes refused'); END`);
}

function allowWrites(store: SqliteTaskStore): void {
  for (const i of WRITES.keys()) store.db.exec(`DROP TRIGGER refuse_${i}`);
}

test('the task was stored SUBMITTED, then every write fails: a blocking SendMessage gets an InternalError, not the stale SUBMITTED task', async () => {
  const { s, store, errors } = await serverWith((db) => ({
    async execute(_ctx, task) {
      await task.submit();
      refuseWrites(db); // the store refuses every write from now on
      await task.complete('done');
    },
  }));
  const res = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('work') });
  assert.equal(res.result, undefined, `no result: ${JSON.stringify(res.result)}`);
  assert.equal(res.error?.code, -32603, JSON.stringify(res));
  assert.equal(res.error?.message, 'The server could not store the outcome of this task');
  assert.ok(errors.length >= 2, 'the agent\'s failed write and the failed FAILED write went to onError');
  allowWrites(store);
  const stored = await store.list({ tenant: '', pageSize: 10 });
  assert.equal(stored.records[0]?.task.status.state, 'TASK_STATE_SUBMITTED', 'the store really holds the stale task');
});

test('no write succeeds at all: SendMessage gets an InternalError (it used to fail with a TypeError on the missing task)', async () => {
  const { s, errors } = await serverWith((db) => ({
    async execute(_ctx, task) {
      refuseWrites(db);
      await task.startWork();
    },
  }));
  for (const configuration of [{}, { returnImmediately: true }]) {
    const res = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('work'), configuration });
    assert.equal(res.error?.code, -32603, JSON.stringify(res));
    assert.equal(res.error?.message, 'The server could not store the outcome of this task');
  }
  assert.equal(errors.some((e) => e instanceof TypeError), false, `no TypeError: ${String(errors.find((e) => e instanceof TypeError))}`);
});

test('an agent that swallows the failed write and returns: the run\'s own FAILED write fails too, and the caller gets an InternalError', async () => {
  const { s } = await serverWith((db) => ({
    async execute(_ctx, task) {
      refuseWrites(db);
      await task.startWork().catch(() => undefined);
    },
  }));
  const res = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('work') });
  assert.equal(res.error?.code, -32603, JSON.stringify(res));
  assert.equal(res.error?.message, 'The server could not store the outcome of this task');
  assert.equal((res.result as { task?: Task } | undefined)?.task, undefined);
});
