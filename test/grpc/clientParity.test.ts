/**
 * createClient over gRPC behaves as over JSON-RPC and HTTP+JSON where the failure is the same
 * one: a 401 renews the credential (UNAUTHENTICATED), a rate limit or an unavailable store is
 * retried after the time the server asked for (B13, R24: `responseInfo` says 429 / 503 and
 * Retry-After), a stream cut without a status is resumed (B9, STREAM-11), an answer that is not
 * gRPC at all is the HTTP failure it is, and what gRPC cannot carry (a header that is not
 * metadata, a query parameter) is refused before anything is sent, never echoing a value.
 * Real grpc-js servers, and raw node:http2 ones for what no gRPC server would answer.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { grpcTransport, type GrpcTransportFactory } from '../../src/bindings/grpc/client.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import { apiKey, bearerToken } from '../../src/client/auth.js';
import { createClient, type ClientOptions } from '../../src/client/client.js';
import { A2AClientError, responseInfo, wasNotSent } from '../../src/client/errors.js';
import { StreamResponseSchema, TaskSchema } from '../../src/gen/a2a_pb.js';
import { serveAgent } from '../../src/node/serveAgent.js';
import { A2AError, InvalidParamsError, StoreUnavailableError } from '../../src/protocol/errors.js';
import type { AgentCard, StreamResponse } from '../../src/protocol/types.js';
import type { AgentCardBase } from '../../src/server/agentDefinition.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { cardAt } from '../client/fakeAgent.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const channels: GrpcTransportFactory[] = [];
/** A client over gRPC only, its channels closed after the suite. */
async function grpcClient(card: AgentCard | string, options: ClientOptions = {}) {
  const transport = grpcTransport();
  channels.push(transport);
  return createClient(card, { ...options, transports: [transport], bindings: ['GRPC'] });
}
after(() => channels.forEach((c) => c.close()));

describe('UNAUTHENTICATED renews the credential as a 401 does', () => {
  test('bearerToken({fresh}) is asked again and the call repeated once, on every binding', async () => {
    const base = demoCard() as AgentCardBase;
    const card: AgentCardBase = { ...base, securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] };
    const agent = await serveAgent({
      agent: { card, executor: { execute: async (_ctx, task) => task.complete() } },
      port: 0,
      host: '127.0.0.1',
      grpc: { port: 0 },
      shutdownTimeoutMs: 300,
      handler: { auth: { schemes: { bearer: { verify: (t) => (t === 'good' ? { id: 'alice' } : undefined) } } } },
    });
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
        const asked: boolean[] = [];
        const transport = grpcTransport();
        channels.push(transport);
        const client = await createClient(agent.url, {
          transports: [transport],
          bindings: [binding],
          auth: bearerToken(({ fresh }) => (asked.push(fresh), fresh ? 'good' : 'stale')),
        });
        assert.equal(client.agentInterface.protocolBinding, binding);
        assert.deepEqual((await client.listTasks()).tasks, [], binding);
        assert.deepEqual(asked, [false, true], binding);
      }
    } finally {
      await agent.close();
    }
  });
});

