/**
 * `--binding grpc`: the commands load the gRPC transport (src/bindings/grpc) on demand and call
 * an agent whose card offers only a GRPC interface. The agent is a gRPC server in this process
 * (test/grpc/support.ts) with its card served over HTTP. Skipped when the binding cannot load.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SendMessageResponse, StreamResponse } from '../../src/protocol/types.js';
import { runToExit } from './cliHelpers.js';

/** What this file uses of test/grpc/support.ts (imported by a computed path: optional, untyped). */
interface GrpcSupport {
  startGrpcServer(): Promise<{ address: string; card: unknown; close(): Promise<void> }>;
}
const supportPath = '../grpc/support.js';
const grpc = (await import(supportPath).catch(() => undefined)) as GrpcSupport | undefined;
const skip = grpc ? false : 'the gRPC binding (or @grpc/grpc-js) is not available';

let close: (() => Promise<void>) | undefined;
let url = '';
let address = '';
/** A card whose only interface is a gRPC address nothing listens on. */
let downUrl = '';

async function serveCard(card: unknown): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function closedPort(): Promise<number> {
  const { server } = await serveCard({});
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  if (!grpc) return;
  const agent = await grpc.startGrpcServer();
  address = agent.address;
  const served = await serveCard(agent.card);
  url = served.url;
  const downCard = { ...(agent.card as object), supportedInterfaces: [{ url: `127.0.0.1:${await closedPort()}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }] };
  const down = await serveCard(downCard);
  downUrl = down.url;
  close = async () => {
    served.server.close();
    down.server.close();
    await agent.close();
  };
});
after(() => close?.());

const a2a = (...args: string[]) => runToExit(args);

describe('--binding grpc', { skip, concurrency: 3 }, () => {
  test('send: the task over gRPC (exit 0); --verbose names the GRPC interface and shows the bodies', async () => {
    const r = await a2a('send', url, 'hi over grpc', '--binding', 'grpc', '--json', '--verbose');
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as SendMessageResponse;
    assert.ok('task' in result && result.task.status.state === 'TASK_STATE_COMPLETED');
    assert.ok(r.stderr.includes(`* sendMessage via GRPC ${address}`), r.stderr);
    assert.match(r.stderr, /^> \{"message":\{/m);
    assert.match(r.stderr, /^< \{"task":\{/m);
  });

  test('stream: the 10 chunks as JSON lines; the human rendering too', async () => {
    const r = await a2a('stream', url, 'stream abc', '--binding', 'grpc', '--json');
    assert.equal(r.code, 0, r.stderr);
    const events = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as StreamResponse);
    assert.equal(events.filter((e) => 'artifactUpdate' in e).length, 10);
    const human = await a2a('stream', url, 'stream abc', '--binding', 'grpc');
    assert.match(human.stdout, /^chunk 10\/10: abc$/m);
    assert.match(human.stdout, /^completed {2}task /m);
  });

  test('errors keep their exit codes: unknown task → 3 TASK_NOT_FOUND; fail → 5', async () => {
    const r = await a2a('get', url, 'no-such-task', '--binding', 'grpc');
    assert.equal(r.code, 3);
    assert.match(r.stderr, /TASK_NOT_FOUND/);
    assert.equal((await a2a('send', url, 'fail x', '--binding', 'grpc')).code, 5);
  });

  test('a gRPC failure is said once and its code is not called an HTTP status: [gRPC NOT_FOUND], grpcCode 14', async () => {
    const notFound = await a2a('get', url, 'no-such-task', '--binding', 'grpc', '--json');
    assert.equal(notFound.code, 3);
    assert.match(notFound.stderr, /TASK_NOT_FOUND: .* \[gRPC NOT_FOUND\]$/m);
    const { error: protocol } = JSON.parse(notFound.stdout) as { error: Record<string, unknown> };
    assert.deepEqual([protocol.grpcCode, protocol.status], [5, undefined]);
    // --verbose too: responseInfo's HTTP equivalent (404) is not what went over the wire.
    const verbose = await a2a('get', url, 'no-such-task', '--binding', 'grpc', '--verbose');
    assert.match(verbose.stderr, /getTask failed: TASK_NOT_FOUND: .* \[gRPC NOT_FOUND\]/);
    assert.doesNotMatch(verbose.stderr, /HTTP 404/);

    const r = await a2a('send', downUrl, 'hi', '--binding', 'grpc', '--json');
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.match(r.stderr, /^a2a send: client error: NETWORK: Could not reach gRPC 127\.0\.0\.1:\d+ over plaintext: connection refused, nothing listens on that port \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) \[gRPC UNAVAILABLE\]$/m);
    assert.equal(r.stderr.match(/ECONNREFUSED/g)?.length, 1, `said once: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /HTTP|Resolution note/);
    const { error } = JSON.parse(r.stdout) as { error: Record<string, unknown> };
    assert.deepEqual([error.code, error.grpcCode, error.status], ['NETWORK', 14, undefined]);
  });

  test('GRPC-06 the gRPC address given as the agent URL: a hint to give the HTTP URL with --binding grpc, exit codes kept (4, 2)', async () => {
    const hint = /for a gRPC agent, give its HTTP URL \(where its card is\) with --binding grpc/;
    // http://host:grpcPort: the card request meets an HTTP/2 server.
    const http2 = await a2a('send', `http://${address}`, 'hi', '--json');
    assert.equal(http2.code, 4, http2.stderr);
    assert.match(http2.stderr, /^a2a send: client error: NETWORK: Could not reach .*agent-card\.json \(the server answered in HTTP\/2, not HTTP\/1\.1: a gRPC port\? /);
    assert.match(http2.stderr, hint);
    assert.match((JSON.parse(http2.stdout) as { error: { message: string } }).error.message, hint);
    // host:port, the card's GRPC url form, without a scheme.
    for (const arg of [address, address.replace('127.0.0.1', 'localhost'), '[::1]:50051']) {
      const bare = await a2a('send', arg, 'hi', '--binding', 'grpc');
      assert.equal(bare.code, 2, bare.stderr);
      assert.match(bare.stderr, new RegExp(`^a2a send: <url> must be an absolute http\\(s\\) URL, got "${arg.replace(/[[\].]/g, '\\$&')}": add http:// \\(or https://\\); `));
      assert.match(bare.stderr, hint);
    }
  });

  test('CARD-05 without --binding a card offering only GRPC is called over gRPC (test/cli/grpcOnlyAgent.test.ts)', async () => {
    const r = await a2a('send', url, 'hi', '--json', '--verbose');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.includes(`* sendMessage via GRPC ${address}`), r.stderr);
  });
});
