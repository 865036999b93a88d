/**
 * R19 / RPC-06: exact JSON-RPC errors for a table-driven corpus of broken requests, each
 * answered with a well-formed envelope on HTTP 200 (B6), except the transport refusals 405/413.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_TABLE } from '../../src/protocol/errorTable.js';
import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE, type Json } from '../support/bindings.js';
import { answerProblem, envelopeProblem, rawRpc, type RawAnswer } from '../support/jsonrpc.js';
import { startServer, type TestServer } from '../support/server.js';

/** A small body limit keeps the 413 case fast and within socket buffers (see test/node for R15 at scale). */
const MAX_BODY = 64 * 1024;
let server: TestServer;
before(async () => {
  server = await startServer({ handler: { maxBodyBytes: MAX_BODY } });
});
after(() => server.close());

const msg = (over: Record<string, unknown> = {}) => ({ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...over });
const rpc = (method: string, params?: unknown, id: unknown = 7) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });

interface Case {
  name: string;
  body: string;
  code: number;
  /** The id the answer must carry. */
  id: unknown;
  /** For -32602: the BadRequest field violation expected. */
  field?: string;
  headers?: Record<string, string>;
}

const ENVELOPE: Case[] = [
  { name: 'invalid JSON', body: '{"jsonrpc":"2.0","id":1,', code: -32700, id: null },
  { name: 'empty body', body: '', code: -32700, id: null },
  { name: 'a JSON string', body: '"SendMessage"', code: -32600, id: null },
  { name: 'a JSON number', body: '42', code: -32600, id: null },
  { name: 'JSON null', body: 'null', code: -32600, id: null },
  { name: 'an empty batch', body: '[]', code: -32600, id: null },
  { name: 'a batch (B8)', body: `[${rpc('GetTask', { id: 'x' })}]`, code: -32600, id: null },
  { name: 'jsonrpc missing', body: JSON.stringify({ id: 3, method: 'GetTask', params: { id: 'x' } }), code: -32600, id: 3 },
  { name: 'jsonrpc "1.0"', body: JSON.stringify({ jsonrpc: '1.0', id: 'a', method: 'GetTask', params: {} }), code: -32600, id: 'a' },
  { name: 'jsonrpc as number 2', body: JSON.stringify({ jsonrpc: 2, id: 4, method: 'GetTask', params: {} }), code: -32600, id: 4 },
  { name: 'id missing (notification, B8)', body: JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: 'x' } }), code: -32600, id: null },
  { name: 'id null', body: rpc('GetTask', { id: 'x' }, null), code: -32600, id: null },
  { name: 'id an object', body: rpc('GetTask', { id: 'x' }, { a: 1 }), code: -32600, id: null },
  { name: 'id an array', body: rpc('GetTask', { id: 'x' }, [1]), code: -32600, id: null },
  { name: 'id a boolean', body: rpc('GetTask', { id: 'x' }, true), code: -32600, id: null },
  // RPC-09: JSON.parse rounds 2^53 + 1 to 2^53; echoing that would answer another request.
  { name: 'id an integer beyond 2^53 (RPC-09)', body: '{"jsonrpc":"2.0","id":9007199254740993,"method":"GetTask","params":{"id":"x"}}', code: -32600, id: null },
  { name: 'id 1e300 (RPC-09)', body: '{"jsonrpc":"2.0","id":1e300,"method":"GetTask","params":{"id":"x"}}', code: -32600, id: null },
  { name: 'id 2^53 - 1 is kept (RPC-09)', body: '{"jsonrpc":"2.0","id":9007199254740991,"method":"NoSuchMethod","params":{}}', code: -32601, id: 9007199254740991 },
  { name: 'params an array', body: rpc('GetTask', ['x'], 5), code: -32600, id: 5 },
  { name: 'params a string', body: rpc('GetTask', 'x', 6), code: -32600, id: 6 },
  { name: 'params null', body: rpc('GetTask', null, 8), code: -32600, id: 8 },
  { name: 'method missing', body: JSON.stringify({ jsonrpc: '2.0', id: 9, params: {} }), code: -32600, id: 9 },
  { name: 'method a number', body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 1, params: {} }), code: -32600, id: 10 },
  { name: 'nesting deeper than 32 (R16)', body: `{"jsonrpc":"2.0","id":11,"method":"GetTask","params":{"id":${'['.repeat(5000)}${']'.repeat(5000)}}}`, code: -32600, id: null },
  { name: 'unknown method', body: rpc('NoSuchMethod', {}, 'u1'), code: -32601, id: 'u1' },
  { name: 'a 0.3 method name with A2A-Version 1.0', body: rpc('message/send', { message: msg() }, 'u2'), code: -32601, id: 'u2' },
  { name: 'a 0.3 method name tasks/get', body: rpc('tasks/get', { id: 'x' }, 'u3'), code: -32601, id: 'u3' },
  { name: 'method names are case-sensitive', body: rpc('sendMessage', { message: msg() }, 'u4'), code: -32601, id: 'u4' },
  { name: 'method __proto__', body: rpc('__proto__', {}, 'u5'), code: -32601, id: 'u5' },
  { name: 'method constructor', body: rpc('constructor', {}, 'u6'), code: -32601, id: 'u6' },
  { name: 'a float id is echoed', body: rpc('NoSuchMethod', {}, 1.5), code: -32601, id: 1.5 },
  { name: 'a negative id is echoed', body: rpc('NoSuchMethod', {}, -3), code: -32601, id: -3 },
  { name: 'an empty-string id is echoed', body: rpc('NoSuchMethod', {}, ''), code: -32601, id: '' },
];

