/**
 * The gRPC binding end to end (§10, GRPC-01..07): every operation of lf.a2a.v1.A2AService over a
 * real HTTP/2 socket, our gRPC client against our gRPC server, serving the demo agent through
 * the same request handler as JSON-RPC and REST.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGrpcClient, type GrpcClient } from '../../src/bindings/grpc/client.js';
import { GRPC_METHODS } from '../../src/bindings/grpc/codec.js';
import { STREAM_CHUNKS, utf8ToBase64 } from '../../src/cli/agents/demo.js';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/protocol/errors.js';
import type { Message, StreamResponse, Task } from '../../src/protocol/types.js';
import { eventually, textOf, uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

function send(text: string, extra: Partial<Message> = {}, configuration?: object) {
  return { message: { messageId: uid('m'), role: 'ROLE_USER' as const, parts: [{ text }], ...extra }, ...(configuration ? { configuration } : {}) };
}

function taskOf(result: { task: Task } | { message: Message }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function trace(events: StreamResponse[]): string[] {
  return events.map((e) => {
    if ('task' in e) return `task:${e.task.status.state.replace('TASK_STATE_', '')}`;
    if ('message' in e) return 'message';
    if ('statusUpdate' in e) return `status:${e.statusUpdate.status.state.replace('TASK_STATE_', '')}`;
    return `artifact${e.artifactUpdate.append ? '+' : ''}${e.artifactUpdate.lastChunk ? '!' : ''}`;
  });
}

describe('gRPC binding: every operation over a real socket (demo agent)', () => {
  let server: GrpcTestServer;
  let client: GrpcClient;
  before(async () => {
    server = await startGrpcServer({ demo: { slowMs: 800, tickMs: 50 } });
    client = createGrpcClient(server.address);
  });
  after(async () => {
    client.close();
    await server.close();
  });

  test('GRPC-01 the service is lf.a2a.v1.A2AService with the eleven rpcs at /lf.a2a.v1.A2AService/<Rpc>', () => {
    assert.deepEqual(
      GRPC_METHODS.map((m) => `${m.path}${m.streaming ? ' (stream)' : ''}`),
      [
        '/lf.a2a.v1.A2AService/SendMessage',
        '/lf.a2a.v1.A2AService/SendStreamingMessage (stream)',
        '/lf.a2a.v1.A2AService/GetTask',
        '/lf.a2a.v1.A2AService/ListTasks',
        '/lf.a2a.v1.A2AService/CancelTask',
        '/lf.a2a.v1.A2AService/SubscribeToTask (stream)',
        '/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig',
        '/lf.a2a.v1.A2AService/GetTaskPushNotificationConfig',
        '/lf.a2a.v1.A2AService/ListTaskPushNotificationConfigs',
        '/lf.a2a.v1.A2AService/GetExtendedAgentCard',
        '/lf.a2a.v1.A2AService/DeleteTaskPushNotificationConfig',
      ],
    );
    // GRPC-05: DeleteTaskPushNotificationConfig answers google.protobuf.Empty.
    assert.equal(GRPC_METHODS.find((m) => m.rpc === 'DeleteTaskPushNotificationConfig')?.output.typeName, 'google.protobuf.Empty');
  });

  test('GRPC-06 the card lists the GRPC interface as host:port, the address that answers', () => {
    const grpc = server.card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
    assert.deepEqual(grpc, { url: server.address, protocolBinding: 'GRPC', protocolVersion: '1.0' });
    assert.match(server.address, /^127\.0\.0\.1:\d+$/);
  });

  test('SendMessage "hi": a COMPLETED task with the echo artifact and the history', async () => {
    const request = send('hi there');
    const task = taskOf(await client.sendMessage(request));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(task.status.timestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(task.artifacts?.[0]?.name, 'echo');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'hi there');
    assert.deepEqual(task.history?.[0]?.parts, [{ text: 'hi there' }]);
    assert.equal(task.history?.[0]?.messageId, request.message.messageId);
  });

  test('SendMessage "msg": a direct Message reply', async () => {
    const result = await client.sendMessage(send('msg hello grpc'));
    assert.ok('message' in result);
    assert.equal(result.message.role, 'ROLE_AGENT');
    assert.equal(textOf(result.message.parts), 'hello grpc');
  });

  test('SendMessage "ask" → INPUT_REQUIRED; the follow-up on the task completes it (multi-turn)', async () => {
    const asked = taskOf(await client.sendMessage(send('ask your name')));
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(textOf(asked.status.message?.parts), 'your name?');
    const done = taskOf(await client.sendMessage(send('Ada', { taskId: asked.id, contextId: asked.contextId })));
    assert.equal(done.id, asked.id);
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(done.history?.length, 3);
  });

  test('SendMessage "fail" / "reject": FAILED and REJECTED with an agent message', async () => {
    const failed = taskOf(await client.sendMessage(send('fail on purpose')));
    assert.equal(failed.status.state, 'TASK_STATE_FAILED');
    assert.equal(textOf(failed.status.message?.parts), 'Failed as requested: on purpose');
    const rejected = taskOf(await client.sendMessage(send('reject not mine')));
    assert.equal(rejected.status.state, 'TASK_STATE_REJECTED');
  });

  test('SendMessage "data" and "file": Value and bytes survive protobuf both ways', async () => {
    const data = taskOf(await client.sendMessage(send('data héllo')));
    assert.deepEqual(data.artifacts?.[0]?.parts, [{ data: { echo: 'héllo', length: 5 }, mediaType: 'application/json' }]);
    const file = taskOf(await client.sendMessage(send('file héllo')));
    assert.deepEqual(file.artifacts?.[0]?.parts, [{ raw: utf8ToBase64('héllo'), filename: 'echo.txt', mediaType: 'text/plain' }]);
    // A request with every Part kind and metadata, echoed back in the history.
    const parts = [
      { text: 'hi', metadata: { k: ['v', 1, true, null] } },
      { raw: 'AAEC/w==', mediaType: 'application/octet-stream', filename: 'b.bin' },
      { url: 'https://example.com/x.txt', mediaType: 'text/plain' },
      { data: [1, 'two', { three: 3 }], mediaType: 'application/json' },
    ];
    const task = taskOf(await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts, metadata: { trace: 'abc' } } }));
    assert.deepEqual(task.history?.[0]?.parts, parts);
    assert.deepEqual(task.history?.[0]?.metadata, { trace: 'abc' });
  });

  test('MSG-02 configuration.returnImmediately answers before the work is done; GetTask follows it to COMPLETED', async () => {
    const task = taskOf(await client.sendMessage(send('slow background', {}, { returnImmediately: true })));
    assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);
    const done = await eventually(async () => {
      const t = await client.getTask({ id: task.id });
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 'the slow task to complete');
    assert.equal(textOf(done.artifacts?.[0]?.parts), 'Finished slow work: background');
  });

  test('GRPC-04 SendStreamingMessage "stream": task, WORKING, 10 chunks, COMPLETED, then the stream completes OK', async () => {
    const events = await collect(client.sendStreamingMessage(send('stream a story')));
    assert.deepEqual(trace(events), ['task:SUBMITTED', 'status:WORKING', 'artifact', ...Array(STREAM_CHUNKS - 2).fill('artifact+'), 'artifact+!', 'status:COMPLETED']);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    chunks.forEach((c, i) => assert.equal(textOf(c.artifact.parts), `chunk ${i + 1}/${STREAM_CHUNKS}: a story\n`));
  });

  test('STREAM-02 a message-only stream carries exactly one message', async () => {
    const events = await collect(client.sendStreamingMessage(send('msg streamed')));
    assert.deepEqual(trace(events), ['message']);
  });

  test('GetTask with historyLength 0 / 1 (HIST-02, HIST-03)', async () => {
    const asked = taskOf(await client.sendMessage(send('ask colour')));
    await client.sendMessage(send('blue', { taskId: asked.id }));
    assert.equal((await client.getTask({ id: asked.id })).history?.length, 3);
    assert.equal('history' in (await client.getTask({ id: asked.id, historyLength: 0 })), false);
    assert.deepEqual((await client.getTask({ id: asked.id, historyLength: 1 })).history?.map((m) => textOf(m.parts)), ['blue']);
  });

  test('ListTasks: filters, newest first, paging with pageToken, all four response fields present (A10)', async () => {
    const contextId = uid('ctx');
    const ids: string[] = [];
    for (const text of ['hi 1', 'fail 2', 'hi 3']) ids.push(taskOf(await client.sendMessage(send(text, { contextId }))).id);
    const all = await client.listTasks({ contextId });
    assert.deepEqual(all.tasks.map((t) => t.id), [...ids].reverse());
    assert.equal(all.totalSize, 3);
    assert.equal(all.pageSize, 50);
    assert.equal(all.nextPageToken, '');
    assert.deepEqual((await client.listTasks({ contextId, status: 'TASK_STATE_FAILED' })).tasks.map((t) => t.id), [ids[1]]);
    const first = await client.listTasks({ contextId, pageSize: 2 });
    assert.equal(first.tasks.length, 2);
    assert.notEqual(first.nextPageToken, '');
    const second = await client.listTasks({ contextId, pageSize: 2, pageToken: first.nextPageToken });
    assert.deepEqual([...first.tasks, ...second.tasks].map((t) => t.id), [...ids].reverse());
    assert.equal(second.nextPageToken, '');
    const empty = await client.listTasks({ contextId: uid('nothing') });
    assert.deepEqual(empty, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  test('CancelTask on a slow task → CANCELED; SubscribeToTask saw a snapshot and ends at CANCELED; again → TaskNotCancelable', async () => {
    const task = taskOf(await client.sendMessage(send('slow cancel me', {}, { returnImmediately: true })));
    const subscribed = collect(client.subscribeToTask({ id: task.id }));
    await eventually(async () => (server.bus.size > 0 ? true : undefined), 'the subscription');
    const canceled = await client.cancelTask({ id: task.id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const events = await subscribed;
    assert.ok('task' in (events[0] ?? {}), 'SUB-01: a Task snapshot first');
    assert.equal(trace(events).at(-1), 'status:CANCELED');
    await assert.rejects(client.cancelTask({ id: task.id }), (e: unknown) => e instanceof TaskNotCancelableError && e.metadata.taskId === task.id);
  });

  test('errors arrive as the typed A2AError classes (ERR-08)', async () => {
    await assert.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
    const done = taskOf(await client.sendMessage(send('hi')));
    await assert.rejects(collect(client.subscribeToTask({ id: done.id })), UnsupportedOperationError);
    await assert.rejects(client.getExtendedAgentCard({}), UnsupportedOperationError);
    // The demo card declares push: an unknown config is TaskNotFound (PUSH-03).
    await assert.rejects(client.getTaskPushNotificationConfig({ taskId: done.id, id: 'c1' }), TaskNotFoundError);
    const noPush = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
    const c = createGrpcClient(noPush.address);
    try {
      const other = taskOf(await c.sendMessage(send('hi')));
      await assert.rejects(c.createTaskPushNotificationConfig({ taskId: other.id, url: 'https://hooks.example.com/x' }), PushNotificationNotSupportedError);
      await assert.rejects(c.getTaskPushNotificationConfig({ taskId: other.id, id: 'c1' }), PushNotificationNotSupportedError);
      await assert.rejects(c.listTaskPushNotificationConfigs({ taskId: other.id }), PushNotificationNotSupportedError);
      await assert.rejects(c.deleteTaskPushNotificationConfig({ taskId: other.id, id: 'c1' }), PushNotificationNotSupportedError);
    } finally {
      c.close();
      await noPush.close();
    }
  });

  test('PUSH-02 PUSH-05..07 push configs: create, get, list, delete', async () => {
    const task = taskOf(await client.sendMessage(send('ask for a webhook')));
    // Never delivered to: the task stays INPUT_REQUIRED.
    const config = { taskId: task.id, id: 'g1', url: 'http://127.0.0.1:9/hook', authentication: { scheme: 'Bearer', credentials: 'c' } };
    const created = await client.createTaskPushNotificationConfig(config);
    assert.deepEqual(created, config);
    assert.deepEqual(await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'g1' }), created);
    assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs, [created]);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'g1' });
    await assert.rejects(client.getTaskPushNotificationConfig({ taskId: task.id, id: 'g1' }), TaskNotFoundError);
  });

  test('GetExtendedAgentCard: the configured card whole; declared but missing → ExtendedAgentCardNotConfigured', async () => {
    const withCard = await startGrpcServer({
      card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }),
      extendedCard: { ...server.card, name: 'extended demo', supportedInterfaces: [] },
    });
    const noCard = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }) });
    const a = createGrpcClient(withCard.address);
    const b = createGrpcClient(noCard.address);
    try {
      const card = await a.getExtendedAgentCard({});
      assert.equal(card.name, 'extended demo');
      assert.deepEqual(card.skills, server.card.skills);
      assert.deepEqual(card.supportedInterfaces, [{ url: withCard.address, protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
      await assert.rejects(b.getExtendedAgentCard({}), ExtendedAgentCardNotConfiguredError);
    } finally {
      a.close();
      b.close();
      await Promise.all([withCard.close(), noCard.close()]);
    }
  });

  test('TENANT-04 the tenant travels as the request field and scopes tasks', async () => {
    const task = taskOf(await client.sendMessage({ tenant: 'acme', ...send('hi tenant') }));
    assert.equal((await client.getTask({ tenant: 'acme', id: task.id })).id, task.id);
    await assert.rejects(client.getTask({ id: task.id }), TaskNotFoundError);
  });

  test('no internal failures were reported', () => {
    assert.deepEqual(server.errors, []);
  });
});
