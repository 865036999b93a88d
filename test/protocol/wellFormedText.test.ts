/**
 * R19 / GRPC-01: text every binding can carry. A lone UTF-16 surrogate ("\ud800") is valid JSON
 * but has no UTF-8 encoding, so gRPC cannot carry it (protobuf strings are UTF-8): accepted over
 * JSON-RPC or REST and stored, it made every gRPC read of the task fail with INTERNAL (one
 * anonymous caller's message broke gRPC ListTasks for all anonymous callers). Now:
 * - JSON-RPC and REST (1.0 and 0.3) refuse such a string, value or key, with INVALID_PARAMS
 *   naming the field, as the gRPC decoder refuses bad UTF-8;
 * - a task stored with one anyway (before the check, or by a custom store) is answered over gRPC
 *   with U+FFFD in its place, not INTERNAL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetTaskRequestSchema, ListTasksRequestSchema, ListTasksResponseSchema, TaskSchema } from '../../src/gen/a2a_pb.js';
import { jsonToBinary, responseToJson } from '../../src/bindings/grpc/codec.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { Task, TaskState } from '../../src/protocol/types.js';
import { expectError, uid, userMessage } from '../support/assertions.js';
import { jsonRpcBinding, restBinding, type Json, type TestBinding } from '../support/bindings.js';
import { rawRpc } from '../support/jsonrpc.js';
import { startServer, type TestServer } from '../support/server.js';
import { startGrpcServer } from '../grpc/support.js';
import { rawCall } from '../grpc/wire.js';

/** SendMessage params with one lone surrogate at `field` (the field violation expected). */
const CASES: [field: string, params: () => Json][] = [
  ['message.messageId', () => ({ message: userMessage('hi', { messageId: `m-\ud800-${uid()}` }) })],
  ['message.contextId', () => ({ message: userMessage('hi', { contextId: '\udc00a' }) })],
  ['message.parts[0].text', () => ({ message: { ...userMessage('x'), parts: [{ text: 'lone \ud800 surrogate' }] } })],
  ['message.parts[0].url', () => ({ message: { ...userMessage('x'), parts: [{ url: 'https://example.com/\udfff' }] } })],
  ['message.metadata.k', () => ({ message: userMessage('hi', { metadata: { k: 'v\ud800' } }) })],
  ['message.metadata', () => ({ message: userMessage('hi', { metadata: { '\udc00a': 'v' } }) })],
  ['message.parts[0].data.a[1]', () => ({ message: { ...userMessage('x'), parts: [{ data: { a: ['ok', '\ud800'] } }] } })],
  ['message.parts[0].data.nested', () => ({ message: { ...userMessage('x'), parts: [{ data: { nested: { ['\ud800']: 1 } } }] } })],
  ['metadata', () => ({ message: userMessage('hi'), metadata: { '\ud800\ud800': true } })],
];

describe('R19 lone surrogates are refused on entry (JSON-RPC, REST)', () => {
  let server: TestServer;
  let bindings: TestBinding[];
  before(async () => {
    server = await startServer();
    bindings = [jsonRpcBinding(server.jsonRpcUrl), restBinding(server.restUrl)];
  });
  after(() => server.close());

  for (const [field, params] of CASES) {
    test(`SendMessage with a lone surrogate in ${field} → INVALID_PARAMS naming it`, async () => {
      for (const binding of bindings) {
        const e = expectError(await binding.call('sendMessage', params()), 'INVALID_PARAMS', { field });
        assert.match(e.message, /valid UTF-8/, binding.name);
      }
    });
  }

  test('nothing was stored: ListTasks over JSON-RPC finds no task', async () => {
    const res = await bindings[0]?.call('listTasks', {});
    assert.ok(res?.ok);
    assert.deepEqual((res as { result: Json }).result.tasks, []);
  });

  test('the 0.3 dialect (no A2A-Version) is refused the same way, naming the field', async () => {
    const message = { kind: 'message', role: 'user', messageId: uid('m03'), parts: [{ kind: 'text', text: 'a\ud800' }], metadata: { '\udc00': 1 } };
    const answer = await rawRpc(server.jsonRpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } }), { headers: { 'a2a-version': '' } });
    const error = (answer.json as Json).error;
    assert.equal(error.code, -32602, JSON.stringify(error));
    assert.deepEqual(
      error.data.fieldViolations.map((v: Json) => v.field),
      ['message.parts[0].text', 'message.metadata'],
    );
    const res = await fetch(`${server.restUrl}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: uid('m03'), role: 'ROLE_USER', content: [{ text: 'a\ud800' }] } }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as Json;
    assert.equal(body.code, -32602, JSON.stringify(body));
    assert.deepEqual(
      body.data.fieldViolations.map((v: Json) => v.field),
      ['message.parts[0].text'],
    );
  });
});

test('GRPC-01 a task stored with lone surrogates is readable over gRPC GetTask and ListTasks (U+FFFD in their place)', async () => {
  const store = new MemoryTaskStore();
  const task: Task = {
    id: 'lone-1',
    contextId: 'ctx-\ud800',
    status: { state: 'TASK_STATE_COMPLETED' as TaskState, timestamp: '2026-01-05T09:12:44.120Z' },
    history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'lone \udc00 text' }], metadata: { '\ud800k': 'v\udfff' } } as Task['history'] extends (infer M)[] | undefined ? M : never],
    metadata: { ok: 'fine' },
  };
  await store.create('', task);
  const server = await startGrpcServer({ handler: { store } });
  try {
    const got = await rawCall(server.address, 'GetTask', { body: jsonToBinary(GetTaskRequestSchema, { id: 'lone-1' }) });
    assert.equal(got.code, 0, got.details);
    const read = responseToJson(TaskSchema, got.messages[0] as Buffer) as Json;
    assert.equal(read.contextId, 'ctx-\ufffd');
    assert.equal(read.history[0].parts[0].text, 'lone \ufffd text');
    assert.deepEqual(read.history[0].metadata, { '\ufffdk': 'v\ufffd' });
    assert.deepEqual(read.metadata, { ok: 'fine' });
    const listed = await rawCall(server.address, 'ListTasks', { body: jsonToBinary(ListTasksRequestSchema, {}) });
    assert.equal(listed.code, 0, listed.details);
    const page = responseToJson(ListTasksResponseSchema, listed.messages[0] as Buffer) as Json;
    assert.deepEqual(
      page.tasks.map((t: Json) => [t.id, t.contextId]),
      [['lone-1', 'ctx-\ufffd']],
    );
    assert.deepEqual(server.errors, []);
  } finally {
    await server.close();
  }
});