const send = (message: unknown, configuration?: unknown) => ({ message, ...(configuration !== undefined ? { configuration } : {}) });
const PARAMS: Case[] = (
  [
    ['unknown role enum ROLE_X', 'SendMessage', send(msg({ role: 'ROLE_X' })), 'message.role'],
    ['role ROLE_AGENT from a client (C3)', 'SendMessage', send(msg({ role: 'ROLE_AGENT' })), 'message.role'],
    ['role ROLE_UNSPECIFIED', 'SendMessage', send(msg({ role: 'ROLE_UNSPECIFIED' })), 'message.role'],
    ['role missing', 'SendMessage', send(msg({ role: undefined })), 'message.role'],
    ['messageId missing', 'SendMessage', send(msg({ messageId: undefined })), 'message.messageId'],
    ['messageId a number', 'SendMessage', send(msg({ messageId: 12 })), 'message.messageId'],
    ['message missing', 'SendMessage', {}, 'message'],
    ['message a string', 'SendMessage', { message: 'hi' }, 'message'],
    ['parts not an array', 'SendMessage', send(msg({ parts: { text: 'hi' } })), 'message.parts'],
    ['parts empty', 'SendMessage', send(msg({ parts: [] })), 'message.parts'],
    ['a part with two content members', 'SendMessage', send(msg({ parts: [{ text: 'a', data: { b: 1 } }] })), 'message.parts[0]'],
    ['a part with no content member', 'SendMessage', send(msg({ parts: [{ mediaType: 'text/plain' }] })), 'message.parts[0]'],
    ['a raw part that is not base64', 'SendMessage', send(msg({ parts: [{ raw: 'not base64!' }] })), 'message.parts[0].raw'],
    ['a text part that is a number', 'SendMessage', send(msg({ parts: [{ text: 5 }] })), 'message.parts[0].text'],
    ['negative configuration.historyLength', 'SendMessage', send(msg(), { historyLength: -1 }), 'configuration.historyLength'],
    ['returnImmediately a string', 'SendMessage', send(msg(), { returnImmediately: 'yes' }), 'configuration.returnImmediately'],
    [
      'taskPushNotificationConfig with a taskId',
      'SendMessage',
      send(msg(), { taskPushNotificationConfig: { url: 'https://hooks.example.com/x', taskId: 't-1' } }),
      'configuration.taskPushNotificationConfig.taskId',
    ],
    ['streaming: role ROLE_X', 'SendStreamingMessage', send(msg({ role: 'ROLE_X' })), 'message.role'],
    ['GetTask negative historyLength', 'GetTask', { id: 'x', historyLength: -1 }, 'historyLength'],
    ['GetTask fractional historyLength', 'GetTask', { id: 'x', historyLength: 1.5 }, 'historyLength'],
    ['GetTask id missing', 'GetTask', {}, 'id'],
    ['GetTask id a number', 'GetTask', { id: 42 }, 'id'],
    ['ListTasks unknown status TASK_STATE_RUNNING', 'ListTasks', { status: 'TASK_STATE_RUNNING' }, 'status'],
    ['ListTasks 0.3 status "working"', 'ListTasks', { status: 'working' }, 'status'],
    ['ListTasks bad statusTimestampAfter', 'ListTasks', { statusTimestampAfter: 'yesterday' }, 'statusTimestampAfter'],
    ['ListTasks impossible timestamp', 'ListTasks', { statusTimestampAfter: '2024-13-45T99:00:00Z' }, 'statusTimestampAfter'],
    ['ListTasks pageSize 0', 'ListTasks', { pageSize: 0 }, 'pageSize'],
    ['ListTasks pageSize 101', 'ListTasks', { pageSize: 101 }, 'pageSize'],
    ['ListTasks pageSize a word', 'ListTasks', { pageSize: 'ten' }, 'pageSize'],
    ['ListTasks includeArtifacts a string', 'ListTasks', { includeArtifacts: 'true' }, 'includeArtifacts'],
    ['ListTasks negative historyLength', 'ListTasks', { historyLength: -2 }, 'historyLength'],
    ['CancelTask id missing', 'CancelTask', {}, 'id'],
    ['SubscribeToTask id missing', 'SubscribeToTask', {}, 'id'],
  ] as const
).map(([name, method, params, field], i) => ({ name: `-32602 ${name}`, body: rpc(method, params, `p${i}`), code: -32602, id: `p${i}`, field }));

