/**
 * gRPC errors (§10.6, GRPC-03, ERR-01..03): every A2A condition the server can raise, seen on
 * the wire — the status code from the 1.0.1 table, grpc-message, and the google.rpc.Status in
 * `grpc-status-details-bin` decoded by hand (googleapis field numbers) with its ErrorInfo
 * (reason, domain a2a-protocol.org, metadata) and BadRequest field violations. Then the client
 * side: the trailer back to the typed error classes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { Metadata, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { fromGrpcError, toGrpcError, decodeStatus, STATUS_DETAILS_KEY } from '../../src/bindings/grpc/errors.js';
import { A2AClientError } from '../../src/client/errors.js';
import {
  CancelTaskRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
} from '../../src/gen/a2a_pb.js';
import { A2A_ERROR_DOMAIN, A2AError, type A2AErrorReason } from '../../src/protocol/errors.js';
import { ERROR_TABLE, GRPC_STATUS_CODES, KIT_ERROR_DOMAIN } from '../../src/protocol/errorTable.js';
import { uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';
import { deepStruct, lengthDelimited, rawCall, readFields, trailerError, type RawOutcome } from './wire.js';

const EXT = 'https://example.com/extensions/audit/v1';

function bytes(schema: DescMessage, json: object): Uint8Array {
  return toBinary(schema, fromJson(schema, json as JsonValue));
}

function message(text: string, extra: object = {}) {
  return { message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text }], ...extra } };
}

/** Asserts the outcome is `reason` per ERROR_TABLE, with the trailer consistent with the status. */
function expectWireError(out: RawOutcome, reason: A2AErrorReason, expect: { metadata?: Record<string, string>; field?: string } = {}) {
  const row = ERROR_TABLE[reason];
  assert.equal(out.code, GRPC_STATUS_CODES[row.grpcStatus], `gRPC status of ${reason} is ${row.grpcStatus} (got ${out.code}: ${out.details})`);
  assert.ok(out.details.length > 0, 'grpc-message is not empty');
  const t = trailerError(out.trailers);
  assert.ok(t, 'grpc-status-details-bin is present (GRPC-03)');
  assert.equal(t.status.code, out.code, 'Status.code equals the call status');
  assert.equal(t.status.message, out.details, 'Status.message equals grpc-message');
  assert.ok(t.errorInfo, 'an ErrorInfo detail (ERR-02)');
  assert.equal(t.errorInfo.reason, reason);
  assert.equal(t.errorInfo.domain, row.a2a ? A2A_ERROR_DOMAIN : KIT_ERROR_DOMAIN);
  for (const [k, v] of Object.entries(expect.metadata ?? {})) assert.equal(t.errorInfo.metadata[k], v, `ErrorInfo.metadata.${k}`);
  if (expect.field) assert.ok(t.violations.some((v) => v.field === expect.field), `a BadRequest violation for ${expect.field}: ${JSON.stringify(t.violations)}`);
  for (const d of t.status.details) assert.match(d.typeUrl, /^type\.googleapis\.com\/google\.rpc\.(ErrorInfo|BadRequest)$/);
  return t;
}

