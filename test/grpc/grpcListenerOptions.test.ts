/**
 * The gRPC listener's settings reach it from serveAgent (the whole `grpc` option, nothing
 * dropped) and from `a2a serve` (--grpc-max-connection-age-ms, --grpc-max-streams-per-connection):
 * the HTTP/2 SETTINGS a client reads and the GOAWAY it gets at the maximum connection age, with
 * its running call finishing.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, describe, test } from 'node:test';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { status as grpcStatus } from '@grpc/grpc-js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { grpcListenerFlags } from '../../src/cli/commands/serveFlags.js';
import { serveAgent } from '../../src/node/serveAgent.js';
import { SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { UsageError } from '../../src/cli/usage.js';
import { uid } from '../support/assertions.js';
import { runA2A, type A2AProcess } from '../cli/cliHelpers.js';

/** A raw HTTP/2 connection's view of a gRPC listener: its SETTINGS, its GOAWAY, and one SendMessage. */
async function inspect(address: string, text: string): Promise<{ maxConcurrentStreams: number | undefined; goaway: Promise<number>; status: Promise<number | undefined> }> {
  const session = http2.connect(`http://${address}`);
  session.on('error', () => undefined);
  const goaway = new Promise<number>((resolve) => session.once('goaway', resolve));
  await new Promise((resolve) => session.once('remoteSettings', resolve));
  const body = toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, { message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text }] } }));
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  const stream = session.request({ ':method': 'POST', ':path': '/lf.a2a.v1.A2AService/SendMessage', 'content-type': 'application/grpc', te: 'trailers', 'a2a-version': '1.0' });
  let status: number | undefined;
  stream.on('trailers', (t) => (status = Number(t['grpc-status'])));
  stream.on('error', () => undefined);
  stream.resume();
  stream.end(Buffer.concat([prefix, body]));
  const done = new Promise<number | undefined>((resolve) => stream.on('close', () => resolve(status)));
  void done.then(() => session.close());
  return { maxConcurrentStreams: session.remoteSettings.maxConcurrentStreams, goaway, status: done };
}

describe('gRPC listener settings reach the listener', () => {
  const procs: A2AProcess[] = [];
  after(() => {
    for (const p of procs) p.kill();
  });

  test('serveAgent forwards its whole grpc option to serveGrpc (maxConcurrentStreams, maxConnectionAgeMs...), not a chosen few', async () => {
    const running = await serveAgent({
      agent: { card: demoCard(), executor: createDemoAgent({ slowMs: 700, tickMs: 100 }) },
      port: 0,
      grpc: { port: 0, maxConcurrentStreams: 7, maxConnectionAgeMs: 200, maxConnectionAgeGraceMs: 5_000, keepaliveMs: 0 },
    });
    try {
      const seen = await inspect(`127.0.0.1:${running.grpc?.port}`, 'slow job');
      assert.equal(seen.maxConcurrentStreams, 7);
      assert.equal(await seen.goaway, http2.constants.NGHTTP2_NO_ERROR);
      assert.equal(await seen.status, grpcStatus.OK, 'the call running at the GOAWAY finished');
    } finally {
      await running.close();
    }
  });

  test('a2a serve --grpc-max-connection-age-ms / --grpc-max-streams-per-connection reach the gRPC listener', async () => {
    const proc = runA2A(
      ['serve', '--port', '0', '--json', '--store', 'memory', '--grpc-port', '0', '--grpc-max-connection-age-ms', '300', '--grpc-max-streams-per-connection', '9'],
      { A2A_DEMO_SLOW_MS: '800', A2A_DEMO_TICK_MS: '100' },
    );
    procs.push(proc);
    const urls = JSON.parse(await proc.waitForLine(/^\{/)) as { grpc: string };
    const seen = await inspect(urls.grpc.replace(/^localhost:/, '127.0.0.1:'), 'slow job');
    assert.equal(seen.maxConcurrentStreams, 9);
    assert.equal(await seen.goaway, http2.constants.NGHTTP2_NO_ERROR);
    assert.equal(await seen.status, grpcStatus.OK);
    // The default without the flags: 100 streams per connection.
    const plain = runA2A(['serve', '--port', '0', '--json', '--store', 'memory', '--grpc-port', '0']);
    procs.push(plain);
    const plainUrls = JSON.parse(await plain.waitForLine(/^\{/)) as { grpc: string };
    const defaults = await inspect(plainUrls.grpc.replace(/^localhost:/, '127.0.0.1:'), 'hi');
    assert.equal(defaults.maxConcurrentStreams, 100);
    assert.equal(await defaults.status, grpcStatus.OK);
  });

  test('the gRPC flags need --grpc-port and take integers (usage errors)', () => {
    assert.deepEqual(grpcListenerFlags({ 'grpc-port': '0', 'grpc-max-connection-age-ms': '0' }), { maxConnectionAgeMs: 0 });
    assert.throws(() => grpcListenerFlags({ 'grpc-max-connection-age-ms': '1000' }), (e: unknown) => e instanceof UsageError && /need --grpc-port/.test(e.message));
    assert.throws(() => grpcListenerFlags({ 'grpc-port': '0', 'grpc-max-streams-per-connection': '0' }), UsageError);
    assert.throws(() => grpcListenerFlags({ 'grpc-port': '0', 'grpc-max-connection-age-ms': '5m' }), UsageError);
  });
});
