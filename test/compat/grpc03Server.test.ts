/**
 * A2A 0.3 over gRPC, server side (issue 9): the OFFICIAL 0.3 JS SDK gRPC client
 * (`a2a-sdk-03/client/grpc`, @a2a-js/sdk 0.3.x) against `serveAgent` with gRPC on, over real
 * sockets: discovery from the card, every operation it has, errors, the 0.3 stream end
 * (`final`), TaskSubscription to a finished task (digest §5.7), tasks shared with the 1.0
 * service, and `compat03: false` (`a2a serve --no-compat`) → no 0.3 service (UNIMPLEMENTED).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as GrpcClient, Metadata, credentials, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import type * as Sdk from 'a2a-sdk-03';
import { ClientFactory, ClientFactoryOptions, PushNotificationNotSupportedError, TaskNotCancelableError, TaskNotFoundError, type Client } from 'a2a-sdk-03/client';
import { GrpcTransport, GrpcTransportFactory } from 'a2a-sdk-03/client/grpc';
import { createGrpcClient, decodeStatus, STATUS_DETAILS_KEY } from '../../src/bindings/grpc/index.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { TEST_PUSH } from '../support/server.js';
import { startGrpcServer } from '../grpc/support.js';
import { asTask, collect, EXTENDED_SUFFIX, params03, textOf, type Event03 } from './serverSupport.js';

interface Setup {
  agent: RunningAgent;
  /** host:port of the gRPC listener. */
  address: string;
  /** The 0.3 SDK client the SDK's factory made from our card (gRPC preferred). */
  client: Client;
  /** The SDK's bare gRPC transport on the same address. */
  transport: GrpcTransport;
  errors: unknown[];
  close(): Promise<void>;
}

async function start(options: { compat03?: boolean } = {}): Promise<Setup> {
  const errors: unknown[] = [];
  const base = demoCard();
  const card = { ...base, capabilities: { ...base.capabilities, extendedAgentCard: true } };
  const agent = await serveAgent({
    agent: { card, extendedCard: { ...card, name: base.name + EXTENDED_SUFFIX }, executor: createDemoAgent({ slowMs: 1500, tickMs: 50 }) },
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    grpc: { port: 0 },
    onError: (e) => errors.push(e),
    // An extended card needs authentication (§13.3): as if a gateway in front authenticated.
    handler: { push: TEST_PUSH, auth: 'external', ...(options.compat03 === false ? { compat03: false } : {}) },
  });
  const address = `127.0.0.1:${agent.grpc?.port}`;
  const transport = new GrpcTransport({ endpoint: address });
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()], preferredTransports: ['GRPC'] }));
  const client = options.compat03 === false ? (undefined as unknown as Client) : await factory.createFromUrl(agent.baseUrl);
  return { agent, address, client, transport, errors, close: () => agent.close() };
}

/** A raw unary call (bytes in, error out) to read the status details the SDK client does not expose. */
function rawCall(address: string, path: string, metadata = new Metadata()): Promise<ServiceError> {
  const raw = new GrpcClient(address, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    raw.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0x0b, ...Buffer.from('tasks/nope1')]), metadata, (error) => {
      raw.close();
      if (error) resolve(error);
      else reject(new Error('the call succeeded'));
    });
  });
}

function errorInfoOf(error: ServiceError): Record<string, unknown> | undefined {
  const bytes = error.metadata.get(STATUS_DETAILS_KEY)[0];
  assert.ok(bytes instanceof Buffer, 'grpc-status-details-bin is present');
  return decodeStatus(bytes)?.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
}

const isStatus = (e: unknown): e is Sdk.TaskStatusUpdateEvent => (e as { kind?: string }).kind === 'status-update';