describe('gRPC errors on the wire (trailer decoded by hand)', () => {
  let server: GrpcTestServer;
  let extServer: GrpcTestServer;
  let xcardServer: GrpcTestServer;
  /** The demo card declares push notifications; this one explicitly does not. */
  let noPushServer: GrpcTestServer;
  before(async () => {
    server = await startGrpcServer();
    noPushServer = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
    extServer = await startGrpcServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, extensions: [{ uri: EXT, required: true }] } }) });
    xcardServer = await startGrpcServer({
      card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }),
      handler: {
        extendedAgentCard: () => {
          throw new Error('secret database password in a stack trace');
        },
      },
      // An extended card is for authenticated callers (XCARD-03): a gateway does it here.
      grpc: { auth: 'external' },
    });
  });
  after(() => Promise.all([server.close(), extServer.close(), xcardServer.close(), noPushServer.close()]));

  const completedTask = async (): Promise<string> => {
    const out = await rawCall(server.address, 'SendMessage', { body: bytes(SendMessageRequestSchema, message('hi')) });
    assert.equal(out.code, grpcStatus.OK);
    // SendMessageResponse.task (1) → Task.id (1): read with the generic reader.
    const task = readFields(out.messages[0] as Buffer).find((f) => f.no === 1)?.bytes as Uint8Array;
    return new TextDecoder().decode(readFields(task).find((f) => f.no === 1)?.bytes);
  };

  test('TASK_NOT_FOUND → NOT_FOUND with metadata.taskId', async () => {
    const out = await rawCall(server.address, 'GetTask', { body: bytes(GetTaskRequestSchema, { id: 'ghost-1' }) });
    expectWireError(out, 'TASK_NOT_FOUND', { metadata: { taskId: 'ghost-1' } });
  });

  test('TASK_NOT_CANCELABLE → FAILED_PRECONDITION (R5)', async () => {
    const id = await completedTask();
    expectWireError(await rawCall(server.address, 'CancelTask', { body: bytes(CancelTaskRequestSchema, { id }) }), 'TASK_NOT_CANCELABLE', { metadata: { taskId: id } });
  });

  test('PUSH_NOTIFICATION_NOT_SUPPORTED → FAILED_PRECONDITION (1.0.1, not UNIMPLEMENTED)', async () => {
    const out = await rawCall(noPushServer.address, 'CreateTaskPushNotificationConfig', { body: bytes(TaskPushNotificationConfigSchema, { taskId: 't', url: 'https://h.example/x' }) });
    expectWireError(out, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    for (const rpc of ['GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']) {
      expectWireError(await rawCall(noPushServer.address, rpc, { body: new Uint8Array() }), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  });

  test('UNSUPPORTED_OPERATION → FAILED_PRECONDITION: SubscribeToTask on a terminal task (before any event), no extended card', async () => {
    const id = await completedTask();
    const out = await rawCall(server.address, 'SubscribeToTask', { body: bytes(SubscribeToTaskRequestSchema, { id }), stream: true });
    expectWireError(out, 'UNSUPPORTED_OPERATION', { metadata: { taskId: id } });
    assert.equal(out.messages.length, 0, 'STREAM-12: no event before the error');
    assert.equal(out.headers, undefined, 'a trailers-only response');
    expectWireError(await rawCall(server.address, 'GetExtendedAgentCard', { body: bytes(GetExtendedAgentCardRequestSchema, {}) }), 'UNSUPPORTED_OPERATION');
  });

  test('CONTENT_TYPE_NOT_SUPPORTED → INVALID_ARGUMENT', async () => {
    const body = bytes(SendMessageRequestSchema, message('x', { parts: [{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }] }));
    expectWireError(await rawCall(server.address, 'SendMessage', { body }), 'CONTENT_TYPE_NOT_SUPPORTED', { metadata: { mediaType: 'image/png' } });
  });

  test('EXTENSION_SUPPORT_REQUIRED → FAILED_PRECONDITION; a2a-extensions metadata activates it and is echoed (EXT-05)', async () => {
    const body = bytes(SendMessageRequestSchema, message('hi'));
    expectWireError(await rawCall(extServer.address, 'SendMessage', { body }), 'EXTENSION_SUPPORT_REQUIRED', { metadata: { extension: EXT } });
    const ok = await rawCall(extServer.address, 'SendMessage', { body, metadata: { 'a2a-version': '1.0', 'a2a-extensions': `https://other.example/v1, ${EXT}` } });
    assert.equal(ok.code, grpcStatus.OK);
    assert.equal(ok.headers?.get('a2a-extensions')[0], EXT);
    assert.equal(ok.headers?.get('a2a-version')[0], '1.0');
  });

  test('VERSION_NOT_SUPPORTED → FAILED_PRECONDITION with requested and supported versions', async () => {
    const out = await rawCall(server.address, 'GetTask', { body: bytes(GetTaskRequestSchema, { id: 'x' }), metadata: {} });
    expectWireError(out, 'VERSION_NOT_SUPPORTED', { metadata: { requestedVersion: '0.3', supportedVersions: '1.0,0.3' } });
  });

  test('INVALID_PARAMS → INVALID_ARGUMENT with BadRequest field violations (OPS-03)', async () => {
    expectWireError(await rawCall(server.address, 'ListTasks', { body: bytes(ListTasksRequestSchema, { pageSize: 0 }) }), 'INVALID_PARAMS', { field: 'pageSize' });
    const t = expectWireError(await rawCall(server.address, 'SendMessage', { body: new Uint8Array() }), 'INVALID_PARAMS', { field: 'message' });
    assert.equal(t.violations[0]?.description, 'is required');
    const noParts = bytes(SendMessageRequestSchema, { message: { messageId: 'm', role: 'ROLE_USER' } });
    expectWireError(await rawCall(server.address, 'SendMessage', { body: noParts }), 'INVALID_PARAMS', { field: 'message.parts' });
    const agentRole = bytes(SendMessageRequestSchema, message('hi', { role: 'ROLE_AGENT' }));
    expectWireError(await rawCall(server.address, 'SendMessage', { body: agentRole }), 'INVALID_PARAMS', { field: 'message.role' });
  });

  test('values protobuf can carry but A2A cannot: an unknown enum number, an out-of-range Timestamp', async () => {
    // ListTasksRequest.status (3) = 42; ListTasksRequest.status_timestamp_after (7) = {seconds: 2^40}.
    const unknownEnum = Uint8Array.of(3 << 3, 42);
    expectWireError(await rawCall(server.address, 'ListTasks', { body: unknownEnum }), 'INVALID_PARAMS', { field: 'status' });
    const ts = Uint8Array.of(0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20); // field 1 varint 2^40
    const badTimestamp = Uint8Array.of((7 << 3) | 2, ts.length, ...ts);
    expectWireError(await rawCall(server.address, 'ListTasks', { body: badTimestamp }), 'INVALID_PARAMS', { field: 'statusTimestampAfter' });
  });

  test('a string that is not UTF-8 (proto3 strings are) → INVALID_ARGUMENT at its field, not a U+FFFD lookup', async () => {
    expectWireError(await rawCall(server.address, 'GetTask', { body: Uint8Array.of(0x12, 0x03, 0x61, 0xff, 0xfe) }), 'INVALID_PARAMS', { field: 'id' });
  });

  test('R16 nesting deeper than 32 levels (a Struct in metadata) → INVALID_REQUEST; 10,000 levels too, and the server stays up', async () => {
    const base = bytes(SendMessageRequestSchema, message('hi'));
    for (const levels of [40, 10_000]) {
      const body = Uint8Array.from([...base, ...lengthDelimited(4, deepStruct(levels))]);
      expectWireError(await rawCall(server.address, 'SendMessage', { body }), 'INVALID_REQUEST');
    }
    const fine = Uint8Array.from([...base, ...lengthDelimited(4, deepStruct(10))]);
    assert.equal((await rawCall(server.address, 'SendMessage', { body: fine })).code, grpcStatus.OK);
  });

  test('bytes that are not the request message → INVALID_ARGUMENT (PARSE_ERROR), not grpc-js INTERNAL', async () => {
    const garbage = Uint8Array.of(0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01);
    expectWireError(await rawCall(server.address, 'GetTask', { body: garbage }), 'PARSE_ERROR');
    expectWireError(await rawCall(server.address, 'SendStreamingMessage', { body: garbage, stream: true }), 'PARSE_ERROR');
  });

  test('an internal failure → INTERNAL "Internal error" with ErrorInfo, nothing leaked; onError saw it', async () => {
    const out = await rawCall(xcardServer.address, 'GetExtendedAgentCard', { body: new Uint8Array() });
    expectWireError(out, 'INTERNAL');
    assert.equal(out.details, 'Internal error');
    assert.doesNotMatch(JSON.stringify(out.trailers.toJSON()), /password|stack/);
    assert.ok(xcardServer.errors.some((e) => e instanceof Error && e.message.includes('password')));
  });

  test('an rpc the service does not have → UNIMPLEMENTED (grpc-js), read by the client as METHOD_NOT_FOUND', async () => {
    const out = await rawCall(server.address, 'NoSuchRpc', { body: new Uint8Array() });
    assert.equal(out.code, grpcStatus.UNIMPLEMENTED);
    const e = fromGrpcError(Object.assign(new Error(out.details), { code: out.code, details: out.details, metadata: out.trailers }) as ServiceError);
    assert.ok(A2AError.is(e) && e.reason === 'METHOD_NOT_FOUND');
  });
});

describe('gRPC error codec (no sockets)', () => {
  const serviceError = (status: { code: number; details: string; metadata: Metadata }): ServiceError =>
    Object.assign(new Error(`${status.code} ${status.details}`), status) as ServiceError;

  test('every ERROR_TABLE reason survives toGrpcError → fromGrpcError as its own class, metadata and violations included', () => {
    for (const [reason, row] of Object.entries(ERROR_TABLE) as [A2AErrorReason, (typeof ERROR_TABLE)[A2AErrorReason]][]) {
      const original = row.create(`boom ${reason}`, { metadata: { taskId: 't-1' }, fieldViolations: [{ field: 'a.b', description: 'bad' }] });
      const status = toGrpcError(original);
      assert.equal(status.code, GRPC_STATUS_CODES[row.grpcStatus], reason);
      const back = fromGrpcError(serviceError(status));
      assert.ok(A2AError.is(back), `${reason} comes back as an A2AError`);
      assert.equal(back.constructor, original.constructor, reason);
      assert.equal(back.reason, reason);
      assert.equal(back.message, `boom ${reason}`);
      assert.deepEqual(back.metadata, { taskId: 't-1' });
      assert.deepEqual(back.fieldViolations, [{ field: 'a.b', description: 'bad' }]);
    }
  });

  test('anything thrown that is not an A2AError is INTERNAL "Internal error"', () => {
    const status = toGrpcError(new TypeError('x is undefined'));
    assert.equal(status.code, grpcStatus.INTERNAL);
    assert.equal(status.details, 'Internal error');
  });

  test('ErrorInfo.reason decides over the status code (a 1.0.0 server sends UNIMPLEMENTED for UNSUPPORTED_OPERATION)', () => {
    const status = toGrpcError(ERROR_TABLE.UNSUPPORTED_OPERATION.create('old server', {}));
    const e = fromGrpcError(serviceError({ ...status, code: grpcStatus.UNIMPLEMENTED }));
    assert.ok(A2AError.is(e) && e.reason === 'UNSUPPORTED_OPERATION');
  });

  test('without details: statuses with an A2A meaning map to typed errors, transport ones to A2AClientError', () => {
    const bare = (code: number) => fromGrpcError(serviceError({ code, details: 'msg', metadata: new Metadata() }));
    const reasonOf = (e: unknown) => (A2AError.is(e) ? e.reason : A2AClientError.is(e) ? `client:${e.code}` : 'other');
    assert.equal(reasonOf(bare(grpcStatus.NOT_FOUND)), 'TASK_NOT_FOUND');
    assert.equal(reasonOf(bare(grpcStatus.INVALID_ARGUMENT)), 'INVALID_PARAMS');
    assert.equal(reasonOf(bare(grpcStatus.UNAUTHENTICATED)), 'UNAUTHENTICATED');
    assert.equal(reasonOf(bare(grpcStatus.PERMISSION_DENIED)), 'PERMISSION_DENIED');
    assert.equal(reasonOf(bare(grpcStatus.RESOURCE_EXHAUSTED)), 'RESOURCE_EXHAUSTED');
    assert.equal(reasonOf(bare(grpcStatus.INTERNAL)), 'INTERNAL');
    assert.equal(reasonOf(bare(grpcStatus.UNAVAILABLE)), 'client:NETWORK');
    assert.equal(reasonOf(bare(grpcStatus.DEADLINE_EXCEEDED)), 'client:TIMEOUT');
    const other = bare(grpcStatus.FAILED_PRECONDITION);
    assert.ok(A2AClientError.is(other, 'HTTP') && other.status === grpcStatus.FAILED_PRECONDITION, 'no ErrorInfo: no guess among the FAILED_PRECONDITION errors');
  });

  test('detail types the client does not know are kept by @type; an unreadable trailer is ignored', () => {
    const md = new Metadata();
    // Status{code 9, message "m", details [Any{type_url "type.googleapis.com/google.rpc.DebugInfo", value ""}]}
    const typeUrl = new TextEncoder().encode('type.googleapis.com/google.rpc.DebugInfo');
    const any = Uint8Array.of(0x0a, typeUrl.length, ...typeUrl);
    md.set(STATUS_DETAILS_KEY, Buffer.from(Uint8Array.of(0x08, 9, 0x12, 1, 0x6d, 0x1a, any.length, ...any)));
    assert.deepEqual(decodeStatus(md.get(STATUS_DETAILS_KEY)[0] as Buffer), { code: 9, message: 'm', details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo' }] });
    assert.equal(decodeStatus(Uint8Array.of(0xff, 0xff)), undefined);
    const bad = new Metadata();
    bad.set(STATUS_DETAILS_KEY, Buffer.from([0xff, 0xff]));
    const e = fromGrpcError(serviceError({ code: grpcStatus.NOT_FOUND, details: 'gone', metadata: bad }));
    assert.ok(A2AError.is(e) && e.reason === 'TASK_NOT_FOUND' && e.message === 'gone');
  });
});