function check(answer: RawAnswer, c: Case): Json {
  assert.equal(answerProblem(answer, c.id), undefined, `${answerProblem(answer, c.id)} in ${answer.text.slice(0, 400)}`);
  const body = answer.json as Json;
  assert.equal(body.error?.code, c.code, answer.text.slice(0, 400));
  return body.error;
}

describe('R19 JSON-RPC envelope corpus', () => {
  for (const c of [...ENVELOPE, ...PARAMS]) {
    test(`${c.code} ${c.name}`, async () => {
      const error = check(await rawRpc(server.jsonRpcUrl, c.body, { headers: c.headers ?? {} }), c);
      const info = error.data?.find((d: Json) => d['@type'] === ERROR_INFO_TYPE);
      const row = Object.entries(ERROR_TABLE).find(([, r]) => r.jsonRpcCode === c.code)?.[0];
      assert.equal(info?.reason, row, 'ErrorInfo.reason names the condition');
      if (c.field !== undefined) {
        const bad = error.data.find((d: Json) => d['@type'] === BAD_REQUEST_TYPE);
        assert.ok(bad, `a google.rpc.BadRequest in error.data: ${JSON.stringify(error.data)}`);
        const fields = bad.fieldViolations.map((v: Json) => v.field);
        assert.ok(fields.includes(c.field), `field ${c.field} in ${JSON.stringify(fields)}`);
        for (const v of bad.fieldViolations) assert.match(v.description, /\S/);
      }
    });
  }

  test('RPC-03 GetExtendedAgentCard may omit params (-32004 here: the card declares none)', async () => {
    const error = check(await rawRpc(server.jsonRpcUrl, rpc('GetExtendedAgentCard', undefined, 'x1')), { name: '', body: '', code: -32004, id: 'x1' });
    assert.equal(error.data[0].domain, 'a2a-protocol.org');
  });

  test('all violations of a request are reported together', async () => {
    const body = rpc('SendMessage', send({ role: 'ROLE_X', parts: [] }), 'multi');
    const error = check(await rawRpc(server.jsonRpcUrl, body), { name: '', body, code: -32602, id: 'multi' });
    const fields = error.data.find((d: Json) => d['@type'] === BAD_REQUEST_TYPE).fieldViolations.map((v: Json) => v.field).sort();
    assert.deepEqual(fields, ['message.messageId', 'message.parts', 'message.role']);
  });

  test('B6 GET is 405 with Allow: POST and a JSON-RPC error body', async () => {
    const answer = await rawRpc(server.jsonRpcUrl, undefined, { method: 'GET' });
    assert.equal(answer.status, 405);
    assert.equal((answer.headers as Headers).get('allow'), 'POST');
    assert.equal(envelopeProblem(answer.json, null), undefined);
    assert.equal((answer.json as Json).error.code, -32600);
  });

  test('R15 a body over the limit is 413 with a JSON-RPC error body', async () => {
    const body = rpc('SendMessage', send(msg({ parts: [{ text: 'x'.repeat(MAX_BODY + 10) }] })), 'big');
    const answer = await rawRpc(server.jsonRpcUrl, body);
    assert.equal(answer.status, 413);
    assert.equal(envelopeProblem(answer.json, null), undefined, 'the body is refused unread, so the id is null');
    assert.equal((answer.json as Json).error.code, ERROR_TABLE.PAYLOAD_TOO_LARGE.jsonRpcCode);
  });

  test('the server still answers a valid request afterwards', async () => {
    const answer = await rawRpc(server.jsonRpcUrl, rpc('ListTasks', { pageSize: 1 }, 'alive'));
    assert.equal(answerProblem(answer, 'alive'), undefined);
    assert.equal((answer.json as Json).result.pageSize, 1);
  });
});
