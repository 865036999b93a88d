/**
 * The gRPC listener's limits per instance, in parity with the HTTP listener's (docs/deploy.md,
 * "Limits per instance"), against a real serveGrpc and raw node:http2 clients:
 * R18 a call's request must arrive within requestTimeoutMs (a stalled one ends DEADLINE_EXCEEDED
 * and its stream is reset); R25 at most maxConcurrentStreams calls per connection and
 * maxConnections connections; R9 idle connections are closed; connections reaching their
 * maximum age get GOAWAY while their running calls finish.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, describe, test } from 'node:test';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { status as grpcStatus } from '@grpc/grpc-js';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { GRPC_LISTENER_DEFAULTS } from '../../src/bindings/grpc/listener.js';
import { http2ServersOf } from '../../src/bindings/grpc/grpcJsInternals.js';
import { SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { eventually, sleep, uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const HEADERS = { ':method': 'POST', ':path': '/lf.a2a.v1.A2AService/SendMessage', 'content-type': 'application/grpc', te: 'trailers', 'a2a-version': '1.0' };

/** A whole SendMessage request frame saying `text`. */
function sendFrame(text: string): Buffer {
  const body = toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, { message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text }] } }));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** The start of a frame announcing 1000 bytes, with 10 of them: a request that never arrives whole. */
function stalledFrame(): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(1000, 1);
  return Buffer.concat([prefix, Buffer.alloc(10)]);
}

interface Outcome {
  /** grpc-status, undefined when the stream closed without one. */
  status: number | undefined;
  /** ms from the request to the stream's close. */
  ms: number;
}

/** One call on `session`: `frame` sent, the stream ended only when `end`; resolves when the stream closes. */
function call(session: http2.ClientHttp2Session, frame: Buffer, end: boolean): Promise<Outcome> {
  const started = Date.now();
  const stream = session.request(HEADERS);
  let status: number | undefined;
  const read = (headers: http2.IncomingHttpHeaders): void => {
    if (headers['grpc-status'] !== undefined) status = Number(headers['grpc-status']);
  };
  stream.on('response', read);
  stream.on('trailers', read);
  stream.on('error', () => undefined);
  stream.resume();
  if (end) stream.end(frame);
  else stream.write(frame);
  return new Promise((resolve) => stream.on('close', () => resolve({ status, ms: Date.now() - started })));
}

function connect(server: GrpcTestServer): http2.ClientHttp2Session {
  const session = http2.connect(`http://${server.address}`);
  session.on('error', () => undefined);
  return session;
}

