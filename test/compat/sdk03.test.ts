/**
 * Compat against the official A2A 0.3 JS SDK (`a2a-sdk-03` = @a2a-js/sdk@0.3.x), in process:
 *  - its request handler and JSON-RPC transport handler (the real 0.3 server logic) accept the
 *    0.3 calls `requestToV03` makes from our 1.0 requests, and what it answers (results, stream
 *    events, errors) translates with `resultToV10` / `streamEventToV10` / `errorFromV03` into
 *    1.0 JSON that the generated protobuf-es schemas accept;
 *  - 0.3 objects written against the SDK's types translate into requests `decodeRequest` accepts;
 *  - at compile time (`tsc -p .`), our 0.3 outputs are assignable to the SDK's 0.3 types.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DescMessage } from '@bufbuild/protobuf';
import type * as Sdk from 'a2a-sdk-03';
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore, JsonRpcTransportHandler, type AgentExecutor } from 'a2a-sdk-03/server';
import { decodeRequest } from '../../src/protocol/operations.js';
import type { OperationName, OperationRequests } from '../../src/protocol/types.js';
import {
  agentCardToV03,
  agentCardToV10,
  errorFromV03,
  isFinalV03Event,
  requestToV03,
  requestToV10,
  resultToV03,
  resultToV10,
  sendMessageResultToV03,
  sendRequestToV03,
  statusToV10,
  streamEventToV10,
  streamResponseToV03,
  taskPushConfigToV03,
  type V03UnaryMethod,
} from '../../src/compat/index.js';
import { card10, Gen, message10, pushConfig10, streamResponse10, task10 } from './generators.js';
import { AgentCardSchema, assertProto, SendMessageResponseSchema, StreamResponseSchema, TaskPushNotificationConfigSchema, TaskSchema } from './protoJson.js';

const card03: Sdk.AgentCard = {
  protocolVersion: '0.3.0',
  name: 'sdk 0.3 agent',
  description: 'fixture',
  url: 'https://agent.example.com/a2a/jsonrpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://agent.example.com/a2a/jsonrpc', transport: 'JSONRPC' },
    { url: 'https://agent.example.com/a2a/rest', transport: 'HTTP+JSON' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  supportsAuthenticatedExtendedCard: true,
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    oauth: {
      type: 'oauth2',
      flows: {
        clientCredentials: { tokenUrl: 'https://id.example/token', scopes: { read: 'read' } },
        authorizationCode: { authorizationUrl: 'https://id.example/auth', tokenUrl: 'https://id.example/token', scopes: {} },
      },
    },
    key: { type: 'apiKey', in: 'header', name: 'X-Key' },
  },
  security: [{ bearer: [] }, { oauth: ['read'] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['demo'], security: [{ key: [] }] }],
};

/** A 0.3 agent: "msg …" → a Message; otherwise task → working → artifact (2 chunks) → completed. */
function executor(): AgentExecutor {
  return {
    async execute(ctx, bus) {
      const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      const { taskId, contextId } = ctx;
      if (text.startsWith('msg')) {
        bus.publish({ kind: 'message', messageId: `r-${taskId}`, role: 'agent', contextId, parts: [{ kind: 'text', text: 'hi' }, { kind: 'data', data: { n: 1 } }] });
        bus.finished();
        return;
      }
      if (!ctx.task) bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [ctx.userMessage] });
      bus.publish({ kind: 'status-update', taskId, contextId, final: false, status: { state: 'working', timestamp: '2025-07-31T12:00:00' } });
      for (const [i, chunk] of ['part one ', 'part two'].entries()) {
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          append: i > 0,
          lastChunk: i === 1,
          artifact: { artifactId: 'a1', name: 'out', parts: [{ kind: 'text', text: chunk }, { kind: 'file', file: { uri: 'https://f.example/x.pdf', mimeType: 'application/pdf', name: 'x.pdf' } }] },
        });
      }
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        final: true,
        status: { state: 'completed', message: { kind: 'message', messageId: `done-${taskId}`, role: 'agent', parts: [{ kind: 'text', text: 'done' }] } },
      });
      bus.finished();
    },
    async cancelTask() {},
  };
}

function sdkServer(): JsonRpcTransportHandler {
  const handler = new DefaultRequestHandler(card03, new InMemoryTaskStore(), executor(), undefined, new InMemoryPushNotificationStore(), undefined, card03);
  return new JsonRpcTransportHandler(handler);
}

let rpcId = 0;

/** Calls the 0.3 SDK server with the 0.3 translation of a 1.0 request. */
async function call<K extends OperationName>(server: JsonRpcTransportHandler, operation: K, request: OperationRequests[K]): Promise<unknown> {
  const { method, params } = requestToV03(operation, request);
  const response = await server.handle({ jsonrpc: '2.0', id: ++rpcId, method, ...(params === undefined ? {} : { params }) });
  if (Symbol.asyncIterator in response) throw new Error('unexpected stream');
  if ('error' in response) throw errorFromV03(response.error);
  return (response as { result: unknown }).result;
}

