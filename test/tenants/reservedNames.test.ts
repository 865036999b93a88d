/**
 * TENANT-08 / OPS-01: a `tenant` the HTTP+JSON binding could never address (`tasks`,
 * `message:send`, … — literal first segments of its routes) is refused on every binding, also
 * on a single-agent server: JSON-RPC and gRPC would otherwise create a task REST can never
 * reach. The empty tenant and ordinary names keep working.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OperationName } from '../../src/protocol/types.js';
import { RESERVED_TENANT_NAMES } from '../../src/protocol/tenantNames.js';
import { expectError, ok, send } from '../support/assertions.js';
import { BINDINGS, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';

/** Every operation with a request that is valid apart from its tenant. */
const REQUESTS: [OperationName, object][] = [
  ['sendMessage', send('hi')],
  ['sendStreamingMessage', send('hi')],
  ['getTask', { id: 't-1' }],
  ['listTasks', {}],
  ['cancelTask', { id: 't-1' }],
  ['subscribeToTask', { id: 't-1' }],
  ['createTaskPushNotificationConfig', { taskId: 't-1', url: 'https://hooks.example/a2a' }],
  ['getTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
  ['listTaskPushNotificationConfigs', { taskId: 't-1' }],
  ['deleteTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
  ['getExtendedAgentCard', {}],
];

const STREAMING = new Set<OperationName>(['sendStreamingMessage', 'subscribeToTask']);

/** The call, with `tenant` as a request field on every binding (REST: body or query, not the path prefix). */
function call(b: TestBinding, op: OperationName, params: object) {
  return STREAMING.has(op) ? b.stream(op, params, { tenantAsField: true }) : b.call(op, params, { tenantAsField: true });
}

describe('TENANT-08 OPS-01: tenant names REST cannot address are refused on every binding (single-agent server)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }),
      extendedCard: { name: 'extended', description: 'more', version: '1', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] },
    });
  });
  after(() => server.close());

  for (const factory of BINDINGS) {
    test(`${factory.name}: every operation answers INVALID_PARAMS on \`tenant\` for every reserved name, and creates no task`, async () => {
      const b = factory.create(server);
      for (const tenant of [...RESERVED_TENANT_NAMES, '.', '..']) {
        const e = expectError(await call(b, 'sendMessage', { ...send('hi'), tenant }), 'INVALID_PARAMS', { field: 'tenant' });
        assert.match(e.message, /tenant/, tenant);
        expectError(await call(b, 'listTasks', { tenant }), 'INVALID_PARAMS', { field: 'tenant' });
      }
      for (const [op, params] of REQUESTS) {
        expectError(await call(b, op, { ...params, tenant: 'tasks' }), 'INVALID_PARAMS', { field: 'tenant' });
      }
      const store = server.handler.requestHandler?.store;
      assert.ok(store, 'the test server has a store');
      for (const tenant of RESERVED_TENANT_NAMES) assert.equal((await store.list({ tenant, pageSize: 100 })).totalSize, 0, tenant);
    });

    test(`${factory.name}: no tenant, an empty one and ordinary names still work, and REST reaches the task`, async () => {
      const b = factory.create(server);
      const rest = BINDINGS.find((f) => f.name === 'HTTP+JSON')?.create(server) as TestBinding;
      for (const tenant of [undefined, '', 'acme', 'Tasks', 'tasks2', 'a.b_c~d-e']) {
        const task = ok(await b.call('sendMessage', { ...send('hi'), ...(tenant !== undefined ? { tenant } : {}) }, { tenantAsField: true })).task;
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED', String(tenant));
        // REST addresses that tenant by its /{tenant} prefix (none for the empty one).
        const found = ok(await rest.call('getTask', { id: task.id, ...(tenant ? { tenant } : {}) }));
        assert.equal(found.id, task.id, String(tenant));
      }
    });
  }
});