describe('gRPC listener limits (parity with the HTTP listener)', () => {
  const servers: GrpcTestServer[] = [];
  const sessions: http2.ClientHttp2Session[] = [];
  const start = async (grpc: Parameters<typeof startGrpcServer>[0] = {}): Promise<GrpcTestServer> => {
    const server = await startGrpcServer(grpc);
    servers.push(server);
    return server;
  };
  const open = (server: GrpcTestServer): http2.ClientHttp2Session => {
    const session = connect(server);
    sessions.push(session);
    return session;
  };
  after(async () => {
    for (const session of sessions) session.destroy();
    await Promise.all(servers.map((s) => s.close()));
  });

  test('defaults: 30 s request timeout, 100 streams per connection, 20,000 connections, 5 min idle, 30 min age + 30 s grace', async () => {
    assert.deepEqual(GRPC_LISTENER_DEFAULTS, {
      requestTimeoutMs: 30_000,
      maxConcurrentStreams: 100,
      maxConnections: 20_000,
      maxConnectionIdleMs: 300_000,
      maxConnectionAgeMs: 1_800_000,
      maxConnectionAgeGraceMs: 30_000,
      maxSessionMemoryMb: 64,
    });
    const server = await start();
    const session = open(server);
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    assert.equal(session.remoteSettings.maxConcurrentStreams, 100);
    const listening = http2ServersOf(server.running.server);
    assert.ok(listening && listening.length > 0, 'grpc-js still exposes its HTTP/2 servers');
    for (const s of listening) assert.equal(s.maxConnections, 20_000);
  });

  test('R18 a call whose request stalls ends DEADLINE_EXCEEDED after requestTimeoutMs and its stream is reset; R25 past maxConcurrentStreams calls wait for a free stream', async () => {
    const server = await start({ grpc: { requestTimeoutMs: 400, maxConcurrentStreams: 4 } });
    const session = open(server);
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    assert.equal(session.remoteSettings.maxConcurrentStreams, 4);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => call(session, stalledFrame(), false)));
    for (const o of outcomes) assert.equal(o.status, grpcStatus.DEADLINE_EXCEEDED);
    // The first four are answered at the timeout; the other two only got a stream once those were reset.
    const times = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    assert.ok((times[3] as number) < 750, `the first four within the timeout (${times.join(', ')} ms)`);
    assert.ok((times[4] as number) >= 750, `the last two after a second timeout (${times.join(', ')} ms)`);
    // The same connection still serves whole calls, and so does the listener.
    assert.equal((await call(session, sendFrame('hello'), true)).status, grpcStatus.OK);
    const client = createGrpcClient(server.address);
    try {
      assert.ok('task' in (await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'hi' }] } })));
    } finally {
      client.close();
    }
  });

  test('R9 a connection without calls for maxConnectionIdleMs is closed with GOAWAY; one with a call running is not', async () => {
    const server = await start({ demo: { slowMs: 900, tickMs: 100 }, grpc: { maxConnectionIdleMs: 300 } });
    const idle = open(server);
    const busy = open(server);
    let busyGoaway = false;
    busy.on('goaway', () => (busyGoaway = true));
    const running = call(busy, sendFrame('slow job'), true);
    await new Promise((resolve) => idle.once('goaway', resolve));
    assert.equal(busyGoaway, false, 'the busy connection is still open');
    assert.equal((await running).status, grpcStatus.OK);
  });

  test('R25 past maxConnections a new connection is closed at once while the open ones keep working', async () => {
    const server = await start({ grpc: { maxConnections: 2 } });
    const first = open(server);
    const second = open(server);
    assert.equal((await call(first, sendFrame('one'), true)).status, grpcStatus.OK);
    assert.equal((await call(second, sendFrame('two'), true)).status, grpcStatus.OK);
    const third = open(server);
    const outcome = await call(third, sendFrame('three'), true);
    assert.equal(outcome.status, undefined, 'no answer on the connection past the cap');
    await eventually(async () => (third.destroyed || third.closed ? true : undefined), 'the refused connection to close');
    assert.equal((await call(first, sendFrame('one again'), true)).status, grpcStatus.OK);
    second.close();
    await sleep(100);
    assert.equal((await call(open(server), sendFrame('four'), true)).status, grpcStatus.OK, 'a slot freed is usable again');
  });

  test('a connection reaching maxConnectionAgeMs gets GOAWAY (NO_ERROR) and its running call still finishes', async () => {
    const server = await start({ demo: { slowMs: 800, tickMs: 100 }, grpc: { maxConnectionAgeMs: 200, maxConnectionAgeGraceMs: 5_000 } });
    const session = open(server);
    let goaway: number | undefined;
    session.on('goaway', (code) => (goaway = code));
    const running = call(session, sendFrame('slow job'), true);
    await eventually(async () => (goaway !== undefined ? true : undefined), 'GOAWAY');
    assert.equal(goaway, http2.constants.NGHTTP2_NO_ERROR);
    const outcome = await running;
    assert.equal(outcome.status, grpcStatus.OK, 'the call begun before the GOAWAY finished');
    assert.ok(outcome.ms >= 700);
  });

  test('a stream still open past maxConnectionAgeMs + its grace ends UNAVAILABLE (the client resubscribes elsewhere)', async () => {
    const server = await start({ demo: { slowMs: 1e9, tickMs: 1e8 }, grpc: { maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 300 } });
    const client = createGrpcClient(server.address);
    try {
      const sent = await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'slow forever' }] }, configuration: { returnImmediately: true } });
      assert.ok('task' in sent);
      const events: unknown[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of client.subscribeToTask({ id: sent.task.id })) events.push(event);
        })(),
        (e: unknown) => /UNAVAILABLE/.test(String(e)),
      );
      assert.equal(events.length, 1, 'the snapshot came before the connection aged out');
      await eventually(async () => (server.running.openStreams === 0 ? true : undefined), 'the server to let go of the stream');
    } finally {
      client.close();
    }
  });
});
