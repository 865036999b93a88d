/**
 * Service parameters over gRPC (GRPC-02, VER-10, SVC-02/03, R20): `a2a-version` and
 * `a2a-extensions` metadata are negotiated exactly as the HTTP headers are — the same outcome,
 * the same error message, the same ErrorInfo metadata, with A2A 0.3 compat on (the listener's
 * 0.3 service beside the 1.0 one) and off — because one request handler serves all three
 * bindings here and each binding's answer is compared with the others'.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { ListTasksRequestSchema } from '../../src/gen/a2a_pb.js';
import { jsonRpcBinding, restBinding, type CallResult, type TestBinding } from '../support/bindings.js';
import { expectError, ok } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';
import { grpcBinding, grpcListener, wireError } from './grpcTestBinding.js';

interface Row {
  name: string;
  /** The A2A-Version header / a2a-version metadata; null: absent. */
  version: string | null;
  /** undefined: served; otherwise ErrorInfo.metadata.requestedVersion. */
  refused?: string;
}

const ROWS: Row[] = [
  { name: '1.0 is served', version: '1.0' },
  { name: 'VER-01 1.0.3 is served (patch ignored)', version: '1.0.3' },
  { name: 'VER-01 leading and trailing spaces are ignored', version: ' 1.0 ' },
  { name: 'VER-05 absent means 0.3: VERSION_NOT_SUPPORTED', version: null, refused: '0.3' },
  { name: 'VER-05 empty means 0.3', version: '', refused: '0.3' },
  { name: 'VER-06 0.3 is not served', version: '0.3', refused: '0.3' },
  { name: 'VER-06 2.0 is not served', version: '2.0', refused: '2.0' },
  { name: 'VER-06 1.1 is not served', version: '1.1', refused: '1.1' },
  { name: 'B2 abc is VERSION_NOT_SUPPORTED', version: 'abc', refused: 'abc' },
  { name: 'B2 1 is VERSION_NOT_SUPPORTED', version: '1', refused: '1' },
  { name: 'B2 9 is VERSION_NOT_SUPPORTED', version: '9', refused: '9' },
  { name: 'SVC-03 two different versions (1.0, 2.0) are VERSION_NOT_SUPPORTED', version: '1.0, 2.0', refused: '1.0, 2.0' },
];

/** The answer as a caller sees it: outcome, negotiated version, or the whole error but its binding's codes. */
const comparable = (res: CallResult) =>
  res.ok
    ? { ok: true, version: res.headers.get('a2a-version') }
    : { ok: false, reason: res.error.reason, message: res.error.message, metadata: res.error.metadata };

for (const compat03 of [true, false]) {
  describe(`gRPC service parameters negotiate exactly as HTTP (R20), 0.3 compat ${compat03 ? 'on' : 'off'}`, () => {
    let server: TestServer;
    let bindings: TestBinding[];
    before(async () => {
      server = await startServer({ handler: { compat03 } });
      const grpc = await grpcListener(server, { compat03 });
      bindings = [jsonRpcBinding(server.jsonRpcUrl), restBinding(server.restUrl), grpcBinding(grpc.address)];
    });
    after(() => server.close());

    for (const row of ROWS) {
      test(`R20 ${row.name}: the same message and ErrorInfo on JSON-RPC, HTTP+JSON and gRPC`, async () => {
        const headers = { 'A2A-Version': row.version };
        const [jsonRpc, rest, grpc] = await Promise.all(bindings.map((b) => b.call('listTasks', { pageSize: 1 }, { headers })));
        if (row.refused === undefined) {
          assert.equal(ok(grpc as CallResult).pageSize, 1);
        } else {
          // The listener's versions: 0.3 among them when its 0.3 service is served, as over HTTP.
          const e = expectError(grpc as CallResult, 'VERSION_NOT_SUPPORTED', { metadata: { requestedVersion: row.refused, supportedVersions: compat03 ? '1.0,0.3' : '1.0' } });
          assert.equal(e.grpcStatus, 'FAILED_PRECONDITION');
        }
        assert.deepEqual(comparable(grpc as CallResult), comparable(jsonRpc as CallResult), 'gRPC and JSON-RPC agree');
        assert.deepEqual(comparable(grpc as CallResult), comparable(rest as CallResult), 'gRPC and REST agree');
        const streamed = await (bindings[2] as TestBinding).stream('sendStreamingMessage', { message: { messageId: `m-${row.name}`, role: 'ROLE_USER', parts: [{ text: 'msg v' }] } }, { headers });
        assert.equal(streamed.ok, row.refused === undefined, 'streams are negotiated the same way');
      });
    }
  });
}

describe('gRPC service parameters: repeated metadata', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('SVC-03 repeated metadata entries are joined like repeated HTTP headers; B4 the negotiated version is echoed', async () => {
    const grpc = await grpcListener(server);
    const client = new Client(grpc.address, credentials.createInsecure());
    const call = (md: Metadata) =>
      new Promise<{ code: number; headers?: Metadata; error?: ReturnType<typeof wireError> }>((resolve) => {
        let headers: Metadata | undefined;
        const c = client.makeUnaryRequest<Buffer, Buffer>('/lf.a2a.v1.A2AService/ListTasks', (b) => b, (b) => b, Buffer.from(toBinary(ListTasksRequestSchema, fromJson(ListTasksRequestSchema, {}))), md, {}, (e) =>
          resolve(e ? { code: e.code, error: wireError(e) } : { code: 0, ...(headers ? { headers } : {}) }),
        );
        c.on('metadata', (h: Metadata) => (headers = h));
      });
    try {
      // Joined as an HTTP server sees two A2A-Version headers: the same version twice is served,
      // two different ones are refused with both named.
      const twice = new Metadata();
      twice.add('a2a-version', '1.0');
      twice.add('a2a-version', '1.0');
      const same = await call(twice);
      assert.equal(same.code, 0);
      assert.equal(same.headers?.get('a2a-version')[0], '1.0');
      const differing = new Metadata();
      differing.add('a2a-version', '1.0');
      differing.add('a2a-version', '2.0');
      const res = await call(differing);
      assert.equal(res.code, grpcStatus.FAILED_PRECONDITION);
      assert.equal(res.error?.metadata.requestedVersion, '1.0, 2.0');
      const once = new Metadata();
      once.set('a2a-version', '1.0.9');
      assert.equal((await call(once)).headers?.get('a2a-version')[0], '1.0');
    } finally {
      client.close();
    }
  });
});
