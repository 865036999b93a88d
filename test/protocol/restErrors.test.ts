/**
 * HTTP+JSON specifics (REST rules, B11, B12, A1, TENANT, JSON-02/03, OPS-05) with raw fetch,
 * so that paths, verbs, bodies and content types are exactly what each test says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_INFO_TYPE, restBinding, type TestBinding, type Json } from '../support/bindings.js';
import { expectError, ok, send, uid, userMessage } from '../support/assertions.js';
import { readSse } from '../support/sse.js';
import { startServer, type TestServer } from '../support/server.js';

const MAX_BODY = 64 * 1024;
let server: TestServer;
let b: TestBinding;
before(async () => {
  server = await startServer({ handler: { maxBodyBytes: MAX_BODY } });
  b = restBinding(server.restUrl);
});
after(() => server.close());

const V = { 'a2a-version': '1.0' };
const JSON_CT = { ...V, 'content-type': 'application/a2a+json' };

async function rest(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(server.restUrl + path, { method, headers: { ...V, ...init.headers }, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function working(): Promise<string> {
  return ok(await b.call('sendMessage', send('slow job', {}, { returnImmediately: true }))).task.id;
}

describe('HTTP+JSON binding specifics', () => {
  /** The ErrorInfo of a REST error body (the first detail, as the error path writes it). */
  function errorInfo(json: Json): Json {
    const info = json.error.details?.[0];
    assert.equal(info?.['@type'], ERROR_INFO_TYPE, JSON.stringify(json));
    return info;
  }

  test('B11 an unknown route is 404 MethodNotFoundError with ErrorInfo (docs/errors.md)', async () => {
    for (const path of ['/nope/x/y', '/tasks/a/b/c/d', '/v1/card', '/']) {
      const res = await rest('GET', path);
      assert.equal(res.status, 404, path);
      assert.deepEqual([res.json.error.code, res.json.error.status], [404, 'UNIMPLEMENTED'], path);
      assert.match(res.json.error.message, /\S/);
      assert.deepEqual([errorInfo(res.json).reason, errorInfo(res.json).domain], ['METHOD_NOT_FOUND', 'a2a-kit'], path);
      assert.equal(res.headers.get('content-type'), 'application/a2a+json');
    }
  });

  test('a path outside both bindings is 404 with a NOT_FOUND Status body', async () => {
    const res = await fetch(`${server.url}/not-a2a`, { headers: V });
    assert.equal(res.status, 404);
    const body = (await res.json()) as Json;
    assert.deepEqual([body.error.code, body.error.status], [404, 'NOT_FOUND']);
  });

  test('B11 a wrong verb is 405 InvalidRequestError with ErrorInfo and an Allow header', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/message:send', 'POST'],
      ['GET', '/message:stream', 'POST'],
      ['DELETE', '/tasks/abc', 'GET, HEAD'],
      ['POST', '/tasks', 'GET, HEAD'],
      ['PATCH', '/tasks/abc:cancel', 'POST'],
      ['POST', '/extendedAgentCard', 'GET, HEAD'],
    ] as const) {
      const res = await rest(method, path);
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      assert.equal(res.json.error.status, 'INVALID_ARGUMENT', `${method} ${path}`);
      assert.equal(errorInfo(res.json).reason, 'INVALID_REQUEST', `${method} ${path}`);
    }
    const sub = await rest('DELETE', '/tasks/abc:subscribe');
    assert.deepEqual(sub.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'HEAD', 'POST']);
  });

  test('REST-07 a 405 Status body carries code 405', async () => {
    const res = await rest('PUT', '/message:send');
    assert.equal(res.json.error.code, 405);
  });

  test('REST-05 POST :cancel accepts an empty body and {}', async () => {
    for (const body of [undefined, '{}']) {
      const id = await working();
      const res = await rest('POST', `/tasks/${id}:cancel`, body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status.state, 'TASK_STATE_CANCELED');
    }
  });

  test('A1 SUB-06 both POST and GET :subscribe stream the task', async () => {
    const id = await working();
    for (const method of ['POST', 'GET']) {
      const controller = new AbortController();
      const res = await fetch(`${server.restUrl}/tasks/${id}:subscribe`, { method, headers: V, signal: controller.signal });
      assert.equal(res.status, 200, method);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      for await (const event of readSse(res.body!)) {
        assert.equal(JSON.parse(event.data).task.id, id, `${method}: the first event is the task`);
        break;
      }
      controller.abort();
    }
    ok(await b.call('cancelTask', { id }));
  });

  test('TENANT-04 TENANT-06 /{tenant}/ routes work and isolate tasks', async () => {
    const created = await rest('POST', '/acme/message:send', { body: JSON.stringify(send('hi acme')), headers: JSON_CT });
    assert.equal(created.status, 200, created.text);
    const id = created.json.task.id;
    assert.equal((await rest('GET', `/acme/tasks/${id}`)).json.id, id);
    const plain = await rest('GET', `/tasks/${id}`);
    assert.deepEqual([plain.status, plain.json.error.details[0].reason], [404, 'TASK_NOT_FOUND']);
    assert.equal((await rest('GET', `/globex/tasks/${id}`)).status, 404);
    const mine = await rest('POST', '/message:send', { body: JSON.stringify(send('hi nobody')), headers: JSON_CT });
    assert.equal((await rest('GET', `/acme/tasks/${mine.json.task.id}`)).status, 404);
    assert.deepEqual((await rest('GET', `/acme/tasks?contextId=${created.json.task.contextId}`)).json.tasks.map((t: Json) => t.id), [id]);
    const cancel = await rest('POST', `/acme/tasks/${id}:cancel`);
    assert.equal(cancel.json.error.details[0].reason, 'TASK_NOT_CANCELABLE', 'the tenant route reaches the task');
    assert.equal((await rest('GET', `/acme/tasks/${id}:subscribe`)).status, 400);
  });

  test('TENANT-04 a body tenant without a path prefix is honoured', async () => {
    const created = await rest('POST', '/message:send', { body: JSON.stringify({ tenant: 'initech', ...send('hi') }), headers: JSON_CT });
    assert.equal(created.status, 200, created.text);
    assert.equal((await rest('GET', `/initech/tasks/${created.json.task.id}`)).status, 200);
    assert.equal((await rest('GET', `/tasks/${created.json.task.id}`)).status, 404);
  });

  test('B12 a body tenant that differs from the path is 400 INVALID_ARGUMENT; the same value is fine', async () => {
    const bad = await rest('POST', '/acme/message:send', { body: JSON.stringify({ tenant: 'globex', ...send('hi') }), headers: JSON_CT });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.status, 'INVALID_ARGUMENT');
    assert.ok(bad.json.error.details.some((d: Json) => d.fieldViolations?.some((v: Json) => v.field === 'tenant')), bad.text);
    const same = await rest('POST', '/acme/message:send', { body: JSON.stringify({ tenant: 'acme', ...send('hi') }), headers: JSON_CT });
    assert.equal(same.status, 200, same.text);
    const id = same.json.task.id;
    const clash = await rest('POST', `/acme/tasks/${id}:cancel`, { body: JSON.stringify({ id: 'other' }), headers: JSON_CT });
    assert.deepEqual([clash.status, clash.json.error.status], [400, 'INVALID_ARGUMENT']);
  });

  test('B12 JSON-10 a null body value next to a path field is unset: the path value is used', async () => {
    const sent = await rest('POST', '/acme/message:send', { body: JSON.stringify({ tenant: null, ...send('slow job', {}, { returnImmediately: true }) }), headers: JSON_CT });
    assert.equal(sent.status, 200, sent.text);
    const id = sent.json.task.id;
    assert.equal((await rest('GET', `/acme/tasks/${id}`)).status, 200, 'the task is under the path tenant');
    const canceled = await rest('POST', `/acme/tasks/${id}:cancel`, { body: JSON.stringify({ id: null, tenant: null }), headers: JSON_CT });
    assert.equal(canceled.status, 200, canceled.text);
    assert.deepEqual([canceled.json.id, canceled.json.status.state], [id, 'TASK_STATE_CANCELED']);
  });

  test('REST-01 A7 responses are application/a2a+json; application/json requests are accepted', async () => {
    for (const contentType of ['application/json', 'application/a2a+json', 'application/json; charset=utf-8']) {
      const res = await rest('POST', '/message:send', { body: JSON.stringify(send('hi')), headers: { 'content-type': contentType } });
      assert.equal(res.status, 200, `${contentType}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/a2a+json');
    }
    const error = await rest('GET', `/tasks/${uid('ghost')}`);
    assert.equal(error.status, 404);
    assert.equal(error.headers.get('content-type'), 'application/a2a+json');
    assert.deepEqual(error.json.error.details.find((d: Json) => d['@type'] === ERROR_INFO_TYPE).domain, 'a2a-protocol.org');
  });

  test('JSON-02 snake_case field names are accepted (body and query)', async () => {
    const contextId = uid('snake');
    const body = { message: { message_id: uid('m'), role: 'ROLE_USER', parts: [{ text: 'hi snake' }], context_id: contextId }, configuration: { history_length: 0 } };
    const res = await rest('POST', '/message:send', { body: JSON.stringify(body), headers: JSON_CT });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.task.contextId, contextId);
    assert.equal('history' in res.json.task, false);
    const listed = await rest('GET', `/tasks?context_id=${contextId}&page_size=1`);
    assert.deepEqual([listed.json.pageSize, listed.json.tasks[0]?.id], [1, res.json.task.id]);
  });

  test('JSON-03 enum values given as integers are accepted', async () => {
    const res = await rest('POST', '/message:send', { body: JSON.stringify({ message: { ...userMessage('hi int'), role: 1 } }), headers: JSON_CT });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.task.history[0].role, 'ROLE_USER', 'normalized to the enum name on output');
  });

  test('OPS-05 unknown fields are ignored', async () => {
    const body = { ...send('hi unknown'), kind: 'message', futureField: { a: 1 } };
    (body.message as Json).kind = 'message';
    (body.message.parts[0] as Json).extra = true;
    const res = await rest('POST', '/message:send', { body: JSON.stringify(body), headers: JSON_CT });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.task.history[0].kind, undefined, 'unknown members are not stored');
  });

  test('REST-04 query values: booleans by name, numbers in decimal', async () => {
    expectError(await b.call('listTasks', { includeArtifacts: 'yes' as Json }), 'INVALID_PARAMS', { field: 'includeArtifacts' });
    expectError(await b.call('getTask', { id: 'x', historyLength: 'two' as Json }), 'INVALID_PARAMS', { field: 'historyLength' });
    const bad = await rest('GET', '/tasks?status=TASK_STATE_RUNNING');
    assert.deepEqual([bad.status, bad.json.error.status], [400, 'INVALID_ARGUMENT']);
  });

  test('REST-05 a malformed or non-object body is 400 INVALID_ARGUMENT', async () => {
    for (const body of ['{"message":', '[1]', '"text"', '']) {
      const res = await rest('POST', '/message:send', { body, headers: JSON_CT });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error.status, 'INVALID_ARGUMENT');
    }
  });

  test('R15 a body over the limit is 413', async () => {
    const res = await rest('POST', '/message:send', { body: JSON.stringify(send('x'.repeat(MAX_BODY + 1))), headers: JSON_CT });
    assert.equal(res.status, 413);
    assert.equal(res.json.error.code, 413);
  });
});
