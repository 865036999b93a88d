/**
 * OPS-01 / JSON-02 / JSON-03: a REST query string is decoded like a JSON body. A key may be the
 * field's JSON or proto name (`include_artifacts`), an enum may be given by number
 * (`status=4`), and the answer is the one JSON-RPC gives for the same request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, ok, send, uid } from '../support/assertions.js';
import { jsonRpcBinding, restBinding, type CallResult, type Json, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import type { OperationName } from '../../src/protocol/types.js';

describe('OPS-01 JSON-02 JSON-03: REST query strings decode as JSON-RPC params do', () => {
  let server: TestServer;
  let rpc: TestBinding;
  let rest: TestBinding;
  let contextId: string;
  let taskId: string;

  before(async () => {
    server = await startServer();
    rpc = jsonRpcBinding(server.jsonRpcUrl);
    rest = restBinding(server.restUrl);
    contextId = uid('ctx-query');
    taskId = ok(await rpc.call('sendMessage', send('hi there', { contextId }))).task.id;
    ok(await rpc.call('sendMessage', send('fail on purpose', { contextId })));
    ok(await rpc.call('sendMessage', send('ask a question', { contextId })));
  });
  after(() => server.close());

  /** The same request over JSON-RPC (params) and REST (exactly this query string). */
  async function both(op: OperationName, params: Record<string, unknown>, query: Record<string, string>): Promise<[CallResult, CallResult]> {
    const path = op === 'getTask' ? { id: params.id as string } : {};
    return [await rpc.call(op, params), await rest.call(op, path, { query })];
  }

  test('ListTasks: enums by number or name, proto-named keys, booleans by either name', async () => {
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [{ contextId, status: 4 }, { contextId, status: '4' }],
      [{ contextId, status: 'TASK_STATE_FAILED' }, { contextId, status: 'TASK_STATE_FAILED' }],
      [{ context_id: contextId, status: 3 }, { context_id: contextId, status: '3' }],
      [{ contextId, include_artifacts: true }, { contextId, include_artifacts: 'true' }],
      [{ contextId, includeArtifacts: true }, { contextId, includeArtifacts: 'true' }],
      [{ contextId, include_artifacts: false, page_size: 2 }, { contextId, include_artifacts: 'false', page_size: '2' }],
      [{ contextId, history_length: 0 }, { contextId, history_length: '0' }],
    ];
    for (const [params, query] of cases) {
      const [viaRpc, viaRest] = await both('listTasks', params, query);
      const expected = ok(viaRpc);
      assert.ok(expected.tasks.length > 0, JSON.stringify(params));
      assert.deepEqual(ok(viaRest), expected, JSON.stringify(query));
    }
    // The filters took effect: one failed task; artifacts only when asked for.
    const failed = ok((await both('listTasks', { contextId, status: 4 }, { contextId, status: '4' }))[1]);
    assert.deepEqual(failed.tasks.map((t: Json) => t.status.state), ['TASK_STATE_FAILED']);
    const withArtifacts = ok((await both('listTasks', { contextId }, { contextId, include_artifacts: 'true' }))[1]);
    assert.ok(withArtifacts.tasks.some((t: Json) => t.artifacts?.length > 0), 'include_artifacts=true includes artifacts');
  });

  test('GetTask: history_length as historyLength', async () => {
    const [viaRpc, viaRest] = await both('getTask', { id: taskId, history_length: 1 }, { history_length: '1' });
    assert.deepEqual(ok(viaRest), ok(viaRpc));
  });

  test('bad values: the same INVALID_PARAMS field on both bindings', async () => {
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ status: 99 }, { status: '99' }, 'status'],
      [{ status: 'TASK_STATE_RUNNING' }, { status: 'TASK_STATE_RUNNING' }, 'status'],
      [{ include_artifacts: 'yes' }, { include_artifacts: 'yes' }, 'includeArtifacts'],
      [{ includeArtifacts: 'yes' }, { includeArtifacts: 'yes' }, 'includeArtifacts'],
    ];
    for (const [params, query, field] of cases) {
      const [viaRpc, viaRest] = await both('listTasks', params, query);
      const a = expectError(viaRpc, 'INVALID_PARAMS', { field });
      const b = expectError(viaRest, 'INVALID_PARAMS', { field });
      assert.deepEqual(b.fieldViolations.map((v) => v.field), a.fieldViolations.map((v) => v.field), JSON.stringify(query));
    }
  });
});

describe('R19 REST query strings are percent-decoded strictly, like paths', () => {
  let server: TestServer;
  let rpc: TestBinding;
  before(async () => {
    server = await startServer();
    rpc = jsonRpcBinding(server.jsonRpcUrl);
  });
  after(() => server.close());

  /** GET `target` (raw, relative to the REST base) over the socket and in process (the fetch adapter). */
  async function get(target: string, headers: Record<string, string> = { 'a2a-version': '1.0' }): Promise<{ status: number; body: Json }[]> {
    const out: { status: number; body: Json }[] = [];
    for (const res of [await fetch(`${server.restUrl}${target}`, { headers }), await server.handler.fetch(new Request(`http://in.process/a2a/rest${target}`, { headers }))]) {
      out.push({ status: res.status, body: await res.json() });
    }
    return out;
  }

  test('malformed percent-encoding (%FF, %ZZ, a lone %, an encoded surrogate) → 400 INVALID_REQUEST naming the parameter', async () => {
    // A context named U+FFFD: %FF, decoded lossily, used to list it.
    ok(await rpc.call('sendMessage', send('hi', { contextId: '\ufffd' })));
    const cases: [string, string][] = [
      ['contextId=%FF', 'contextId'],
      ['pageSize=10&contextId=%ZZ', 'contextId'],
      ['contextId=a%', 'contextId'],
      ['contextId=%ED%A0%80', 'contextId'],
      ['%FF=1', '%FF'],
      ['include_artifacts=true&status=TASK_STATE_%E0%A4', 'status'],
    ];
    for (const [query, name] of cases) {
      for (const { status, body } of await get(`/tasks?${query}`)) {
        assert.equal(status, 400, query);
        assert.equal(body.error.status, 'INVALID_ARGUMENT', query);
        assert.equal(body.error.details[0].reason, 'INVALID_REQUEST', query);
        assert.equal(body.error.message, `Malformed percent-encoding in query parameter ${JSON.stringify(name)}`, query);
      }
    }
  });

  test('`+` is a space and %2B a plus, in names and values', async () => {
    const contextId = uid('ctx a+b');
    ok(await rpc.call('sendMessage', send('hi', { contextId })));
    const query = `context+Id=x&contextId=${contextId.replace(' ', '+').replace('+b', '%2Bb')}`;
    for (const { status, body } of await get(`/tasks?${query}`)) {
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.tasks.map((t: Json) => t.contextId), [contextId]);
    }
  });

  test('a 0.3 REST GET with a malformed query → 400 in the 0.3 error shape', async () => {
    const taskId = ok(await rpc.call('sendMessage', send('hi'))).task.id;
    for (const { status, body } of await get(`/v1/tasks/${taskId}?historyLength=%ZZ`, {})) {
      assert.equal(status, 400);
      assert.equal(body.code, -32600, JSON.stringify(body));
      assert.match(body.message, /query parameter "historyLength"/);
    }
  });
});
