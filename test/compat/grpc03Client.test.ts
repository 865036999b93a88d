/**
 * A2A 0.3 over gRPC, client side (issue 9): our client (`createClient` + `grpc03Transport`)
 * against the OFFICIAL 0.3 JS SDK gRPC server (`a2a-sdk-03/server/grpc`, support/sdk03GrpcServer.ts)
 * over real sockets — every operation both have — and against our own 0.3 gRPC service, whose
 * ErrorInfo details take precedence over the status code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { grpc03Transport, type Grpc03TransportFactory } from '../../src/bindings/grpc/index.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { apiKey } from '../../src/client/auth.js';
import { createClient, type A2AClient } from '../../src/client/index.js';
import { A2AClientError, wasNotSent } from '../../src/client/errors.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import type { V03AgentCard } from '../../src/compat/v03Types.js';
import type { Message, Part, StreamResponse, Task } from '../../src/protocol/types.js';
import { startSdk03GrpcServer, type Sdk03GrpcServer } from '../support/sdk03GrpcServer.js';
import { collect } from './serverSupport.js';

let counter = 0;
const user = (text: string, extra: { taskId?: string; contextId?: string } = {}): Message => ({
  messageId: `g03-${process.pid}-${++counter}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

function taskOf(result: { task: Task } | { message: Message }): Task {
  assert.ok('task' in result, JSON.stringify(result));
  return result.task;
}

const textOf = (parts: readonly Part[] | undefined): string => (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');

describe('our 0.3 gRPC client (grpc03Transport) against the official 0.3 SDK gRPC server', () => {
  let sdk: Sdk03GrpcServer;
  let grpc: Grpc03TransportFactory;
  let client: A2AClient;
  before(async () => {
    sdk = await startSdk03GrpcServer();
    grpc = grpc03Transport();
    client = await createClient(sdk.card as unknown as V03AgentCard, { transports: [grpc], bindings: ['GRPC'] });
  });
  after(async () => {
    grpc.close();
    await sdk.close();
  });

  test('CARD-05/§5.4: a 0.3 card with preferredTransport GRPC → the 0.3 GRPC interface at host:port', () => {
    assert.deepEqual(client.agentInterface, { url: sdk.address, protocolBinding: 'GRPC', protocolVersion: '0.3' });
  });

  test('§5.6 SendMessage: a completed task (1.0 shape) with its echo artifact and history', async () => {
    const task = taskOf(await client.sendMessage({ message: user('hi grpc') }));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts?.[0]?.artifactId, 'echo');
    assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hi grpc' }]);
    assert.equal(task.history?.[0]?.role, 'ROLE_USER');
    assert.ok(task.contextId);
  });

  test('§5.6 SendMessage: a direct Message', async () => {
    const result = await client.sendMessage({ message: user('msg hello there') });
    assert.ok('message' in result);
    assert.equal(result.message.role, 'ROLE_AGENT');
    assert.deepEqual(result.message.parts, [{ text: 'hello there' }]);
  });

  test('§5.3 returnImmediately ↔ blocking:false; GetTask; CancelTask → CANCELED', async () => {
    const started = taskOf(await client.sendMessage({ message: user('slow work'), configuration: { returnImmediately: true } }));
    assert.notEqual(started.status.state, 'TASK_STATE_COMPLETED');
    const got = await client.getTask({ id: started.id, historyLength: 1 });
    assert.equal(got.id, started.id);
    assert.equal(got.contextId, started.contextId);
    const canceled = await client.cancelTask({ id: started.id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  });

  test('STREAM-04/§5.7 SendStreamingMessage: 1.0 events, chunks with append/lastChunk, ends at the final status', async () => {
    const events: StreamResponse[] = await collect(client.sendStreamingMessage({ message: user('stream tale') }));
    assert.ok('task' in (events[0] as StreamResponse));
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    assert.deepEqual(chunks.map((c) => textOf(c.artifact.parts)), ['chunk 1 ', 'chunk 2 ', 'chunk 3 ']);
    assert.deepEqual(chunks.map((c) => [c.append ?? false, c.lastChunk ?? false]), [[false, false], [true, false], [true, true]]);
    const last = events.at(-1) as StreamResponse;
    assert.ok('statusUpdate' in last);
    assert.equal(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('§5.6 TaskSubscription follows a running task to COMPLETED', async () => {
    const started = taskOf(await client.sendMessage({ message: user('slow follow'), configuration: { returnImmediately: true } }));
    const events: StreamResponse[] = await collect(client.subscribeToTask({ id: started.id }));
    const last = events.at(-1) as StreamResponse;
    assert.ok('statusUpdate' in last, JSON.stringify(last));
    assert.equal(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(last.statusUpdate.taskId, started.id);
  });

  test('§5.2 push configs: create, get, list, delete (1.0 shapes; schemes[0] ↔ scheme)', async () => {
    const task = taskOf(await client.sendMessage({ message: user('hi push') }));
    const created = await client.createTaskPushNotificationConfig({
      taskId: task.id,
      id: 'p1',
      url: 'https://hooks.example/p1',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'cred' },
    });
    assert.deepEqual(created, { taskId: task.id, id: 'p1', url: 'https://hooks.example/p1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'cred' } });
    const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'p1' });
    assert.equal(got.url, 'https://hooks.example/p1');
    await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'p2', url: 'https://hooks.example/p2' });
    const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
    assert.deepEqual(listed.configs?.map((c) => c.id).sort(), ['p1', 'p2']);
    assert.deepEqual(await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'p1' }), {});
    assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs?.map((c) => c.id), ['p2']);
  });

  test('§5.4 GetAgentCard → the extended card, read as a 1.0 card with a 0.3 GRPC interface', async () => {
    const card = await client.getExtendedAgentCard();
    assert.equal(card.name, 'SDK 0.3 gRPC agent (extended)');
    assert.deepEqual(card.supportedInterfaces, [{ url: sdk.address, protocolBinding: 'GRPC', protocolVersion: '0.3' }]);
    assert.equal(card.capabilities.extendedAgentCard, true);
  });

  test('ERR-08 without ErrorInfo: NOT_FOUND → TaskNotFound; FAILED_PRECONDITION on cancel → TaskNotCancelable; ListTasks → UnsupportedOperation (no 0.3 rpc)', async () => {
    await assert.rejects(client.getTask({ id: 'missing-task' }), { reason: 'TASK_NOT_FOUND' });
    const done = taskOf(await client.sendMessage({ message: user('hi done') }));
    await assert.rejects(client.cancelTask({ id: done.id }), { reason: 'TASK_NOT_CANCELABLE' });
    await assert.rejects(client.listTasks(), { reason: 'UNSUPPORTED_OPERATION' });
  });

  test('ERR-08 without ErrorInfo: UNIMPLEMENTED on a push method → PushNotificationNotSupported (the 0.3 SDK table)', async () => {
    const noPush = await startSdk03GrpcServer({ pushNotifications: false });
    const factory = grpc03Transport();
    try {
      const transport = factory.create({ url: noPush.address, protocolBinding: 'GRPC', protocolVersion: '0.3' }, { fetch });
      const call = { op: 'listTaskPushNotificationConfigs' as const, request: { taskId: 't1' }, headers: new Headers(), query: new URLSearchParams(), signal: AbortSignal.timeout(5000) };
      await assert.rejects(transport.unary(call), { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' });
    } finally {
      factory.close();
      await noPush.close();
    }
  });

  test('SEC-02 R23 a query parameter (apiKey in the query, a `before` interceptor) → AUTH, nothing sent, on unary and streaming calls', async () => {
    const queried = { ...sdk.card, securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } }, security: [{ key: [] }] };
    const viaKey = await createClient(queried as unknown as V03AgentCard, { transports: [grpc], bindings: ['GRPC'], auth: apiKey('k3y-s3cret') });
    const viaInterceptor = await createClient(sdk.card as unknown as V03AgentCard, {
      transports: [grpc],
      bindings: ['GRPC'],
      interceptors: [{ before: (call) => call.query.set('sig', 'abc') }],
    });
    for (const c of [viaKey, viaInterceptor]) {
      assert.equal(c.agentInterface.protocolVersion, '0.3');
      for (const run of [() => c.sendMessage({ message: user('never sent') }), () => collect(c.sendStreamingMessage({ message: user('never sent') }))]) {
        const error = await run().catch((e: unknown) => e);
        assert.ok(A2AClientError.is(error, 'AUTH'), String(error));
        assert.ok(wasNotSent(error));
        assert.match(error.message, /query parameter cannot be sent over gRPC \((api_key|sig)\)/);
        assert.doesNotMatch(error.message, /s3cret|abc/);
      }
    }
  });
});

describe('our 0.3 gRPC client against our own 0.3 gRPC service', () => {
  let agent: RunningAgent;
  let grpc: Grpc03TransportFactory;
  let client: A2AClient;
  before(async () => {
    agent = await serveAgent({
      agent: { card: { ...demoCard(), capabilities: { streaming: true, pushNotifications: false } }, executor: createDemoAgent({ slowMs: 1500, tickMs: 50 }) },
      port: 0,
      host: '127.0.0.1',
      shutdownTimeoutMs: 300,
      grpc: { port: 0 },
    });
    grpc = grpc03Transport();
    // The 0.3 card (what a 0.3 client reads): its GRPC interface is the 0.3 service.
    const card03 = await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).json();
    client = await createClient(card03, { transports: [grpc], bindings: ['GRPC'] });
  });
  after(async () => {
    grpc.close();
    await agent.close();
  });

  test('VER-07: the GRPC interface of our 0.3 card is chosen; a streamed task ends COMPLETED with 10 chunks', async () => {
    assert.deepEqual(client.agentInterface, { url: `localhost:${agent.grpc?.port}`, protocolBinding: 'GRPC', protocolVersion: '0.3' });
    const events: StreamResponse[] = await collect(client.sendStreamingMessage({ message: user('stream ours') }));
    assert.equal(events.filter((e) => 'artifactUpdate' in e).length, 10);
    const last = events.at(-1) as StreamResponse;
    assert.ok('statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
  });

  test('GRPC-03: ErrorInfo wins over the status code (push not declared: UNIMPLEMENTED + PUSH_NOTIFICATION_NOT_SUPPORTED)', async () => {
    const task = taskOf(await client.sendMessage({ message: user('hi') }));
    await assert.rejects(client.listTaskPushNotificationConfigs({ taskId: task.id }), { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' });
    await assert.rejects(client.getTask({ id: 'nope' }), { reason: 'TASK_NOT_FOUND' });
  });
});
