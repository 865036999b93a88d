/**
 * CARD-05 in the CLI: an agent whose card offers only gRPC (serveAgent with both HTTP bindings
 * off) is reached by the real `a2a` process without `--binding grpc` — the gRPC transport is
 * loaded because the card offers nothing the HTTP transports speak — while agents offering an
 * HTTP binding keep it, and a card offering no binding the CLI has still ends in
 * NO_COMPATIBLE_INTERFACE (exit 4). (`a2a send <url> hi` exited 4 with NO_COMPATIBLE_INTERFACE.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import type { RunningAgent } from '../../src/node/serveAgent.js';
import type { SendMessageResponse } from '../../src/protocol/types.js';
import { runToExit } from './cliHelpers.js';

const grpcLoads = await import('@grpc/grpc-js').then(
  () => true,
  () => false,
);
const skip = grpcLoads ? false : '@grpc/grpc-js is not available';

let agent: RunningAgent | undefined;
let foreign: Server | undefined;
let foreignUrl = '';

before(async () => {
  if (!grpcLoads) return;
  const { serveAgent } = await import('../../src/node/serveAgent.js');
  agent = await serveAgent({
    agent: { card: demoCard(), executor: createDemoAgent() },
    port: 0,
    handler: { jsonRpcPath: null, restPath: null },
    grpc: { port: 0 },
  });
  // A card whose only interface is a binding no transport of the CLI speaks.
  const card = { ...agent.agentCard, supportedInterfaces: [{ url: 'http://127.0.0.1:1/x', protocolBinding: 'CARRIER-PIGEON', protocolVersion: '1.0' }] };
  foreign = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
  await new Promise<void>((resolve) => foreign?.listen(0, '127.0.0.1', resolve));
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
});

after(async () => {
  foreign?.close();
  await agent?.close();
});

describe('a2a against a gRPC-only agent, without --binding', { skip }, () => {
  test('CARD-05 the card offers only GRPC: send goes over gRPC (exit 0), the interface named in --verbose', async () => {
    const card = agent?.agentCard;
    assert.deepEqual(card?.supportedInterfaces.map((i) => i.protocolBinding), ['GRPC'], 'the agent offers gRPC only');
    const r = await runToExit(['send', agent?.url ?? '', 'hi', '--json', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as SendMessageResponse;
    assert.ok('task' in result && result.task.status.state === 'TASK_STATE_COMPLETED', r.stdout);
    assert.ok(r.stderr.includes(`* sendMessage via GRPC ${card?.supportedInterfaces[0]?.url}`), r.stderr);
    assert.doesNotMatch(r.stderr, /NO_COMPATIBLE_INTERFACE/);
  });

  test('CARD-05 stream and get work the same way', async () => {
    const streamed = await runToExit(['stream', agent?.url ?? '', 'stream abc', '--json']);
    assert.equal(streamed.code, 0, streamed.stderr);
    const events = streamed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(events.some((e) => 'artifactUpdate' in e));
    const taskId = (events.find((e) => 'task' in e) as { task: { id: string } } | undefined)?.task.id ?? '';
    const got = await runToExit(['get', agent?.url ?? '', taskId, '--json']);
    assert.equal(got.code, 0, got.stderr);
  });

  test('a2a card marks the GRPC interface as the one the commands use', async () => {
    const r = await runToExit(['card', agent?.url ?? '']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\*.*GRPC/, r.stdout);
  });

  test('CARD-05 a card offering no binding the CLI has still exits 4 NO_COMPATIBLE_INTERFACE', async () => {
    const r = await runToExit(['send', foreignUrl, 'hi']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /NO_COMPATIBLE_INTERFACE: The agent offers CARRIER-PIGEON 1\.0/);
  });
});