describe('0.3 SDK gRPC client against our server (a2a.v1.A2AService), compat on', () => {
  let s: Setup;
  before(async () => {
    s = await start();
  });
  after(async () => {
    s.transport['grpcClient'].close();
    await s.close();
  });

  test('§5.4/GRPC-06/VER-07: the card (no A2A-Version) lists a 0.3 GRPC interface at host:port; the SDK factory picks it', async () => {
    const hybrid = (await (await fetch(`${s.agent.baseUrl}/.well-known/agent-card.json`)).json()) as Sdk.AgentCard & AgentCard;
    assert.equal(hybrid.protocolVersion, '0.3.0');
    const grpc = hybrid.additionalInterfaces?.find((i) => i.transport === 'GRPC');
    assert.equal(grpc?.url, `localhost:${s.agent.grpc?.port}`);
    assert.deepEqual(
      hybrid.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`),
      ['JSONRPC 1.0', 'HTTP+JSON 1.0', 'GRPC 1.0'],
      'the 1.0 card itself is unchanged',
    );
    const v03 = (await (await fetch(`${s.agent.baseUrl}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).json()) as Sdk.AgentCard;
    assert.deepEqual(v03.additionalInterfaces?.map((i) => i.transport), ['JSONRPC', 'HTTP+JSON', 'GRPC']);
    const sent = asTask(await s.client.sendMessage(params03('hi via discovery')));
    assert.equal(sent.status.state, 'completed');
  });

  test('§5.6 SendMessage (blocking): a completed Task with its artifact and history', async () => {
    const task = asTask(await s.transport.sendMessage(params03('hi there')));
    assert.equal(task.status.state, 'completed');
    assert.equal(task.artifacts?.[0]?.name, 'echo');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'hi there');
    assert.equal(task.history?.[0]?.role, 'user');
    assert.equal(textOf(task.history?.[0]?.parts), 'hi there');
    assert.ok(task.contextId);
  });

  test('§5.6 SendMessage: a direct Message reply', async () => {
    const reply = (await s.transport.sendMessage(params03('msg hello grpc'))) as Sdk.Message;
    assert.equal(reply.kind, 'message');
    assert.equal(reply.role, 'agent');
    assert.equal(textOf(reply.parts), 'hello grpc');
  });

  test('MSG-03 SendMessage blocking:false to an agent that replies: the direct Message, no task', async () => {
    const reply = (await s.transport.sendMessage(params03('msg hello grpc', { blocking: false }))) as Sdk.Message;
    assert.equal(reply.kind, 'message', JSON.stringify(reply));
    assert.equal(textOf(reply.parts), 'hello grpc');
  });

  test('§5.6 SendMessage blocking:false, GetTask (history_length), CancelTask → canceled', async () => {
    const started = asTask(await s.transport.sendMessage(params03('slow grpc', { blocking: false })));
    assert.ok(['submitted', 'working'].includes(started.status.state), started.status.state);
    const got = await s.transport.getTask({ id: started.id, historyLength: 1 });
    assert.equal(got.id, started.id);
    assert.equal(got.history?.length, 1);
    const canceled = await s.transport.cancelTask({ id: started.id });
    assert.equal(canceled.status.state, 'canceled');
    assert.equal((await s.transport.getTask({ id: started.id })).status.state, 'canceled');
  });

  test('STREAM-04/§5.7 SendStreamingMessage: Task first, 10 chunks, final:true only on the last status update', async () => {
    const events = (await collect(s.transport.sendMessageStream(params03('stream grpc story')))) as Event03[];
    assert.equal(events[0]?.kind, 'task');
    const chunks = events.filter((e): e is Sdk.TaskArtifactUpdateEvent => e.kind === 'artifact-update');
    assert.equal(chunks.length, 10);
    assert.equal(chunks[9]?.lastChunk, true);
    const statuses = events.filter(isStatus);
    const last = events.at(-1) as Sdk.TaskStatusUpdateEvent;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'completed');
    assert.equal(last.final, true);
    assert.deepEqual(statuses.slice(0, -1).map((e) => e.final), statuses.slice(0, -1).map(() => false));
  });

  test('§5.7 SendStreamingMessage to input-required ends with final:true; the follow-up completes the task', async () => {
    const events = (await collect(s.transport.sendMessageStream(params03('ask your name')))) as Event03[];
    const last = events.at(-1) as Sdk.TaskStatusUpdateEvent;
    assert.equal(last.status.state, 'input-required');
    assert.equal(last.final, true);
    const done = asTask(await s.transport.sendMessage(params03('Ada', { taskId: last.taskId, contextId: last.contextId })));
    assert.equal(done.status.state, 'completed');
    assert.equal(textOf(done.artifacts?.[0]?.parts), 'Ada');
  });

  test('§5.6 TaskSubscription follows a running task to its end; on a finished task it answers the task and completes (§5.7)', async () => {
    const started = asTask(await s.transport.sendMessage(params03('slow follow me', { blocking: false })));
    const events = (await collect(s.transport.resubscribeTask({ id: started.id }))) as Event03[];
    assert.equal(events[0]?.kind, 'task');
    const last = events.at(-1) as Sdk.TaskStatusUpdateEvent;
    assert.equal(last.status.state, 'completed');
    assert.equal(last.final, true);

    const again = (await collect(s.transport.resubscribeTask({ id: started.id }))) as Event03[];
    assert.equal(again.length, 1);
    const task = asTask(again[0]);
    assert.equal(task.id, started.id);
    assert.equal(task.status.state, 'completed');
    assert.equal(task.artifacts?.[0]?.name, 'slow');
  });

  test('§5.2 push configs: create (with id, without id → the task id), get, list, delete', async () => {
    const task = asTask(await s.transport.sendMessage(params03('hi push')));
    const created = await s.transport.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'c1', url: 'https://hooks.example/one', token: 'tok-1', authentication: { schemes: ['Bearer'], credentials: 'secret' } },
    });
    assert.deepEqual(created, {
      taskId: task.id,
      pushNotificationConfig: { id: 'c1', url: 'https://hooks.example/one', token: 'tok-1', authentication: { schemes: ['Bearer'], credentials: 'secret' } },
    });
    const defaulted = await s.transport.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'https://hooks.example/two' } });
    assert.equal(defaulted.pushNotificationConfig.id, task.id);
    const got = await s.transport.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c1' });
    assert.equal(got.pushNotificationConfig.url, 'https://hooks.example/one');
    assert.equal(got.pushNotificationConfig.token, 'tok-1');
    const listed = await s.transport.listTaskPushNotificationConfig({ id: task.id });
    assert.deepEqual(listed.map((c) => c.pushNotificationConfig.id).sort(), ['c1', task.id].sort());
    assert.ok(listed.every((c) => c.taskId === task.id));
    await s.transport.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c1' });
    assert.deepEqual((await s.transport.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id), [task.id]);
    await assert.rejects(s.transport.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c1' }), TaskNotFoundError);
  });

  test('§5.4 GetAgentCard: the extended card as a 0.3 card (listing the 0.3 gRPC interface)', async () => {
    const card = await s.transport.getExtendedAgentCard();
    assert.equal(card.name, demoCard().name + EXTENDED_SUFFIX);
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.supportsAuthenticatedExtendedCard, true);
    assert.equal(card.additionalInterfaces?.find((i) => i.transport === 'GRPC')?.url, `localhost:${s.agent.grpc?.port}`);
    assert.deepEqual((await s.client.getAgentCard()).name, card.name, 'the SDK Client asks GetAgentCard for the extended card');
  });

  test('GRPC-03/ERR-08: unknown task → NOT_FOUND (SDK TaskNotFoundError) with ErrorInfo TASK_NOT_FOUND; cancel of a finished task → TaskNotCancelableError', async () => {
    await assert.rejects(s.transport.getTask({ id: 'no-such-task' }), (e: unknown) => e instanceof TaskNotFoundError);
    const error = await rawCall(s.address, '/a2a.v1.A2AService/GetTask');
    assert.equal(error.code, grpcStatus.NOT_FOUND);
    assert.equal(errorInfoOf(error)?.reason, 'TASK_NOT_FOUND');
    const done = asTask(await s.transport.sendMessage(params03('hi done')));
    await assert.rejects(s.transport.cancelTask({ id: done.id }), (e: unknown) => e instanceof TaskNotCancelableError);
  });

  test('§5.7 errors: push not declared → UNIMPLEMENTED (the 0.3 SDK code, its PushNotificationNotSupportedError) with ErrorInfo PUSH_NOTIFICATION_NOT_SUPPORTED', async () => {
    const noPush = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
    const transport = new GrpcTransport({ endpoint: noPush.address });
    try {
      await assert.rejects(transport.listTaskPushNotificationConfig({ id: 't1' }), (e: unknown) => e instanceof PushNotificationNotSupportedError);
      const error = await rawCall(noPush.address, '/a2a.v1.A2AService/ListTaskPushNotificationConfig');
      assert.equal(error.code, grpcStatus.UNIMPLEMENTED);
      assert.equal(errorInfoOf(error)?.reason, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    } finally {
      transport['grpcClient'].close();
      await noPush.close();
    }
  });

  test('VER-05/VER-06: no a2a-version is 0.3 (served); a2a-version 1.0 on the 0.3 service → FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    const error = await rawCall(s.address, '/a2a.v1.A2AService/GetTask', metadata);
    assert.equal(error.code, grpcStatus.FAILED_PRECONDITION);
    const info = errorInfoOf(error);
    assert.equal(info?.reason, 'VERSION_NOT_SUPPORTED');
    // As a 0.3 request over HTTP asking for 1.0: the listener's versions, and the shape's.
    assert.deepEqual(info?.metadata, { requestedVersion: '1.0', supportedVersions: '1.0,0.3', requestShape: '0.3' });
  });

  test('a task created over 0.3 gRPC is visible over 1.0 gRPC, and vice versa', async () => {
    const v10 = createGrpcClient(s.address);
    try {
      const via03 = asTask(await s.transport.sendMessage(params03('hi from 0.3')));
      const seen10 = await v10.getTask({ id: via03.id });
      assert.equal(seen10.status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(seen10.artifacts?.[0]?.parts, [{ text: 'hi from 0.3' }]);
      const via10 = await v10.sendMessage({ message: { messageId: `m10-${process.pid}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'hi from 1.0' }] } });
      assert.ok('task' in via10);
      const seen03 = await s.transport.getTask({ id: via10.task.id });
      assert.equal(seen03.status.state, 'completed');
      assert.equal(textOf(seen03.artifacts?.[0]?.parts), 'hi from 1.0');
    } finally {
      v10.close();
    }
  });

  test('nothing was reported as an internal error', () => {
    assert.deepEqual(s.errors.filter((e) => !(e instanceof Error && /webhook|push/i.test(e.message))), []);
  });
});

describe('0.3 gRPC with compat off (handler.compat03: false, a2a serve --no-compat)', () => {
  let s: Setup;
  before(async () => {
    s = await start({ compat03: false });
  });
  after(async () => {
    s.transport['grpcClient'].close();
    await s.close();
  });

  test('the 0.3 service is absent: UNIMPLEMENTED; the 1.0 service still answers', async () => {
    const error = await rawCall(s.address, '/a2a.v1.A2AService/GetTask');
    assert.equal(error.code, grpcStatus.UNIMPLEMENTED);
    await assert.rejects(s.transport.sendMessage(params03('hi')), (e: Error) => /GRPC error for sendMessage! 12/.test(e.message));
    const v10 = createGrpcClient(s.address);
    try {
      const sent = await v10.sendMessage({ message: { messageId: `off-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
      assert.ok('task' in sent && sent.task.status.state === 'TASK_STATE_COMPLETED');
    } finally {
      v10.close();
    }
  });

  test('the card lists no 0.3 gRPC interface (only the 1.0 card is served)', async () => {
    const card = (await (await fetch(`${s.agent.baseUrl}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    assert.equal(card.additionalInterfaces, undefined);
    assert.equal(card.protocolVersion, undefined);
  });
});
