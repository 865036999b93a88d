/**
 * Wire compatibility with any gRPC stack: a GENERIC client built only from proto/a2a.proto
 * (@grpc/proto-loader → protobufjs, grpc-js `loadPackageDefinition`; no project code, no
 * protobuf-es) calls our server. Service, rpc and field names, field numbers, enums, oneofs and
 * well-known types must line up for these calls to work. Error details are decoded with the
 * googleapis definitions of google.rpc.Status / ErrorInfo / BadRequest written out here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import * as protoLoader from '@grpc/proto-loader';
import { credentials, loadPackageDefinition, Metadata, status as grpcStatus, type Client, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));
const LOAD_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: false, oneofs: true };

/** googleapis google/rpc/status.proto + error_details.proto (the parts A2A uses), and a decoding trick. */
const GOOGLE_RPC = `
syntax = "proto3";
package google.rpc;
import "google/protobuf/any.proto";
message Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }
message ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
message BadRequest {
  message FieldViolation { string field = 1; string description = 2; }
  repeated FieldViolation field_violations = 1;
}
// Only here so proto-loader builds (de)serializers for these messages.
service Decode { rpc Status(Status) returns (Status); rpc ErrorInfo(ErrorInfo) returns (ErrorInfo); rpc BadRequest(BadRequest) returns (BadRequest); }
`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Decoder = (b: Buffer) => Json;

interface Decoded {
  code: number;
  message: string;
  errorInfo?: { reason: string; domain: string; metadata?: Record<string, string> };
  violations: { field: string; description: string }[];
}

