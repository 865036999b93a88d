/**
 * Our gRPC client transport against a bare @grpc/grpc-js server that records what arrives and
 * answers whatever a test needs: metadata sent (service parameters, credentials), tolerance of
 * unknown fields (OPS-05), responses that are not A2A, errors before and during a stream, and
 * the local failures (unreachable, timeout, abort, a request that cannot be encoded).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { Server, ServerCredentials, status as grpcStatus, type Metadata, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { createGrpcClient, grpcTransport } from '../../src/bindings/grpc/client.js';
import { toGrpcError } from '../../src/bindings/grpc/errors.js';
import { createClient } from '../../src/client/client.js';
import { A2AClientError } from '../../src/client/errors.js';
import { StreamResponseSchema, TaskSchema } from '../../src/gen/a2a_pb.js';
import { InvalidParamsError, TaskNotFoundError, UnsupportedOperationError } from '../../src/protocol/errors.js';
import { cardAt } from '../client/fakeAgent.js';

const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
const taskBytes = Buffer.from(toBinary(TaskSchema, fromJson(TaskSchema, TASK as JsonValue)));
const event = (json: object) => Buffer.from(toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, json as JsonValue)));

type Behaviour = {
  unary?: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => void;
  stream?: (call: ServerWritableStream<Buffer, Buffer>) => void;
};

describe('gRPC client transport against a bare grpc-js server', () => {
  let server: Server;
  let address: string;
  const seen: Metadata[] = [];
  let behaviour: Behaviour = {};
  before(async () => {
    server = new Server();
    const passthrough = (b: Buffer) => b;
    const def = (name: string, stream: boolean) => ({
      path: `/lf.a2a.v1.A2AService/${name}`,
      requestStream: false,
      responseStream: stream,
      requestSerialize: passthrough,
      requestDeserialize: passthrough,
      responseSerialize: passthrough,
      responseDeserialize: passthrough,
    });
    const impl: UntypedServiceImplementation = {
      GetTask: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => {
        seen.push(call.metadata);
        (behaviour.unary ?? ((_c, done) => done(null, taskBytes)))(call, cb);
      },
      SubscribeToTask: (call: ServerWritableStream<Buffer, Buffer>) => {
        seen.push(call.metadata);
        behaviour.stream?.(call);
      },
    };
    server.addService({ GetTask: def('GetTask', false), SubscribeToTask: def('SubscribeToTask', true) }, impl);
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    address = `127.0.0.1:${port}`;
  });
  after(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));

  const transport = () => grpcTransport().create({ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' }, { fetch });

  test('VER-02 GRPC-02 a2a-version on every call; extensions, credentials and caller headers as metadata; HTTP-only headers dropped', async () => {
    behaviour = {};
    seen.length = 0;
    const client = createGrpcClient(address, { metadata: { authorization: 'Bearer s3cret' } });
    try {
      assert.deepEqual(await client.getTask({ id: 't-1' }, { extensions: ['https://e.example/a/v1', 'https://e.example/b/v1'], metadata: { 'x-trace': 'abc' } }), TASK);
    } finally {
      client.close();
    }
    const md = seen[0] as Metadata;
    assert.equal(md.get('a2a-version')[0], '1.0');
    assert.equal(md.get('a2a-extensions')[0], 'https://e.example/a/v1, https://e.example/b/v1');
    assert.equal(md.get('authorization')[0], 'Bearer s3cret');
    assert.equal(md.get('x-trace')[0], 'abc');
    seen.length = 0;
    await transport().unary({
      op: 'getTask',
      request: { id: 't-1' },
      headers: new Headers({ 'a2a-version': '1.0', accept: 'application/json', 'content-type': 'application/json', 'x-api-key': 'k' }),
      query: new URLSearchParams(),
      signal: new AbortController().signal,
    });
    assert.equal(seen[0]?.get('x-api-key')[0], 'k');
    assert.equal(seen[0]?.get('accept').length, 0);
    assert.notEqual(seen[0]?.get('content-type')[0], 'application/json', 'gRPC sets its own content type');
  });

  test('OPS-05 unknown fields in a response are ignored', async () => {
    // Task + field 99 (string "future") + TaskStatus with an unknown field 42.
    const future = Buffer.concat([taskBytes, Buffer.from([0x9a, 0x06, 6, ...Buffer.from('future')])]);
    behaviour = { unary: (_c, cb) => cb(null, future) };
    assert.deepEqual(await transport().unary({ op: 'getTask', request: { id: 't' }, headers: new Headers(), query: new URLSearchParams(), signal: new AbortController().signal }), TASK);
  });

  test('a response that is not the operation’s message → INVALID_RESPONSE', async () => {
    behaviour = { unary: (_c, cb) => cb(null, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f])) };
    const client = createGrpcClient(address);
    try {
      await assert.rejects(client.getTask({ id: 't' }), (e: unknown) => A2AClientError.is(e, 'INVALID_RESPONSE'));
    } finally {
      client.close();
    }
  });

  test('STREAM-12 an error before the first event rejects stream(); B9 an error after events ends the iteration with the typed error', async () => {
    const call = { op: 'subscribeToTask' as const, request: { id: 't-1' }, headers: new Headers({ 'a2a-version': '1.0' }), query: new URLSearchParams(), signal: new AbortController().signal };
    behaviour = { stream: (c) => c.emit('error', toGrpcError(new TaskNotFoundError('no t-1', { metadata: { taskId: 't-1' } }))) };
    await assert.rejects(transport().stream(call), (e: unknown) => e instanceof TaskNotFoundError && e.metadata.taskId === 't-1');
    behaviour = {
      stream: (c) => {
        c.write(event({ task: TASK }));
        c.write(event({ statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } }));
        c.emit('error', toGrpcError(new UnsupportedOperationError('gone mid-stream')));
      },
    };
    const items = await transport().stream(call);
    const got: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const item of items) got.push(item.event);
      })(),
      (e: unknown) => e instanceof UnsupportedOperationError && e.message === 'gone mid-stream',
    );
    assert.equal(got.length, 2);
  });

  test('a stream without event-id metadata yields items without ids', async () => {
    behaviour = {
      stream: (c) => {
        c.write(event({ task: TASK }));
        c.end();
      },
    };
    const items: unknown[] = [];
    const call = { op: 'subscribeToTask' as const, request: { id: 't-1' }, headers: new Headers(), query: new URLSearchParams(), signal: new AbortController().signal };
    for await (const item of await transport().stream(call)) items.push(item);
    assert.deepEqual(items, [{ event: { task: TASK } }]);
  });

  test('STREAM-12 an OK stream with no messages (trailers-only) ends at once on every client, as an empty SSE stream does', async () => {
    behaviour = { stream: (c) => c.end() };
    /** Fails instead of hanging: the open used to wait forever, deaf to timeoutMs and the signal. */
    const settles = <T>(what: string, run: Promise<T>): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle`)), 1000)));
      return Promise.race([run, limit]).finally(() => clearTimeout(timer));
    };
    const call = { op: 'subscribeToTask' as const, request: { id: 't-1' }, headers: new Headers({ 'a2a-version': '1.0' }), query: new URLSearchParams(), signal: AbortSignal.timeout(2000) };
    const items: unknown[] = [];
    for await (const item of await settles('transport.stream', transport().stream(call))) items.push(item);
    assert.deepEqual(items, []);
    const client = createGrpcClient(address);
    const channels = grpcTransport();
    const a2a = await createClient(cardAt(address, { binding: 'GRPC' }), { transports: [channels] });
    try {
      const events: unknown[] = [];
      await settles(
        'createGrpcClient',
        (async () => {
          for await (const e of client.subscribeToTask({ id: 't-1' }, { timeoutMs: 3000, signal: AbortSignal.timeout(2000) })) events.push(e);
        })(),
      );
      assert.equal(events.length, 0);
      // createClient: STREAM_CLOSED, as over JSON-RPC and HTTP+JSON for an empty event stream.
      await assert.rejects(
        settles(
          'createClient',
          (async () => {
            for await (const e of a2a.subscribeToTask({ id: 't-1' }, { signal: AbortSignal.timeout(2000) })) events.push(e);
          })(),
        ),
        (e: unknown) => A2AClientError.is(e, 'STREAM_CLOSED'),
      );
    } finally {
      client.close();
      channels.close();
    }
  });

  test('timeoutMs → TIMEOUT; an AbortSignal → ABORTED (also when aborted before the call)', async () => {
    behaviour = { unary: (_c, cb) => setTimeout(() => cb(null, taskBytes), 1000) };
    const client = createGrpcClient(address);
    try {
      // GRPC-DEADLINE: timeoutMs is also sent as grpc-timeout, whose grpc-js timer races the client's own; the same error whichever fires first.
      for (let i = 0; i < 20; i++) {
        await assert.rejects(client.getTask({ id: 't' }, { timeoutMs: 20 }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT') && e.message === 'The call timed out');
      }
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 30);
      await assert.rejects(client.getTask({ id: 't' }, { signal: controller.signal }), (e: unknown) => A2AClientError.is(e, 'ABORTED'));
      seen.length = 0;
      await assert.rejects(client.getTask({ id: 't' }, { signal: AbortSignal.abort() }), (e: unknown) => A2AClientError.is(e, 'ABORTED'));
      assert.equal(seen.length, 0, 'nothing was sent');
    } finally {
      client.close();
    }
  });

  test('a request that does not fit the proto never leaves the client (InvalidParamsError)', async () => {
    const client = createGrpcClient(address);
    seen.length = 0;
    try {
      await assert.rejects(client.getTask({ id: 't', historyLength: 'many' as unknown as number }), InvalidParamsError);
      assert.equal(seen.length, 0);
    } finally {
      client.close();
    }
  });

  test('an unreachable address → NETWORK', async () => {
    const client = createGrpcClient('127.0.0.1:1');
    try {
      await assert.rejects(client.getTask({ id: 't' }), (e: unknown) => A2AClientError.is(e, 'NETWORK'));
    } finally {
      client.close();
    }
  });

  test('a server status with no A2A meaning and no ErrorInfo → A2AClientError HTTP with the gRPC code', async () => {
    behaviour = { unary: (_c, cb) => cb({ code: grpcStatus.ABORTED, details: 'try again' }) };
    const client = createGrpcClient(address);
    try {
      await assert.rejects(client.getTask({ id: 't' }), (e: unknown) => A2AClientError.is(e, 'HTTP') && e.status === grpcStatus.ABORTED && /try again/.test(e.message));
    } finally {
      client.close();
    }
  });
});