describe('B13 R24 rate limits and an unavailable store are retried after the time asked for', () => {
  let limited: GrpcTestServer;
  let flaky: GrpcTestServer;
  let outages = 0;
  before(async () => {
    limited = await startGrpcServer({ handler: { abuseLimits: { requestsPerSecond: 5, requestBurst: 1 } } });
    const store = new MemoryTaskStore();
    const get = store.get.bind(store);
    store.get = (tenant, id) => (outages-- > 0 ? Promise.reject(StoreUnavailableError.from(new Error('ECONNRESET'))) : get(tenant, id));
    flaky = await startGrpcServer({ handler: { store } });
  });
  after(() => Promise.all([limited.close(), flaky.close()]));

  test('RESOURCE_EXHAUSTED with retryAfterMs: responseInfo 429 + Retry-After; retried with retry: {retries}', async () => {
    const once = await grpcClient(limited.card, { retry: false });
    await once.listTasks();
    const error = await once.listTasks().then(
      () => assert.fail('the second call at once is over the rate'),
      (e: unknown) => e,
    );
    assert.ok(A2AError.is(error) && error.reason === 'RESOURCE_EXHAUSTED' && error.metadata.limit === 'requests');
    const info = responseInfo(error);
    assert.equal(info?.status, 429);
    assert.ok(info.retryAfterMs !== undefined && info.retryAfterMs > 0 && info.retryAfterMs <= 200, `retryAfterMs ${info.retryAfterMs}`);
    const retried = await grpcClient(limited.card, { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 } });
    await new Promise((r) => setTimeout(r, 250));
    await retried.listTasks();
    const started = Date.now();
    assert.deepEqual((await retried.listTasks()).tasks, []);
    assert.ok(Date.now() - started >= 100, 'waited as long as the server asked, not the 1 ms backoff');
  });

  test('UNAVAILABLE with retryAfterMs (a store outage): responseInfo 503 + Retry-After; the retry waits for it', async () => {
    const client = await grpcClient(flaky.card, { retry: false });
    const task = (await client.sendText('hello')) as { task: { id: string } };
    outages = 1;
    const error = await client.getTask({ id: task.task.id }).catch((e: unknown) => e);
    assert.ok(A2AError.is(error) && error.reason === 'UNAVAILABLE', String(error));
    assert.deepEqual(responseInfo(error), { status: 503, retryAfterMs: 1000 });
    const retried = await grpcClient(flaky.card, { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    outages = 1;
    const started = Date.now();
    assert.equal((await retried.getTask({ id: task.task.id })).id, task.task.id);
    assert.ok(Date.now() - started >= 900, 'waited the retryAfterMs the server asked for');
  });

  test('any A2AError carries the status HTTP+JSON answers it with (TASK_NOT_FOUND → 404)', async () => {
    const client = await grpcClient(flaky.card, { retry: false });
    const error = await client.getTask({ id: 'no-such-task' }).catch((e: unknown) => e);
    assert.deepEqual(responseInfo(error), { status: 404 });
  });
});

/** A raw HTTP/2 server: `answer` handles each request (its path, its number from 0). */
async function rawServer(answer: (stream: http2.ServerHttp2Stream, path: string, n: number) => void): Promise<{ address: string; close: () => Promise<void> }> {
  let n = 0;
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => (sessions.add(session), session.on('close', () => sessions.delete(session))));
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    // The request must be read for the call to complete on the client.
    stream.resume();
    answer(stream, String(headers[':path']), n++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The client's channel keeps its connection open: end it, or close() would wait for it.
  const close = () => new Promise<void>((resolve) => (server.close(() => resolve()), sessions.forEach((s) => s.destroy())));
  return { address, close };
}

/** One gRPC length-prefixed message. */
function frame(schema: typeof StreamResponseSchema | typeof TaskSchema, json: object): Buffer {
  const bytes = toBinary(schema, fromJson(schema, json as JsonValue));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
}

/** A gRPC answer: headers, the messages, trailers with grpc-status 0. */
function grpcOk(stream: http2.ServerHttp2Stream, messages: Buffer[]): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(Buffer.concat(messages));
}

const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };

describe('B9 STREAM-11 a stream cut without a gRPC status is resumed, as a dropped SSE stream is', () => {
  test('RST_STREAM code 0 ("Call ended without gRPC status", a proxy idle timeout) → resubscribed', async () => {
    const paths: string[] = [];
    const server = await rawServer((stream, path) => {
      paths.push(path.split('/').pop() as string);
      if (path.endsWith('/SendStreamingMessage')) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
        stream.write(frame(StreamResponseSchema, { task: TASK }), () => setTimeout(() => stream.close(http2.constants.NGHTTP2_NO_ERROR), 20));
      } else {
        grpcOk(stream, [frame(StreamResponseSchema, { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } })]);
      }
    });
    try {
      const client = await grpcClient(cardAt(server.address, { binding: 'GRPC' }), { resume: { delayMs: 1 } });
      const events: StreamResponse[] = [];
      for await (const event of client.streamText('hi')) events.push(event);
      assert.deepEqual(
        events.map((e) => Object.keys(e)[0]),
        ['task', 'statusUpdate'],
      );
      assert.deepEqual(paths, ['SendStreamingMessage', 'SubscribeToTask']);
    } finally {
      await server.close();
    }
  });
});

