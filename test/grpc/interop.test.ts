/**
 * Interop over gRPC with the OFFICIAL A2A JS SDK (@a2a-js/sdk 1.3), both ways:
 *   1. its gRPC client (`GrpcTransportFactory` from @a2a-js/sdk/client/grpc, through its
 *      ClientFactory/Client) against our gRPC server (demo agent);
 *   2. our gRPC client (createGrpcClient) against its gRPC server (`grpcService` from
 *      @a2a-js/sdk/server/grpc, DefaultRequestHandler, an agent with the demo's keywords).
 * Every operation both sides support is exercised; errors must arrive as each side's typed
 * classes, which only works if status codes and ErrorInfo in `grpc-status-details-bin` agree.
 *
 * SDK behaviour seen (not bugs in either side):
 *  - Push configs: our demo card declares pushNotifications, and the SDK gRPC client creates, gets,
 *    lists (paged) and deletes configs on our server; a message carrying
 *    configuration.taskPushNotificationConfig gets its events delivered to a loopback webhook (over
 *    HTTP, whatever the binding: PUSHD-01). The SDK Client refuses create/get/list locally when a
 *    card says pushNotifications:false, so the not-declared case goes through `client.transport`
 *    (with an explicit A2A-Version, which the Client normally adds) to reach our server. After
 *    getAgentCard() fetched the extended card, the Client gates push on *that* card's capabilities.
 *  - Its gRPC transport sends no a2a-version metadata by itself: a bare transport call is a 0.3
 *    request and gets VersionNotSupported (FAILED_PRECONDITION), as over HTTP.
 *  - Its server puts no ErrorInfo.metadata (e.g. taskId) in its errors; our client still types
 *    them from ErrorInfo.reason.
 *  - Its server answers CancelTask on an already CANCELED task with the task (no error); only
 *    other terminal states get TaskNotCancelable (LIFE-05/R5 read strictly would refuse both).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  StreamResponse as SdkStreamResponse,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  type Message as SdkMessage,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, ServiceParameters, withA2AVersion, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import * as sdkErrors from '@a2a-js/sdk/errors';
import { isGrpcError } from '@a2a-js/sdk/errors/grpc';
import { createGrpcClient, type GrpcClient } from '../../src/bindings/grpc/client.js';
import {
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/protocol/errors.js';
import type { Message, StreamResponse, Task } from '../../src/protocol/types.js';
import { eventually, textOf as ourTextOf, uid } from '../support/assertions.js';
import { asTask, collect, kinds, stateName, textOf, userMessage } from '../interop/support.js';
import { sdkPushCrud } from '../interop/sdkPushCrud.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhookReceiver.js';
import { startSdkGrpcServer, type SdkGrpcServer } from './sdkServer.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const V1: RequestOptions = { serviceParameters: ServiceParameters.create(withA2AVersion('1.0')) };

/** The SDK's typed gRPC error: its semantic class, reason and gRPC status. */
function sdkError(name: string, reason: string, code: number) {
  return (err: unknown): true => {
    const classes = sdkErrors as unknown as Record<string, new (...a: never[]) => unknown>;
    assert.ok(err instanceof (classes[name] as new (...a: never[]) => unknown), `expected ${name}, got ${String(err)}`);
    assert.ok(isGrpcError(err), 'a Grpc*Error');
    assert.equal(err.reason, reason);
    assert.equal(err.status, code);
    return true;
  };
}

