/**
 * R9 gRPC connections hold nothing once their client is gone — even a connection Node's HTTP/2
 * no longer reads. nghttp2 ends a session whose client resets streams faster than its
 * rapid-reset limit (a burst of 1000, then 33/s) with GOAWAY INTERNAL_ERROR; once that session
 * has no stream left Node stops reading its socket, never sees the client close it, and keeps
 * the socket in CLOSE-WAIT with its fd. The listener's keepalive (`keepaliveMs`) pings every
 * connection and closes one whose ping goes unanswered; clients answer pings themselves, so a
 * quiet SubscribeToTask stays open. Linux: the sockets are read from /proc/net/tcp*.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import http2 from 'node:http2';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { SubscribeToTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { eventually, sleep, uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const LISTEN = '0A';
const TIME_WAIT = '06';
/** Calls started together, then reset together. */
const BATCH = 20;

/** States of the server's own sockets on `port` (listening and TIME-WAIT left out), e.g. ["08"] = one in CLOSE-WAIT. */
function serverSockets(port: number): string[] {
  const states: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local && state && parseInt(local.split(':').at(-1) ?? '', 16) === port && state !== LISTEN && state !== TIME_WAIT) states.push(state);
    }
  }
  return states;
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

/** A gRPC message frame: flag 0, 4-byte length, the SubscribeToTask request. */
function subscribeFrame(id: string): Buffer {
  const body = toBinary(SubscribeToTaskRequestSchema, fromJson(SubscribeToTaskRequestSchema, { id }));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/**
 * One HTTP/2 connection starting SubscribeToTask calls and resetting each at once, until the
 * server's GOAWAY (rapid-reset protection) ends it; Node's client then closes its socket.
 */
async function resetUntilGoaway(address: string, taskId: string): Promise<number> {
  const session = http2.connect(`http://${address}`);
  session.on('error', () => undefined);
  let goaway: number | undefined;
  session.on('goaway', (code) => (goaway = code));
  const frame = subscribeFrame(taskId);
  let calls = 0;
  while (goaway === undefined && calls < 5000) {
    const batch = Array.from({ length: BATCH }, () => {
      const call = session.request({ ':method': 'POST', ':path': '/lf.a2a.v1.A2AService/SubscribeToTask', 'content-type': 'application/grpc', te: 'trailers', 'a2a-version': '1.0' });
      call.on('error', () => undefined);
      call.end(frame);
      return call;
    });
    await new Promise(setImmediate);
    for (const call of batch) call.close(http2.constants.NGHTTP2_CANCEL);
    await new Promise(setImmediate);
    calls += BATCH;
  }
  session.destroy();
  assert.equal(goaway, http2.constants.NGHTTP2_INTERNAL_ERROR, `nghttp2 ended the session after ${calls} resets`);
  return calls;
}

describe('R9 gRPC connections whose client is gone are closed (keepalive)', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  let server: GrpcTestServer;
  let taskId: string;
  before(async () => {
    // A ping every 200 ms; a second to answer, so a busy test machine does not look like a dead peer.
    server = await startGrpcServer({ demo: { slowMs: 1e9, tickMs: 1e8 }, grpc: { keepaliveMs: 200, serverOptions: { 'grpc.keepalive_timeout_ms': 1000 } } });
    const client = createGrpcClient(server.address);
    const result = await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'slow forever' }] }, configuration: { returnImmediately: true } });
    client.close();
    assert.ok('task' in result);
    taskId = result.task.id;
  });
  after(() => server.close());

  test('R9 a connection nghttp2 ended for rapid resets is closed after its first unanswered ping: no socket left in CLOSE-WAIT, fds back to baseline', async () => {
    const port = server.running.port;
    await eventually(async () => (serverSockets(port).length === 0 ? true : undefined), 'the setup connection to close');
    const fds = openFds();
    await resetUntilGoaway(server.address, taskId);
    await eventually(
      async () => (serverSockets(port).length === 0 && openFds() <= fds ? true : undefined),
      `the server to close its socket (still: ${serverSockets(port).join(',')}; 08 = CLOSE-WAIT)`,
      4000,
    );
    assert.equal(server.running.openStreams, 0);
  });

  test('R9 keepalive does not cut a quiet long stream: SubscribeToTask with no events stays open over many ping periods', async () => {
    const client = createGrpcClient(server.address);
    const abort = new AbortController();
    try {
      const events: unknown[] = [];
      const reading = (async () => {
        for await (const event of client.subscribeToTask({ id: taskId }, { signal: abort.signal })) events.push(event);
      })();
      reading.catch(() => undefined);
      await eventually(async () => (events.length === 1 ? true : undefined), 'the task snapshot');
      await sleep(1500);
      assert.equal(server.running.openStreams, 1, 'the stream is still open');
      abort.abort();
      await assert.rejects(reading, (e: unknown) => (e as Error).name === 'AbortError' || /abort|cancel/i.test(String(e)));
      assert.equal(events.length, 1, 'no event arrived: the task is still working');
    } finally {
      client.close();
    }
  });

  test('pings arrive every keepaliveMs; serverOptions grpc.keepalive_time_ms overrides it (0 = none)', async () => {
    const pings = async (address: string): Promise<number> => {
      const session = http2.connect(`http://${address}`);
      let n = 0;
      session.on('ping', () => n++);
      await sleep(700);
      session.destroy();
      return n;
    };
    assert.ok((await pings(server.address)) >= 2);
    const quiet = await startGrpcServer({ grpc: { keepaliveMs: 200, serverOptions: { 'grpc.keepalive_time_ms': 0 } } });
    try {
      assert.equal(await pings(quiet.address), 0);
    } finally {
      await quiet.close();
    }
  });
});
