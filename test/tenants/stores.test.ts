/**
 * TENANT-06 on the durable stores: two tenants of one TenantRouter create a task with the same id
 * (and reuse the same message id) on one SQLite file / PostgreSQL schema; each tenant sees only
 * its own task, task list and push configs. PostgreSQL is skipped without a server (pgSetup.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPushRuntime } from '../../src/push/pushOptions.js';
import type { CallContext } from '../../src/server/requestHandler.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import { createTenantRouter } from '../../src/server/tenantRouter.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { pgTestDatabase } from '../stores/pgSetup.js';
import type { Task, TaskPushNotificationConfig } from '../../src/protocol/types.js';
import { namedAgent } from './support.js';

const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };

async function sameIdsInTwoTenants(store: TaskStore): Promise<void> {
  let n = 0;
  const router = createTenantRouter({
    tenants: { acme: namedAgent('Acme agent', 'anvils'), globex: namedAgent('Globex agent', 'domination') },
    store,
    // Both tenants' runs draw the same id sequence: the same task, context and config ids.
    newId: () => `id-${++n}`,
    push: { runtime: createPushRuntime, allowPrivateWebhooks: true, deliver: false },
  });
  try {
    const tasks: Record<string, Task> = {};
    for (const tenant of ['acme', 'globex']) {
      n = 0;
      const res = await router.unary('sendMessage', { tenant, message: { messageId: 'same-message', role: 'ROLE_USER', parts: [{ text: tenant }] } }, ctx);
      assert.ok('task' in res);
      tasks[tenant] = res.task;
    }
    const acme = tasks.acme as Task;
    const globex = tasks.globex as Task;
    assert.equal(acme.id, globex.id, 'the same task id in both tenants');
    for (const [tenant, agent] of [
      ['acme', 'Acme agent'],
      ['globex', 'Globex agent'],
    ] as const) {
      const task = await router.unary('getTask', { tenant, id: acme.id }, ctx);
      const text = (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => ('text' in p ? p.text : ''))).join('');
      assert.equal(text, `${agent}|${tenant}|${tenant}`);
      const listed = await router.unary('listTasks', { tenant }, ctx);
      assert.deepEqual(
        listed.tasks.map((t) => t.id),
        [acme.id],
      );
      assert.equal(listed.totalSize, 1);
    }
    // Push configs: same task id, same config id, different URLs per tenant.
    const configs: Record<string, TaskPushNotificationConfig> = {};
    for (const tenant of ['acme', 'globex']) {
      configs[tenant] = await router.unary('createTaskPushNotificationConfig', { tenant, taskId: acme.id, id: 'hook', url: `http://127.0.0.1:9/${tenant}` }, ctx);
    }
    for (const tenant of ['acme', 'globex']) {
      const got = await router.unary('getTaskPushNotificationConfig', { tenant, taskId: acme.id, id: 'hook' }, ctx);
      assert.equal(got.url, `http://127.0.0.1:9/${tenant}`);
      const list = await router.unary('listTaskPushNotificationConfigs', { tenant, taskId: acme.id }, ctx);
      assert.deepEqual(
        (list.configs ?? []).map((c) => c.url),
        [`http://127.0.0.1:9/${tenant}`],
      );
    }
    await router.unary('deleteTaskPushNotificationConfig', { tenant: 'acme', taskId: acme.id, id: 'hook' }, ctx);
    assert.deepEqual((await router.unary('listTaskPushNotificationConfigs', { tenant: 'acme', taskId: acme.id }, ctx)).configs ?? [], []);
    assert.equal((await router.unary('listTaskPushNotificationConfigs', { tenant: 'globex', taskId: acme.id }, ctx)).configs?.length, 1);
    // A tenant the router does not host cannot reach either.
    await assert.rejects(router.unary('getTask', { tenant: 'initech', id: acme.id }, ctx), /tenant/);
  } finally {
    await router.drain(1_000);
  }
}

describe('tenant isolation on SQLite', () => {
  test('same task id, message id and push config id in two tenants of one file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-tenants-'));
    const store = new SqliteTaskStore({ path: join(dir, 'tasks.db') });
    try {
      await sameIdsInTwoTenants(store);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const db = await pgTestDatabase();
const skip = typeof db === 'string' ? db : undefined;
if (typeof db !== 'string') after(() => db.dispose());

describe('tenant isolation on PostgreSQL', skip ? { skip } : {}, () => {
  test('same task id, message id and push config id in two tenants of one schema', async () => {
    if (typeof db === 'string') return;
    const store = await PostgresTaskStore.open({ connectionString: db.url, schema: db.schema(), poolConfig: { max: 4 } });
    try {
      await sameIdsInTwoTenants(store);
    } finally {
      await store.close();
    }
  });
});