describe('official @a2a-js/sdk gRPC client → our gRPC server', () => {
  let server: GrpcTestServer;
  let client: Client;
  let hook: Receiver;
  before(async () => {
    hook = await startReceiver();
    server = await startGrpcServer({
      demo: { slowMs: 5000, tickMs: 100 },
      card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }),
      extendedCard: { name: 'a2a-kit demo agent (extended)', description: 'more', version: '0.1.0', capabilities: { streaming: true, pushNotifications: true }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] },
    });
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()] }));
    client = await factory.createFromAgentCard(AgentCard.fromJSON(server.card));
  });
  after(async () => {
    await server.close();
    await hook.close();
  });

  test('the SDK picks our GRPC interface (host:port) and speaks 1.0', () => {
    assert.equal(client.transport.protocolName, 'GRPC');
    assert.equal(client.protocolVersion, '1.0');
  });

  test('sendMessage: "hi" → completed task; "msg" → Message; historyLength 0 → no history', async () => {
    const task = asTask(await client.sendMessage(userMessage('hi sdk grpc')));
    assert.equal(stateName(task.status?.state), 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0]?.name, 'echo');
    assert.equal(textOf(task.artifacts[0]?.parts), 'hi sdk grpc');
    const message = (await client.sendMessage(userMessage('msg hello'))) as SdkMessage;
    assert.equal(message.role, 2 /* ROLE_AGENT */);
    assert.equal(textOf(message.parts), 'hello');
    const trimmed = asTask(await client.sendMessage(userMessage('hi again', { configuration: { historyLength: 0 } })));
    assert.deepEqual(trimmed.history, []);
  });

  test('multi-turn: "ask" → INPUT_REQUIRED, the follow-up completes the same task', async () => {
    const asked = asTask(await client.sendMessage(userMessage('ask your name')));
    assert.equal(stateName(asked.status?.state), 'TASK_STATE_INPUT_REQUIRED');
    const done = asTask(await client.sendMessage(userMessage('Ada', { taskId: asked.id, contextId: asked.contextId })));
    assert.equal(done.id, asked.id);
    assert.equal(stateName(done.status?.state), 'TASK_STATE_COMPLETED');
  });

  test('sendMessageStream: task, WORKING, 10 chunks, COMPLETED; a message-only stream', async () => {
    const events = await collect(client.sendMessageStream(userMessage('stream story')));
    assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'artifact', ...Array(8).fill('artifact+'), 'artifact+!', 'status:COMPLETED']);
    assert.deepEqual(kinds(await collect(client.sendMessageStream(userMessage('msg streamed')))), ['message']);
  });

  test('getTask, listTasks (filters, paging)', async () => {
    const contextId = uid('sdk-ctx');
    const ids: string[] = [];
    for (const t of ['hi a', 'hi b', 'hi c']) ids.push(asTask(await client.sendMessage(userMessage(t, { contextId }))).id);
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: ids[0], historyLength: 1 }));
    assert.equal(got.id, ids[0]);
    assert.equal(got.history.length, 1);
    const page1 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2 }));
    assert.deepEqual(page1.tasks.map((t) => t.id), [ids[2], ids[1]]);
    assert.equal(page1.totalSize, 3);
    const page2 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2, pageToken: page1.nextPageToken }));
    assert.deepEqual(page2.tasks.map((t) => t.id), [ids[0]]);
    assert.equal(page2.nextPageToken, '');
  });

  test('cancelTask + resubscribeTask: snapshot first, the stream ends at CANCELED; cancel again → TaskNotCancelable', async () => {
    const task = asTask(await client.sendMessage(userMessage('slow sdk', { configuration: { returnImmediately: true } })));
    const events: StreamResponse[] = [];
    const reading = (async () => {
      for await (const e of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }))) events.push(e as unknown as StreamResponse);
    })();
    await eventually(async () => (events.length > 0 ? true : undefined), 'the snapshot');
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    assert.equal(stateName(canceled.status?.state), 'TASK_STATE_CANCELED');
    await reading;
    const sdkKinds = kinds(events as never);
    assert.equal(sdkKinds[0]?.startsWith('task:'), true);
    assert.equal(sdkKinds.at(-1), 'status:CANCELED');
    await assert.rejects(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })), sdkError('TaskNotCancelableError', 'TASK_NOT_CANCELABLE', 9));
  });

  test('getAgentCard fetches our extended card over GetExtendedAgentCard', async () => {
    const card = await client.getAgentCard();
    assert.equal(card.name, 'a2a-kit demo agent (extended)');
  });

  test('errors arrive as the SDK’s typed gRPC errors (status + ErrorInfo.reason)', async () => {
    await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such' })), sdkError('TaskNotFoundError', 'TASK_NOT_FOUND', 5));
    const done = asTask(await client.sendMessage(userMessage('hi')));
    await assert.rejects(collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: done.id }))), sdkError('UnsupportedOperationError', 'UNSUPPORTED_OPERATION', 9));
    await assert.rejects(client.sendMessage(userMessage('again', { taskId: done.id })), sdkError('UnsupportedOperationError', 'UNSUPPORTED_OPERATION', 9));
  });

  test('PUSH-02..07 push configs: the SDK gRPC client creates, gets, lists (paged) and deletes them', async () => {
    const task = asTask(await client.sendMessage(userMessage('ask for a webhook')));
    await sdkPushCrud(client, task.id, `${hook.url}/grpc/crud`, 'grpc', { notFound: sdkError('TaskNotFoundError', 'TASK_NOT_FOUND', 5), paged: true });
  });

  test('MSG-07 PUSHD-01 a message with configuration.taskPushNotificationConfig → deliveries on the webhook', async () => {
    const path = '/webhook/grpc/deliver';
    const config = { url: new URL(hook.url).origin + path, token: 'grpc-notify', authentication: { scheme: 'Bearer', credentials: 'grpc-hook' } };
    const task = asTask(await client.sendMessage(userMessage('hi grpc push', { configuration: { taskPushNotificationConfig: config } })));
    assert.equal(stateName(task.status?.state), 'TASK_STATE_COMPLETED');
    const mine = (all: ReceivedRequest[]) => all.filter((r) => r.path === path);
    await hook.waitUntil((all) => mine(all).some((r) => r.json?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), 10_000);
    const got = mine(hook.requests);
    assert.ok(got.every((r) => r.headers['content-type'] === 'application/a2a+json' && r.headers['a2a-task-id'] === task.id));
    assert.ok(got.every((r) => r.headers.authorization === 'Bearer grpc-hook' && r.headers['x-a2a-notification-token'] === 'grpc-notify'));
    const trace = kinds(got.map((r) => SdkStreamResponse.fromJSON(r.json)));
    assert.match(trace[0] as string, /^task:/, JSON.stringify(trace));
    assert.equal(trace.at(-1), 'status:COMPLETED');
  });

  test('CAP-02 PUSH-01 a card without pushNotifications: every push call → typed PushNotificationNotSupported', async () => {
    const noPush = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
    try {
      const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()] }));
      const c = await factory.createFromAgentCard(AgentCard.fromJSON(noPush.card));
      const done = asTask(await c.sendMessage(userMessage('hi')));
      const t = c.transport;
      const push = sdkError('PushNotificationNotSupportedError', 'PUSH_NOTIFICATION_NOT_SUPPORTED', 9);
      await assert.rejects(t.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId: done.id, url: 'https://h.example/x' }), V1), push);
      await assert.rejects(t.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: done.id, id: 'c' }), V1), push);
      await assert.rejects(t.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: done.id }), V1), push);
      await assert.rejects(c.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: done.id, id: 'c' })), push);
      await assert.rejects(c.sendMessage(userMessage('hi', { configuration: { taskPushNotificationConfig: { url: 'https://h.example/x' } } })), push);
    } finally {
      await noPush.close();
    }
  });

  test('VER-05 a transport call without a2a-version is a 0.3 request → VersionNotSupported (FAILED_PRECONDITION)', async () => {
    await assert.rejects(client.transport.getTask(GetTaskRequest.fromJSON({ id: 'x' })), sdkError('VersionNotSupportedError', 'VERSION_NOT_SUPPORTED', 9));
  });
});