describe('a generic gRPC client built only from proto/a2a.proto', () => {
  let server: GrpcTestServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let client: Client & Record<string, any>;
  let decode: { status: Decoder; errorInfo: Decoder; badRequest: Decoder };
  let dir: string;

  before(async () => {
    server = await startGrpcServer({ demo: { slowMs: 3000, tickMs: 100 } });
    const definition = protoLoader.loadSync('a2a.proto', { ...LOAD_OPTIONS, includeDirs: [PROTO_DIR] });
    const pkg = loadPackageDefinition(definition) as Json;
    const A2AService = pkg.lf.a2a.v1.A2AService as ServiceClientConstructor;
    client = new A2AService(server.address, credentials.createInsecure()) as Client & Record<string, Json>;
    dir = mkdtempSync(join(tmpdir(), 'google-rpc-'));
    writeFileSync(join(dir, 'google_rpc.proto'), GOOGLE_RPC);
    const rpc = protoLoader.loadSync('google_rpc.proto', { ...LOAD_OPTIONS, includeDirs: [dir] }) as Json;
    const d = rpc['google.rpc.Decode'];
    decode = { status: d.Status.requestDeserialize, errorInfo: d.ErrorInfo.requestDeserialize, badRequest: d.BadRequest.requestDeserialize };
  });
  after(async () => {
    client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const md = (version: string | null = '1.0') => {
    const m = new Metadata();
    if (version !== null) m.set('a2a-version', version);
    return m;
  };
  const unary = (rpc: string, request: Json, metadata = md()): Promise<Json> =>
    new Promise((resolve, reject) => client[rpc](request, metadata, (e: ServiceError | null, r: Json) => (e ? reject(e) : resolve(r))));
  const stream = (rpc: string, request: Json): Promise<Json[]> =>
    new Promise((resolve, reject) => {
      const out: Json[] = [];
      const call = client[rpc](request, md());
      call.on('data', (r: Json) => out.push(r));
      call.on('error', reject);
      call.on('end', () => resolve(out));
    });
  const failure = async (promise: Promise<unknown>): Promise<Decoded> => {
    const e = (await promise.then(
      () => assert.fail('expected an error'),
      (err: ServiceError) => err,
    )) as ServiceError;
    const bin = e.metadata.get('grpc-status-details-bin')[0] as Buffer;
    const status = decode.status(bin);
    const out: Decoded = { code: e.code, message: e.details, violations: [] };
    assert.equal(status.code, e.code);
    assert.equal(status.message, e.details);
    // protobufjs keeps Any's own field name, type_url, even with keepCase false.
    for (const any of status.details) {
      if (any.type_url === 'type.googleapis.com/google.rpc.ErrorInfo') out.errorInfo = decode.errorInfo(any.value);
      if (any.type_url === 'type.googleapis.com/google.rpc.BadRequest') out.violations.push(...(decode.badRequest(any.value).fieldViolations ?? []));
    }
    return out;
  };
  const message = (text: string, extra: Json = {}) => ({ message: { messageId: `gm-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });

  test('SendMessage: the SendMessageResponse oneof carries a Task with enums, Timestamp and artifacts', async () => {
    const res = await unary('SendMessage', message('hi generic'));
    assert.equal(res.payload, 'task');
    const task = res.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.ok(Number(task.status.timestamp.seconds) > 1_700_000_000, 'google.protobuf.Timestamp seconds');
    assert.equal(task.artifacts[0].name, 'echo');
    assert.equal(task.artifacts[0].parts[0].text, 'hi generic');
    assert.equal(task.artifacts[0].parts[0].content, 'text', 'Part.content oneof');
    assert.equal(task.history[0].role, 'ROLE_USER');
  });

  test('SendMessage "msg": the message member of the oneof; "data": google.protobuf.Value; "file": bytes', async () => {
    const reply = await unary('SendMessage', message('msg from afar'));
    assert.equal(reply.payload, 'message');
    assert.equal(reply.message.role, 'ROLE_AGENT');
    assert.equal(reply.message.parts[0].text, 'from afar');
    const data = (await unary('SendMessage', message('data xyz'))).task.artifacts[0].parts[0];
    assert.equal(data.content, 'data');
    assert.equal(data.mediaType, 'application/json');
    assert.equal(data.data.structValue.fields.echo.stringValue, 'xyz');
    assert.equal(data.data.structValue.fields.length.numberValue, 3);
    const file = (await unary('SendMessage', message('file xyz'))).task.artifacts[0].parts[0];
    assert.equal(file.content, 'raw');
    assert.equal(Buffer.from(file.raw).toString('utf8'), 'xyz');
    assert.equal(file.filename, 'echo.txt');
  });

  test('SendStreamingMessage: a server stream of StreamResponse (task, statusUpdate, artifactUpdate…) that completes OK', async () => {
    const events = await stream('SendStreamingMessage', message('stream abc'));
    assert.deepEqual(
      events.map((e) => e.payload),
      ['task', 'statusUpdate', ...Array(10).fill('artifactUpdate'), 'statusUpdate'],
    );
    const chunks = events.filter((e) => e.payload === 'artifactUpdate').map((e) => e.artifactUpdate);
    assert.equal(chunks[0].append ?? false, false);
    assert.equal(chunks[1].append, true);
    assert.equal(chunks[9].lastChunk, true);
    assert.equal(events.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('GetTask (historyLength) and ListTasks (filters, enum and int32 fields)', async () => {
    const contextId = `gctx-${Date.now()}`;
    const task = (await unary('SendMessage', message('ask anything', { contextId }))).task;
    assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const got = await unary('GetTask', { id: task.id, historyLength: 0 });
    assert.equal(got.id, task.id);
    assert.equal(got.history, undefined);
    const listed = await unary('ListTasks', { contextId, status: 'TASK_STATE_INPUT_REQUIRED', pageSize: 5 });
    assert.deepEqual(listed.tasks.map((t: Json) => t.id), [task.id]);
    assert.equal(listed.pageSize, 5);
    assert.equal(listed.totalSize, 1);
  });

  test('CancelTask and SubscribeToTask on a running task', async () => {
    const started = (await unary('SendMessage', { ...message('slow generic'), configuration: { returnImmediately: true } })).task;
    const subscription = stream('SubscribeToTask', { id: started.id });
    await new Promise((r) => setTimeout(r, 100));
    const canceled = await unary('CancelTask', { id: started.id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const events = await subscription;
    assert.equal(events[0].payload, 'task');
    assert.equal(events.at(-1).statusUpdate.status.state, 'TASK_STATE_CANCELED');
  });

  test('errors: status code, ErrorInfo (reason, domain, metadata) and BadRequest read with the googleapis protos', async () => {
    const notFound = await failure(unary('GetTask', { id: 'nope' }));
    assert.equal(notFound.code, grpcStatus.NOT_FOUND);
    assert.deepEqual(notFound.errorInfo, { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } });
    // The demo card declares push: push config calls on an unknown task are TASK_NOT_FOUND (PUSH-03).
    const push = await failure(unary('CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://h.example/x' }));
    assert.equal(push.code, grpcStatus.NOT_FOUND);
    assert.equal(push.errorInfo?.reason, 'TASK_NOT_FOUND');
    for (const [rpc, req] of [
      ['GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
      ['ListTaskPushNotificationConfigs', { taskId: 't', tenant: 'x' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }],
    ] as const) {
      assert.equal((await failure(unary(rpc, req))).errorInfo?.reason, 'TASK_NOT_FOUND', rpc);
    }
    const xcard = await failure(unary('GetExtendedAgentCard', {}));
    assert.equal(xcard.code, grpcStatus.FAILED_PRECONDITION);
    assert.equal(xcard.errorInfo?.reason, 'UNSUPPORTED_OPERATION');
    const invalid = await failure(unary('ListTasks', { pageSize: 101 }));
    assert.equal(invalid.code, grpcStatus.INVALID_ARGUMENT);
    assert.deepEqual(invalid.violations, [{ field: 'pageSize', description: 'must be between 1 and 100' }]);
    const version = await failure(unary('ListTasks', {}, md(null)));
    assert.equal(version.code, grpcStatus.FAILED_PRECONDITION);
    assert.deepEqual(version.errorInfo, { reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { requestedVersion: '0.3', supportedVersions: '1.0,0.3', requestShape: '1.0' } });
    // SVC-05: a caller that sent no version is told so, and where the parameter goes over gRPC.
    assert.equal(version.message, 'This request has the A2A 1.0 shape but sends no A2A-Version, which means 0.3; send A2A-Version: 1.0 (gRPC: metadata a2a-version: 1.0)');
  });
});