describe('an answer that is not gRPC (a wrong port, a proxy page) is the HTTP failure it is, as over HTTP+JSON', () => {
  test('404 / 500 HTML → A2AClientError HTTP with that status; 401 / 403 → UNAUTHENTICATED / PERMISSION_DENIED; 503 → retried', async () => {
    const statuses = [404, 500, 401, 403, 503];
    const server = await rawServer((stream, _path, n) => {
      const status = statuses[n];
      if (status === undefined) return grpcOk(stream, [frame(TaskSchema, TASK)]);
      stream.respond({ ':status': status, 'content-type': 'text/html' });
      stream.end(`<html><body>${status}</body></html>`);
    });
    try {
      const client = await grpcClient(cardAt(server.address, { binding: 'GRPC' }), { retry: false });
      for (const status of [404, 500]) {
        const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
        assert.ok(A2AClientError.is(error, 'HTTP') && error.status === status, `${status}: ${String(error)}`);
        assert.deepEqual(responseInfo(error), { status });
      }
      for (const [status, reason] of [
        [401, 'UNAUTHENTICATED'],
        [403, 'PERMISSION_DENIED'],
      ] as const) {
        const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
        assert.ok(A2AError.is(error) && error.reason === reason, `${status}: ${String(error)}`);
        assert.deepEqual(responseInfo(error), { status });
      }
      const retried = await grpcClient(cardAt(server.address, { binding: 'GRPC' }), { retry: { retries: 1, baseDelayMs: 1 } });
      assert.equal((await retried.getTask({ id: 't-1' })).id, 't-1', 'the 503 was retried');
    } finally {
      await server.close();
    }
  });
});

describe('SEC-02 R23 what gRPC cannot carry is refused before sending, never echoing a value', () => {
  let server: GrpcTestServer;
  before(async () => (server = await startGrpcServer()));
  after(() => server.close());

  test('a header that is not gRPC metadata (name or value) → InvalidParamsError naming the header, not its value', async () => {
    const client = await grpcClient(server.card);
    for (const [name, value] of [
      ['X-Trace!Id', 's3cret-1'],
      ['x-token', 'José-s3cret'],
    ] as const) {
      const error = await client.listTasks({}, { headers: { [name]: value } }).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidParamsError, String(error));
      assert.ok(wasNotSent(error));
      assert.match(error.message, new RegExp(name.toLowerCase().replace('!', '\\!')));
      assert.doesNotMatch(`${error.message} ${JSON.stringify(error.fieldViolations)}`, /s3cret/);
    }
  });

  test('a query parameter (apiKey in the query, a `before` interceptor) → A2AClientError AUTH, nothing sent', async () => {
    const queried = { ...server.card, securitySchemes: { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } } };
    const viaKey = await grpcClient(queried, { auth: apiKey('k3y-s3cret') });
    const viaInterceptor = await grpcClient(server.card, { interceptors: [{ before: (call) => call.query.set('sig', 'abc') }] });
    for (const client of [viaKey, viaInterceptor]) {
      const error = await client.listTasks().catch((e: unknown) => e);
      assert.ok(A2AClientError.is(error, 'AUTH'), String(error));
      assert.ok(wasNotSent(error));
      assert.match(error.message, /query parameter.*gRPC/);
      assert.doesNotMatch(error.message, /s3cret|abc/);
    }
  });
});