describe('our gRPC client → official @a2a-js/sdk gRPC server', () => {
  let sdk: SdkGrpcServer;
  let client: GrpcClient;
  const send = (text: string, extra: Partial<Message> = {}, configuration?: object) => ({
    message: { messageId: uid('m'), role: 'ROLE_USER' as const, parts: [{ text }], ...extra },
    ...(configuration ? { configuration } : {}),
  });
  const taskOf = (r: { task: Task } | { message: Message }): Task => {
    assert.ok('task' in r, JSON.stringify(r));
    return r.task;
  };
  before(async () => {
    sdk = await startSdkGrpcServer({ slowMs: 5000 });
    client = createGrpcClient(sdk.address);
  });
  after(async () => {
    client.close();
    await sdk.close();
  });

  test('sendMessage: "hi" → completed task with the echo artifact; "msg" → Message', async () => {
    const task = taskOf(await client.sendMessage(send('hi official')));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts?.[0]?.name, 'echo');
    assert.equal(ourTextOf(task.artifacts?.[0]?.parts), 'hi official');
    const reply = await client.sendMessage(send('msg yo'));
    assert.ok('message' in reply && reply.message.role === 'ROLE_AGENT' && ourTextOf(reply.message.parts) === 'yo');
  });

  test('sendStreamingMessage: the SDK server’s stream decodes into our StreamResponse union', async () => {
    const events = await collect(client.sendStreamingMessage(send('stream s')));
    assert.deepEqual(
      events.map((e) => Object.keys(e)[0]),
      ['task', 'statusUpdate', ...Array(10).fill('artifactUpdate'), 'statusUpdate'],
    );
    const last = events.at(-1);
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
  });

  test('multi-turn, getTask (historyLength), listTasks', async () => {
    const asked = taskOf(await client.sendMessage(send('ask name')));
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const done = taskOf(await client.sendMessage(send('Ada', { taskId: asked.id, contextId: asked.contextId })));
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    const got = await client.getTask({ id: asked.id, historyLength: 1 });
    assert.equal(got.id, asked.id);
    assert.equal(got.history?.length, 1);
    const listed = await client.listTasks({ pageSize: 100 });
    assert.ok(listed.tasks.some((t) => t.id === asked.id));
    assert.equal(typeof listed.totalSize, 'number');
  });

  test('cancelTask + subscribeToTask on a running task; cancelling a completed task → TaskNotCancelableError', async () => {
    const started = taskOf(await client.sendMessage(send('slow one', {}, { returnImmediately: true })));
    assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(started.status.state), started.status.state);
    const subscribed = collect(client.subscribeToTask({ id: started.id }));
    await new Promise((r) => setTimeout(r, 100));
    const canceled = await client.cancelTask({ id: started.id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const events = await subscribed;
    const last = events.at(-1);
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_CANCELED', JSON.stringify(events.map((e) => Object.keys(e)[0])));
    // The SDK server answers a second cancel of a CANCELED task with the task (see the header);
    // a COMPLETED one is refused.
    const completed = taskOf(await client.sendMessage(send('hi')));
    await assert.rejects(client.cancelTask({ id: completed.id }), TaskNotCancelableError);
  });

  test('its errors arrive as our typed A2AError classes', async () => {
    await assert.rejects(client.getTask({ id: 'no-such' }), TaskNotFoundError);
    const done = taskOf(await client.sendMessage(send('hi')));
    await assert.rejects(collect(client.subscribeToTask({ id: done.id })), UnsupportedOperationError);
    await assert.rejects(client.getExtendedAgentCard({}), UnsupportedOperationError);
    await assert.rejects(client.createTaskPushNotificationConfig({ taskId: done.id, url: 'https://h.example/x' }), PushNotificationNotSupportedError);
    await assert.rejects(client.getTaskPushNotificationConfig({ taskId: done.id, id: 'c' }), PushNotificationNotSupportedError);
    await assert.rejects(client.listTaskPushNotificationConfigs({ taskId: done.id }), PushNotificationNotSupportedError);
    await assert.rejects(client.deleteTaskPushNotificationConfig({ taskId: done.id, id: 'c' }), PushNotificationNotSupportedError);
  });
});