async function stream<K extends OperationName>(server: JsonRpcTransportHandler, operation: K, request: OperationRequests[K]): Promise<unknown[]> {
  const { method, params } = requestToV03(operation, request);
  const response = await server.handle({ jsonrpc: '2.0', id: ++rpcId, method, params });
  assert.ok(Symbol.asyncIterator in response, 'a stream');
  const out: unknown[] = [];
  for await (const item of response as AsyncGenerator<{ result?: unknown; error?: unknown }>) {
    if (item.error) throw errorFromV03(item.error);
    out.push(item.result);
  }
  return out;
}

function check<M extends V03UnaryMethod>(method: M, schema: DescMessage | undefined, result: unknown) {
  const v10 = resultToV10(method, result);
  if (schema) assertProto(schema, v10);
  return v10;
}

const userMessage = (text: string, extra: { taskId?: string } = {}) => ({ messageId: `u-${++rpcId}`, role: 'ROLE_USER' as const, parts: [{ text }], ...extra });

describe('compat against the official 0.3 SDK server (in process)', () => {
  test('every unary method: our 1.0 request → 0.3 call → SDK result → valid 1.0', async () => {
    const server = sdkServer();
    const sent = check('message/send', SendMessageResponseSchema, await call(server, 'sendMessage', { message: userMessage('go') }));
    assert.ok('task' in sent);
    const task = sent.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    // The SDK appends chunks by concatenating their parts.
    assert.deepEqual(task.artifacts?.[0]?.parts, [
      { text: 'part one ' },
      { url: 'https://f.example/x.pdf', mediaType: 'application/pdf', filename: 'x.pdf' },
      { text: 'part two' },
      { url: 'https://f.example/x.pdf', mediaType: 'application/pdf', filename: 'x.pdf' },
    ]);

    const msg = check('message/send', SendMessageResponseSchema, await call(server, 'sendMessage', { message: userMessage('msg'), configuration: { returnImmediately: false } }));
    assert.ok('message' in msg && msg.message.role === 'ROLE_AGENT');
    assert.deepEqual(msg.message.parts, [{ text: 'hi' }, { data: { n: 1 } }]);

    const got = check('tasks/get', TaskSchema, await call(server, 'getTask', { id: task.id, historyLength: 1 }));
    assert.equal(got.id, task.id);
    assert.ok((got.history?.length ?? 0) <= 1);

    await assert.rejects(call(server, 'cancelTask', { id: task.id }), { reason: 'TASK_NOT_CANCELABLE' });
    await assert.rejects(call(server, 'getTask', { id: 'nope' }), { reason: 'TASK_NOT_FOUND' });

    const created = check(
      'tasks/pushNotificationConfig/set',
      TaskPushNotificationConfigSchema,
      await call(server, 'createTaskPushNotificationConfig', { taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } }),
    );
    assert.deepEqual(created, { taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } });
    // No id: both 0.3 SDKs store it under the task id, as our translation makes explicit.
    const defaulted = check('tasks/pushNotificationConfig/set', undefined, await call(server, 'createTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example/2' }));
    assert.equal(defaulted.id, task.id);
    const one = check('tasks/pushNotificationConfig/get', TaskPushNotificationConfigSchema, await call(server, 'getTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }));
    assert.equal(one.url, 'https://hooks.example/1');
    // 0.3 get without a config id = our translation with id = taskId.
    const { request: getDefault } = requestToV10('tasks/pushNotificationConfig/get', { id: task.id });
    assert.equal((check('tasks/pushNotificationConfig/get', undefined, await call(server, 'getTaskPushNotificationConfig', getDefault as never))).url, 'https://hooks.example/2');
    const listed = check('tasks/pushNotificationConfig/list', undefined, await call(server, 'listTaskPushNotificationConfigs', { taskId: task.id, pageSize: 10 }));
    assert.deepEqual(listed.configs?.map((c) => c.id).sort(), ['c1', task.id].sort());
    for (const c of listed.configs ?? []) assertProto(TaskPushNotificationConfigSchema, c);
    assert.deepEqual(check('tasks/pushNotificationConfig/delete', undefined, await call(server, 'deleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' })), {});

    const card = check('agent/getAuthenticatedExtendedCard', AgentCardSchema, await call(server, 'getExtendedAgentCard', {}));
    assert.deepEqual(card.supportedInterfaces, [
      { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }]);
    assert.deepEqual(card.securitySchemes?.oauth, {
      oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://id.example/auth', tokenUrl: 'https://id.example/token', scopes: {} } } },
    });
    assert.deepEqual(card.skills[0]?.securityRequirements, [{ schemes: { key: { list: [] } } }]);
  });

  test('message/stream and tasks/resubscribe: every SDK event is a valid 1.0 StreamResponse; final marks the end', async () => {
    const server = sdkServer();
    const events = await stream(server, 'sendStreamingMessage', { message: userMessage('go') });
    const v10 = events.map((e) => streamEventToV10(e));
    for (const e of v10) assertProto(StreamResponseSchema, e);
    assert.ok('task' in v10[0]!);
    assert.deepEqual(
      v10.map((e) => Object.keys(e)[0]),
      ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    assert.deepEqual(events.map(isFinalV03Event), [false, false, false, false, true]);
    const working = v10[1] as { statusUpdate: { status: { timestamp?: string } } };
    assert.equal(working.statusUpdate.status.timestamp, '2025-07-31T12:00:00Z', 'naive 0.3 timestamp read as UTC');
    // And back: our down-conversion reproduces the SDK's final flags.
    assert.deepEqual(v10.map((e) => isFinalV03Event(streamResponseToV03(e))), [false, false, false, false, true]);

    const taskId = (v10[0] as { task: { id: string } }).task.id;
    const resub = await stream(server, 'subscribeToTask', { id: taskId }).catch((e: unknown) => e);
    // The SDK refuses to resubscribe to a terminal task; whichever way, the answer translates.
    if (Array.isArray(resub)) for (const e of resub) assertProto(StreamResponseSchema, streamEventToV10(e));
    else assert.equal((resub as { reason?: string }).reason, 'UNSUPPORTED_OPERATION');
  });

  test('0.3 objects written against the SDK types translate into valid 1.0 requests', () => {
    const params: Sdk.MessageSendParams = {
      message: {
        kind: 'message',
        messageId: 'm1',
        role: 'user',
        contextId: 'ctx',
        parts: [
          { kind: 'text', text: 'hello', metadata: { a: 1 } },
          { kind: 'file', file: { bytes: 'SGVsbG8=', mimeType: 'text/plain', name: 'h.txt' } },
          { kind: 'file', file: { uri: 'https://x.example/y' } },
          { kind: 'data', data: { k: [1, 2] } },
        ],
      },
      configuration: {
        blocking: false,
        historyLength: 2,
        acceptedOutputModes: ['text/plain'],
        pushNotificationConfig: { url: 'https://hooks.example/p', token: 't', authentication: { schemes: ['Bearer', 'Basic'], credentials: 'c' } },
      },
      metadata: { trace: 'x' },
    };
    const { operation, request } = requestToV10('message/send', params);
    const decoded = decodeRequest(operation, request);
    assert.deepEqual(decoded, {
      message: {
        messageId: 'm1',
        role: 'ROLE_USER',
        contextId: 'ctx',
        parts: [
          { text: 'hello', metadata: { a: 1 } },
          { raw: 'SGVsbG8=', mediaType: 'text/plain', filename: 'h.txt' },
          { url: 'https://x.example/y' },
          { data: { k: [1, 2] } },
        ],
      },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        historyLength: 2,
        returnImmediately: true,
        taskPushNotificationConfig: { url: 'https://hooks.example/p', token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } },
      },
      metadata: { trace: 'x' },
    });
    const get: Sdk.TaskQueryParams = { id: 't1', historyLength: 0, metadata: { m: 1 } };
    assert.deepEqual(decodeRequest('getTask', requestToV10('tasks/get', get).request), { id: 't1', historyLength: 0 });
    const set: Sdk.TaskPushNotificationConfig = { taskId: 't1', pushNotificationConfig: { url: 'https://h.example' } };
    assert.deepEqual(decodeRequest('createTaskPushNotificationConfig', requestToV10('tasks/pushNotificationConfig/set', set).request), { taskId: 't1', id: 't1', url: 'https://h.example' });
    const card = agentCardToV10(card03);
    assertProto(AgentCardSchema, card);
    assert.equal(statusToV10({ state: 'working', timestamp: '2025-07-31T12:00:00.5' }).timestamp, '2025-07-31T12:00:00.5Z');
  });

  test('compile time: our 0.3 outputs are assignable to the SDK 0.3 types', () => {
    const g = new Gen(7);
    const task: Sdk.Task = resultToV03('tasks/get', task10(g));
    const sent: Sdk.Task | Sdk.Message = sendMessageResultToV03({ message: message10(g) });
    const event: Sdk.Task | Sdk.Message | Sdk.TaskStatusUpdateEvent | Sdk.TaskArtifactUpdateEvent = streamResponseToV03(streamResponse10(g));
    const tpnc: Sdk.TaskPushNotificationConfig = taskPushConfigToV03(pushConfig10(g));
    const list: Sdk.TaskPushNotificationConfig[] = resultToV03('tasks/pushNotificationConfig/list', { configs: [pushConfig10(g)] });
    const card: Sdk.AgentCard = agentCardToV03(card10(g));
    const params: Sdk.MessageSendParams = sendRequestToV03({ message: message10(g, 'ROLE_USER'), configuration: { taskPushNotificationConfig: pushConfig10(g) } });
    assert.ok(task && sent && event && tpnc && list && card && params);
  });
});
