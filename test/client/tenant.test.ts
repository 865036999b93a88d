/**
 * TENANT-02/04: the chosen interface's tenant goes into every request — as `params.tenant`
 * over JSON-RPC and as the `/{tenant}/` path prefix over REST — and tasks stay per tenant.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskNotFoundError, createClient, type A2AClient, type AgentCard, type Task } from '../../src/client/index.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, record, type Seen } from './helpers.js';

function withTenant(card: AgentCard, tenant: string | undefined): AgentCard {
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => (tenant === undefined ? { ...i } : { ...i, tenant })),
  };
}

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result);
  return result.task;
}

for (const binding of BINDINGS) {
  describe(`tenant over ${binding}`, () => {
    let server: TestServer;
    let seen: Seen[];
    let acme: A2AClient;
    let globex: A2AClient;
    let none: A2AClient;

    before(async () => {
      server = await startServer();
      seen = record(server);
      acme = await createClient(withTenant(server.card, 'acme'), { bindings: [binding] });
      globex = await createClient(withTenant(server.card, 'globex'), { bindings: [binding] });
      none = await createClient(withTenant(server.card, undefined), { bindings: [binding] });
    });
    after(() => server.close());

    test('every operation of a tenant client carries the tenant', async () => {
      const from = seen.length;
      const task = taskOf(await acme.sendText('hi'));
      await acme.getTask({ id: task.id });
      await acme.listTasks();
      await collect(acme.streamText('stream t'));
      const slow = taskOf(await acme.sendText('slow s', { configuration: { returnImmediately: true } }));
      const sub = acme.subscribeToTask({ id: slow.id });
      await sub.next();
      await sub.return(undefined);
      await acme.cancelTask({ id: slow.id });
      await acme.listTaskPushNotificationConfigs({ taskId: task.id }).catch(() => undefined);
      await acme.getExtendedAgentCard().catch(() => undefined);
      const calls = seen.slice(from);
      assert.equal(calls.length, 9);
      for (const call of calls) {
        if (binding === 'JSONRPC') {
          assert.equal(call.path, '/a2a/jsonrpc');
          assert.equal((JSON.parse(call.body) as { params: { tenant?: string } }).params.tenant, 'acme', call.body);
        } else {
          assert.match(call.path, /^\/a2a\/rest\/acme\//, call.path);
          if (call.body) assert.equal((JSON.parse(call.body) as { tenant?: string }).tenant, undefined, 'tenant only in the path');
        }
      }
      if (binding === 'HTTP+JSON') {
        assert.deepEqual(
          calls.map((c) => `${c.method} ${c.path.replace(task.id, '{id}').replace(slow.id, '{id}')}`),
          [
            'POST /a2a/rest/acme/message:send',
            'GET /a2a/rest/acme/tasks/{id}',
            'GET /a2a/rest/acme/tasks',
            'POST /a2a/rest/acme/message:stream',
            'POST /a2a/rest/acme/message:send',
            'POST /a2a/rest/acme/tasks/{id}:subscribe',
            'POST /a2a/rest/acme/tasks/{id}:cancel',
            'GET /a2a/rest/acme/tasks/{id}/pushNotificationConfigs',
            'GET /a2a/rest/acme/extendedAgentCard',
          ],
        );
      }
    });

    test('a client without a tenant sends none (TENANT-02)', async () => {
      const from = seen.length;
      await none.listTasks();
      const call = seen[from] as Seen;
      if (binding === 'JSONRPC') assert.equal('tenant' in (JSON.parse(call.body) as { params: object }).params, false);
      else assert.equal(call.path, '/a2a/rest/tasks');
    });

    test('tasks are isolated per tenant', async () => {
      const mine = taskOf(await acme.sendText('hi acme'));
      const theirs = taskOf(await globex.sendText('hi globex'));
      assert.equal((await acme.getTask({ id: mine.id })).id, mine.id);
      await assert.rejects(globex.getTask({ id: mine.id }), TaskNotFoundError);
      await assert.rejects(none.getTask({ id: mine.id }), TaskNotFoundError);
      await assert.rejects(acme.getTask({ id: theirs.id }), TaskNotFoundError);
      await assert.rejects(globex.sendText('follow-up', { taskId: mine.id }), TaskNotFoundError);
      const acmeIds = (await acme.listTasks({ pageSize: 100 })).tasks.map((t) => t.id);
      const globexIds = (await globex.listTasks({ pageSize: 100 })).tasks.map((t) => t.id);
      assert.ok(acmeIds.includes(mine.id) && !acmeIds.includes(theirs.id));
      assert.ok(globexIds.includes(theirs.id) && !globexIds.includes(mine.id));
    });

    test('a tenant needing percent-encoding survives the REST path', async () => {
      const odd = await createClient(withTenant(server.card, 'a b/c'), { bindings: [binding] });
      const task = taskOf(await odd.sendText('hi'));
      assert.equal((await odd.getTask({ id: task.id })).id, task.id);
      await assert.rejects(acme.getTask({ id: task.id }), TaskNotFoundError);
    });
  });
}
