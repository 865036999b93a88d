/**
 * createClient over gRPC behaves as over JSON-RPC and HTTP+JSON where the failure is the same
 * one: a 401 renews the credential (UNAUTHENTICATED), a rate limit or an unavailable store is
 * retried after the time the server asked for (B13, R24: `responseInfo` says 429 / 503 and
 * Retry-After). Real grpc-js servers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { grpcTransport, type GrpcTransportFactory } from '../../src/bindings/grpc/client.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import { bearerToken } from '../../src/client/auth.js';
import { createClient, type ClientOptions } from '../../src/client/client.js';
import { responseInfo } from '../../src/client/errors.js';
import { serveAgent } from '../../src/node/serveAgent.js';
import { A2AError, StoreUnavailableError } from '../../src/protocol/errors.js';
import type { AgentCard } from '../../src/protocol/types.js';
import type { AgentCardBase } from '../../src/server/agentDefinition.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const channels: GrpcTransportFactory[] = [];
/** A client over gRPC only, its channels closed after the suite. */
async function grpcClient(card: AgentCard | string, options: ClientOptions = {}) {
  const transport = grpcTransport();
  channels.push(transport);
  return createClient(card, { ...options, transports: [transport], bindings: ['GRPC'] });
}
after(() => channels.forEach((c) => c.close()));

describe('UNAUTHENTICATED renews the credential as a 401 does', () => {
  test('bearerToken({fresh}) is asked again and the call repeated once, on every binding', async () => {
    const base = demoCard() as AgentCardBase;
    const card: AgentCardBase = { ...base, securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] };
    const agent = await serveAgent({
      agent: { card, executor: { execute: async (_ctx, task) => task.complete() } },
      port: 0,
      host: '127.0.0.1',
      grpc: { port: 0 },
      shutdownTimeoutMs: 300,
      handler: { auth: { schemes: { bearer: { verify: (t) => (t === 'good' ? { id: 'alice' } : undefined) } } } },
    });
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
        const asked: boolean[] = [];
        const transport = grpcTransport();
        channels.push(transport);
        const client = await createClient(agent.url, {
          transports: [transport],
          bindings: [binding],
          auth: bearerToken(({ fresh }) => (asked.push(fresh), fresh ? 'good' : 'stale')),
        });
        assert.equal(client.agentInterface.protocolBinding, binding);
        assert.deepEqual((await client.listTasks()).tasks, [], binding);
        assert.deepEqual(asked, [false, true], binding);
      }
    } finally {
      await agent.close();
    }
  });
});

describe('B13 R24 rate limits and an unavailable store are retried after the time asked for', () => {
  let limited: GrpcTestServer;
  let flaky: GrpcTestServer;
  let outages = 0;
  before(async () => {
    limited = await startGrpcServer({ handler: { abuseLimits: { requestsPerSecond: 5, requestBurst: 1 } } });
    const store = new MemoryTaskStore();
    const get = store.get.bind(store);
    store.get = (tenant, id) => (outages-- > 0 ? Promise.reject(StoreUnavailableError.from(new Error('ECONNRESET'))) : get(tenant, id));
    flaky = await startGrpcServer({ handler: { store } });
  });
  after(() => Promise.all([limited.close(), flaky.close()]));

  test('RESOURCE_EXHAUSTED with retryAfterMs: responseInfo 429 + Retry-After; retried with retry: {retries}', async () => {
    const once = await grpcClient(limited.card, { retry: false });
    await once.listTasks();
    const error = await once.listTasks().then(
      () => assert.fail('the second call at once is over the rate'),
      (e: unknown) => e,
    );
    assert.ok(A2AError.is(error) && error.reason === 'RESOURCE_EXHAUSTED' && error.metadata.limit === 'requests');
    const info = responseInfo(error);
    assert.equal(info?.status, 429);
    assert.ok(info.retryAfterMs !== undefined && info.retryAfterMs > 0 && info.retryAfterMs <= 200, `retryAfterMs ${info.retryAfterMs}`);
    const retried = await grpcClient(limited.card, { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 } });
    await new Promise((r) => setTimeout(r, 250));
    await retried.listTasks();
    const started = Date.now();
    assert.deepEqual((await retried.listTasks()).tasks, []);
    assert.ok(Date.now() - started >= 100, 'waited as long as the server asked, not the 1 ms backoff');
  });

  test('UNAVAILABLE with retryAfterMs (a store outage): responseInfo 503 + Retry-After; the retry waits for it', async () => {
    const client = await grpcClient(flaky.card, { retry: false });
    const task = (await client.sendText('hello')) as { task: { id: string } };
    outages = 1;
    const error = await client.getTask({ id: task.task.id }).catch((e: unknown) => e);
    assert.ok(A2AError.is(error) && error.reason === 'UNAVAILABLE', String(error));
    assert.deepEqual(responseInfo(error), { status: 503, retryAfterMs: 1000 });
    const retried = await grpcClient(flaky.card, { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    outages = 1;
    const started = Date.now();
    assert.equal((await retried.getTask({ id: task.task.id })).id, task.task.id);
    assert.ok(Date.now() - started >= 900, 'waited the retryAfterMs the server asked for');
  });

  test('any A2AError carries the status HTTP+JSON answers it with (TASK_NOT_FOUND → 404)', async () => {
    const client = await grpcClient(flaky.card, { retry: false });
    const error = await client.getTask({ id: 'no-such-task' }).catch((e: unknown) => e);
    assert.deepEqual(responseInfo(error), { status: 404 });
  });
});
