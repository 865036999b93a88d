/**
 * R19 on every store: U+0000 (and other control characters) in an identifier is the client's
 * mistake, answered with INVALID_PARAMS naming the field on every binding, never HTTP 500 /
 * -32603 — PostgreSQL cannot store NUL in text, memory and SQLite can, and all three must answer
 * alike. NUL inside text parts and metadata is content, stored and returned intact (it travels
 * as `\u0000` inside the task's JSON). PostgreSQL is skipped without a server (pgSetup.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { A2AError } from '../../src/protocol/errors.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { expectError, ok, send, uid } from '../support/assertions.js';
import { BINDINGS, type Json, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import { pgTestDatabase } from './pgSetup.js';

const db = await pgTestDatabase();
if (typeof db !== 'string') after(() => db.dispose());

interface StoreCase {
  name: string;
  skip?: string;
  open(): Promise<{ store: TaskStore; cleanup(): Promise<void> }>;
}

const STORES: StoreCase[] = [
  { name: 'memory', open: async () => ({ store: new MemoryTaskStore(), cleanup: async () => {} }) },
  {
    name: 'sqlite',
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'a2a-nul-'));
      const store = new SqliteTaskStore({ path: join(dir, 'tasks.db') });
      return { store, cleanup: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
    },
  },
  {
    name: 'postgres',
    ...(typeof db === 'string' ? { skip: db } : {}),
    async open() {
      if (typeof db === 'string') throw new Error(db);
      const store = await PostgresTaskStore.open({ connectionString: db.url, schema: db.schema(), poolConfig: { max: 4 } });
      return { store, cleanup: () => store.close() };
    },
  },
];

/** fetch with A2A-Version: 1.0, the JSON body parsed. */
async function http(url: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, { ...init, headers: { 'a2a-version': '1.0', 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  return { status: res.status, body: await res.json() };
}

for (const c of STORES) {
  describe(`R19 control characters in ids: ${c.name} store`, c.skip ? { skip: c.skip } : {}, () => {
    let server: TestServer;
    let store: TaskStore;
    let cleanup: () => Promise<void>;
    const bindings: TestBinding[] = [];
    before(async () => {
      ({ store, cleanup } = await c.open());
      server = await startServer({ handler: { store } });
      for (const f of BINDINGS) bindings.push(f.create(server));
    });
    after(async () => {
      await server?.close();
      await cleanup?.();
    });

    test('R19 REST GET /tasks/a%00b and ListTasks ?contextId=%00 → 400 INVALID_PARAMS naming the field', async () => {
      const get = await http(`${server.restUrl}/tasks/a%00b`);
      assert.equal(get.status, 400, JSON.stringify(get.body));
      assert.equal(get.body.error.status, 'INVALID_ARGUMENT');
      assert.deepEqual(get.body.error.details[1].fieldViolations, [{ field: 'id', description: 'must not contain U+0000 (NUL)' }]);
      const list = await http(`${server.restUrl}/tasks?contextId=%00`);
      assert.equal(list.status, 400, JSON.stringify(list.body));
      assert.equal(list.body.error.details[1].fieldViolations[0].field, 'contextId');
      const cancel = await http(`${server.restUrl}/tasks/x%01y:cancel`, { method: 'POST', body: '{}' });
      assert.equal(cancel.status, 400, JSON.stringify(cancel.body));
      assert.deepEqual(cancel.body.error.details[1].fieldViolations, [{ field: 'id', description: 'must not contain control characters' }]);
    });

    test('R19 JSON-RPC SendMessage with messageId "x\\u0000" → -32602 on message.messageId', async () => {
      const res = await http(server.jsonRpcUrl, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'x\u0000', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.error.code, -32602, JSON.stringify(res.body));
      assert.equal(res.body.error.data[1].fieldViolations[0].field, 'message.messageId');
    });

    test('R19 every binding refuses NUL in task, context, reference, push config and tenant ids', async () => {
      for (const b of bindings) {
        const cases: [Parameters<TestBinding['call']>[0], object, string][] = [
          ['getTask', { id: 'a\u0000b' }, 'id'],
          ['cancelTask', { id: '\u0000' }, 'id'],
          ['sendMessage', send('hi', { contextId: 'c\u0000' }), 'message.contextId'],
          ['sendMessage', send('hi', { taskId: 't\u0000' }), 'message.taskId'],
          ['sendMessage', send('hi', { referenceTaskIds: ['ok', 'r\u0000'] }), 'message.referenceTaskIds[1]'],
          ['listTasks', { contextId: '\u0000' }, 'contextId'],
          ['getTaskPushNotificationConfig', { taskId: 't', id: 'p\u0000' }, 'id'],
          ['deleteTaskPushNotificationConfig', { taskId: 't\u0000', id: 'p' }, 'taskId'],
          ['listTasks', { tenant: 'te\u0000nant' }, 'tenant'],
        ];
        for (const [op, params, field] of cases) {
          const error = expectError(await b.call(op, params), 'INVALID_PARAMS');
          assert.ok(
            error.fieldViolations.some((v) => v.field === field),
            `${b.name} ${op}: ${JSON.stringify(error.fieldViolations)}`,
          );
        }
      }
    });

    test('NUL in text parts and metadata is content: stored and returned intact', async () => {
      for (const b of bindings) {
        const text = `before\u0000after ${uid()}`;
        const metadata = { 'k\u0000ey': 'v\u0000alue', nested: { 'a\u0000': ['\u0000'] } };
        const task = ok(await b.call('sendMessage', send(text, { metadata }))).task;
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED', b.name);
        const got = ok(await b.call('getTask', { id: task.id }));
        assert.equal(got.history[0].parts[0].text, text, b.name);
        assert.deepEqual(got.history[0].metadata, metadata, b.name);
        const listed = ok(await b.call('listTasks', { contextId: task.contextId }));
        assert.equal(listed.tasks[0].history[0].parts[0].text, text, b.name);
      }
    });

    test('backstop: the store itself answers a NUL it cannot hold as invalid params, not a failure', async () => {
      // What the decoder refuses never reaches a store; a store called directly still must not
      // turn the caller's bad input into an internal error.
      const outcome = await store.get('', 'a\u0000b').then(
        (r) => r,
        (e: unknown) => e,
      );
      if (c.name === 'postgres') assert.ok(outcome instanceof Error, 'PostgreSQL cannot hold U+0000 in text');
      if (outcome instanceof Error) {
        assert.ok(A2AError.is(outcome), String(outcome));
        assert.equal(outcome.reason, 'INVALID_PARAMS');
      } else {
        assert.equal(outcome, undefined);
      }
    });
  });
}
