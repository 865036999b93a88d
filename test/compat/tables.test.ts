/** Compat: error translation, version detection, and the 0.3 method / REST route tables. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_TABLE } from '../../src/protocol/errorTable.js';
import type { A2AErrorReason } from '../../src/protocol/errors.js';
import { OPERATIONS } from '../../src/protocol/operations.js';
import {
  bodyDialect,
  detectVersion,
  errorFromV03,
  errorToV03,
  isFinalV03Event,
  jsonRpcMethodDialect,
  matchV03RestRoute,
  partToV10,
  requestToV10,
  responseDialect,
  restErrorToV03,
  restPathDialect,
  stateToV10,
  statusUpdateToV03,
  V03_METHODS,
  V03_REST_ROUTES,
  V10_JSONRPC_METHODS,
  v03MethodFor,
  v03RestParams,
} from '../../src/compat/index.js';

describe('compat errors', () => {
  test('every reason survives errorToV03 → errorFromV03; A2A codes -32001..-32009 unchanged', () => {
    for (const reason of Object.keys(ERROR_TABLE) as A2AErrorReason[]) {
      const error = ERROR_TABLE[reason].create('boom', { metadata: { taskId: 't1' }, fieldViolations: [{ field: 'id', description: 'bad' }] });
      const wire = errorToV03(error);
      assert.equal(wire.code, ERROR_TABLE[reason].jsonRpcCode);
      assert.ok(wire.data && !Array.isArray(wire.data), '0.3 data is an object');
      const back = errorFromV03(JSON.parse(JSON.stringify(wire)));
      assert.equal(back.reason, reason);
      assert.equal(back.message, 'boom');
      assert.deepEqual(back.metadata, { taskId: 't1' });
      assert.deepEqual(back.fieldViolations, [{ field: 'id', description: 'bad' }]);
    }
  });
  test('plain 0.3 errors (no data) map by code; unknown codes are internal', () => {
    const cases: [number, A2AErrorReason][] = [
      [-32001, 'TASK_NOT_FOUND'],
      [-32002, 'TASK_NOT_CANCELABLE'],
      [-32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
      [-32004, 'UNSUPPORTED_OPERATION'],
      [-32005, 'CONTENT_TYPE_NOT_SUPPORTED'],
      [-32006, 'INVALID_AGENT_RESPONSE'],
      [-32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
      [-32700, 'PARSE_ERROR'],
      [-32600, 'INVALID_REQUEST'],
      [-32601, 'METHOD_NOT_FOUND'],
      [-32602, 'INVALID_PARAMS'],
      [-32603, 'INTERNAL'],
      [-31999, 'INTERNAL'],
    ];
    for (const [code, reason] of cases) assert.equal(errorFromV03({ code, message: 'm' }).reason, reason, String(code));
    assert.equal(errorFromV03(null).reason, 'INTERNAL');
    // A reason in data that contradicts the code is ignored.
    assert.equal(errorFromV03({ code: -32001, message: 'm', data: { reason: 'INTERNAL' } }).reason, 'TASK_NOT_FOUND');
  });
  test('a 1.0-style data array of details is read too', () => {
    const e = errorFromV03({
      code: -32000,
      message: 'no',
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'PERMISSION_DENIED', domain: 'a2a-kit', metadata: { a: 'b' } }],
    });
    assert.equal(e.reason, 'PERMISSION_DENIED');
    assert.deepEqual(e.metadata, { a: 'b' });
  });
  test('REST: status from the 1.0 table, body = the 0.3 error object', () => {
    const { status, body } = restErrorToV03(ERROR_TABLE.TASK_NOT_FOUND.create(undefined, {}));
    assert.equal(status, 404);
    assert.equal(body.code, -32001);
  });
});

describe('compat version detection', () => {
  const supported = ['0.3', '1.0'];
  test('explicit header wins over query; patch dropped; absent → 0.3', () => {
    assert.deepEqual(detectVersion({ header: '1.0.2', query: '0.3' }, { supported }), { version: '1.0', dialect: '1.0', source: 'header' });
    assert.deepEqual(detectVersion({ header: ' ', query: '1.0' }, { supported }), { version: '1.0', dialect: '1.0', source: 'query' });
    assert.deepEqual(detectVersion({}, { supported }), { version: '0.3', dialect: '0.3', source: 'default' });
    assert.deepEqual(detectVersion({ structure: '0.3' }, { supported }), { version: '0.3', dialect: '0.3', source: 'default' });
  });
  test('unparsable or unsupported → VersionNotSupported with metadata', () => {
    assert.throws(() => detectVersion({ header: 'abc' }, { supported }), (e: Error & { reason?: string; metadata?: Record<string, string> }) => {
      assert.equal(e.reason, 'VERSION_NOT_SUPPORTED');
      assert.deepEqual(e.metadata, { requestedVersion: 'abc', supportedVersions: '0.3,1.0' });
      return true;
    });
    assert.throws(() => detectVersion({ header: '2.0' }, { supported }), { reason: 'VERSION_NOT_SUPPORTED' });
    assert.throws(() => detectVersion({}, { supported: ['1.0'] }), { reason: 'VERSION_NOT_SUPPORTED' });
  });
  test('structure never overrides an explicit version; strict by default, lenient opt-in', () => {
    assert.throws(() => detectVersion({ header: '1.0', structure: '0.3' }, { supported }), (e: Error & { metadata?: Record<string, string> }) => {
      assert.equal(e.metadata?.requestShape, '0.3');
      return true;
    });
    assert.throws(() => detectVersion({ header: '0.3', structure: '1.0' }, { supported }), { reason: 'VERSION_NOT_SUPPORTED' });
    assert.throws(() => detectVersion({ structure: '1.0' }, { supported }), { reason: 'VERSION_NOT_SUPPORTED' });
    assert.deepEqual(detectVersion({ structure: '1.0' }, { supported, lenient: true }), { version: '1.0', dialect: '1.0', source: 'structure' });
    assert.throws(() => detectVersion({ header: '0.3', structure: '1.0' }, { supported, lenient: true }), { reason: 'VERSION_NOT_SUPPORTED' });
  });
  test('structural signals', () => {
    assert.equal(jsonRpcMethodDialect('message/send'), '0.3');
    assert.equal(jsonRpcMethodDialect('SendMessage'), '1.0');
    assert.equal(jsonRpcMethodDialect('tasks/list'), undefined);
    assert.equal(jsonRpcMethodDialect(42), undefined);
    assert.deepEqual([...V10_JSONRPC_METHODS].sort(), [...OPERATIONS.values()].map((o) => o.rpc).sort());
    assert.equal(restPathDialect('POST', '/v1/message:send'), '0.3');
    assert.equal(restPathDialect('POST', '/message:send'), undefined);
    assert.equal(bodyDialect({ message: { kind: 'message', role: 'user', parts: [] } }), '0.3');
    assert.equal(bodyDialect({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }), '1.0');
    assert.equal(bodyDialect({ request: { role: 'ROLE_USER', content: [{ text: 'x' }] } }), '0.3');
    assert.equal(bodyDialect({ message: {}, configuration: { blocking: true } }), '0.3');
    assert.equal(bodyDialect({ message: {}, configuration: { returnImmediately: true } }), '1.0');
    assert.equal(bodyDialect({ id: 'x' }), undefined);
    assert.equal(responseDialect({}), '0.3');
    assert.equal(responseDialect({ header: '1.0' }), '1.0');
    assert.equal(responseDialect({ header: '1.0', structure: '0.3' }), '0.3');
  });
});

describe('compat method and route tables', () => {
  test('every 0.3 method maps to a 1.0 operation and back (ListTasks has none)', () => {
    for (const info of Object.values(V03_METHODS)) {
      assert.ok(OPERATIONS.has(info.operation));
      assert.equal(info.streaming, OPERATIONS.get(info.operation)?.streaming);
      if (info.method !== 'message/stream') assert.equal(v03MethodFor(info.operation), info.method);
    }
    assert.equal(v03MethodFor('listTasks'), undefined);
    assert.equal(v03MethodFor('sendStreamingMessage'), 'message/stream');
  });
  test('REST routes: match, decode, 405 vs 404, params', () => {
    const m = matchV03RestRoute('GET', '/v1/tasks/a%2Fb/pushNotificationConfigs/c1');
    assert.equal(m.match?.route.method, 'tasks/pushNotificationConfig/get');
    assert.equal(m.match?.id, 'a/b');
    assert.equal(m.match?.configId, 'c1');
    assert.equal(matchV03RestRoute('GET', '/v1/tasks/t1:cancel').pathMatched, true);
    assert.equal(matchV03RestRoute('GET', '/v1/tasks/t1:cancel').match, undefined);
    assert.equal(matchV03RestRoute('GET', '/v2/tasks/t1').pathMatched, false);
    assert.equal(matchV03RestRoute('get', '/v1/tasks/t1:subscribe').match?.route.method, 'tasks/resubscribe');
    assert.equal(matchV03RestRoute('POST', '/v1/tasks/t1:subscribe').match?.route.method, 'tasks/resubscribe');
    assert.equal(matchV03RestRoute('GET', '/v1/tasks/t1').match?.route.method, 'tasks/get');
    assert.equal(matchV03RestRoute('GET', '/v1/card').match?.route.operation, 'getExtendedAgentCard');
    assert.equal(new Set(V03_REST_ROUTES.map((r) => r.method)).size, Object.keys(V03_METHODS).length);

    const get = matchV03RestRoute('GET', '/v1/tasks/t1').match!;
    assert.deepEqual(v03RestParams(get, { query: new URLSearchParams('history_length=3') }), { id: 't1', historyLength: 3 });
    const create = matchV03RestRoute('POST', '/v1/tasks/t1/pushNotificationConfigs').match!;
    const params = v03RestParams(create, { body: { url: 'https://h.example/x' } });
    assert.deepEqual(requestToV10('tasks/pushNotificationConfig/set', params).request, { taskId: 't1', id: 't1', url: 'https://h.example/x' });
    const del = matchV03RestRoute('DELETE', '/v1/tasks/t1/pushNotificationConfigs/c9').match!;
    assert.deepEqual(requestToV10('tasks/pushNotificationConfig/delete', v03RestParams(del, {})).request, { taskId: 't1', id: 'c9' });
  });
});

describe('compat edge cases', () => {
  test('0.3 input errors name the field', () => {
    assert.throws(() => partToV10({ kind: 'file', file: {} }, 'message.parts[0]'), { message: /message\.parts\[0\]\.file must set one of bytes, uri/ });
    assert.throws(() => partToV10({ kind: 'file', file: { bytes: 'AA==', uri: 'https://x' } }), { message: /must set only one of/ });
    assert.throws(() => partToV10({ kind: 'video' }), { message: /part\.kind/ });
    assert.throws(() => stateToV10('cancelled'), { reason: 'INVALID_PARAMS' });
    assert.throws(() => requestToV10('message/send', { message: { kind: 'message', messageId: 'm', role: 'robot', parts: [] } }), { message: /message\.role/ });
    assert.throws(() => requestToV10('tasks/get', 'x'), { reason: 'INVALID_PARAMS' });
    assert.throws(
      () => requestToV10('tasks/pushNotificationConfig/set', { taskId: 't', pushNotificationConfig: { url: 'u', authentication: { schemes: [], credentials: 'c' } } }),
      { message: /authentication\.schemes/ },
    );
  });
  test('naive 0.3 timestamps are read as UTC; 0.3 blocking defaults', () => {
    const { request } = requestToV10('message/send', {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      configuration: { blocking: false },
    });
    assert.deepEqual((request as { configuration?: unknown }).configuration, { returnImmediately: true });
    assert.equal(
      (requestToV10('message/send', { message: { kind: 'message', messageId: 'm', role: 'user', parts: [] } }).request as { configuration?: unknown }).configuration,
      undefined,
    );
  });
  test('final flag: default terminal or interrupted, overridable; 0.3 message and final status end a stream', () => {
    const ev = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_COMPLETED') => ({ taskId: 't', contextId: 'c', status: { state } });
    assert.equal(statusUpdateToV03(ev('TASK_STATE_WORKING')).final, false);
    assert.equal(statusUpdateToV03(ev('TASK_STATE_INPUT_REQUIRED')).final, true);
    assert.equal(statusUpdateToV03(ev('TASK_STATE_COMPLETED')).final, true);
    assert.equal(statusUpdateToV03(ev('TASK_STATE_INPUT_REQUIRED'), { final: false }).final, false);
    assert.equal(isFinalV03Event({ kind: 'status-update', final: true }), true);
    assert.equal(isFinalV03Event({ kind: 'status-update', final: false }), false);
    assert.equal(isFinalV03Event({ kind: 'message' }), true);
    assert.equal(isFinalV03Event({ kind: 'task' }), false);
  });
});
