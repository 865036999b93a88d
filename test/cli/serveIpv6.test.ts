/**
 * `a2a serve --host ::1`: the card advertises `[::1]`, not `localhost` (which may resolve to
 * 127.0.0.1 only, where nothing listens), so a client following the card's interface URLs
 * reaches the agent over every binding. Skipped on a machine without an IPv6 loopback.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AgentCard, SendMessageResponse } from '../../src/protocol/types.js';
import { runToExit, startServe, type A2AProcess } from './cliHelpers.js';

/** Whether something can listen on ::1 here. */
function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => server.close(() => resolve(true)));
  });
}

const skip = (await hasIpv6Loopback()) ? false : 'this machine has no IPv6 loopback (::1)';
const grpcAvailable = await import('@grpc/grpc-js').then(
  () => true,
  () => false,
);

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

describe('a2a serve --host ::1', { skip }, () => {
  test('CARD-04 GRPC-06 the card advertises [::1], and a2a send over its JSON-RPC, HTTP+JSON and gRPC interfaces completes', async () => {
    const { proc, urls } = await startServe(['--host', '::1', ...(grpcAvailable ? ['--grpc-port', '0'] : [])]);
    procs.push(proc);
    const port = new URL(urls.card).port;
    assert.equal(urls.card, `http://[::1]:${port}/.well-known/agent-card.json`);
    const card = (await (await fetch(urls.card)).json()) as AgentCard;
    const byBinding = Object.fromEntries(card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0').map((i) => [i.protocolBinding, i.url]));
    assert.equal(byBinding.JSONRPC, `http://[::1]:${port}/a2a/jsonrpc`);
    assert.equal(byBinding['HTTP+JSON'], `http://[::1]:${port}/a2a/rest`);
    if (grpcAvailable) assert.match(byBinding.GRPC ?? '', /^\[::1\]:\d+$/);

    const bindings = grpcAvailable ? ['jsonrpc', 'rest', 'grpc'] : ['jsonrpc', 'rest'];
    const runs = await Promise.all(bindings.map((b) => runToExit(['send', `http://[::1]:${port}`, 'hi', '--binding', b, '--json'])));
    runs.forEach((r, i) => {
      assert.equal(r.code, 0, `${bindings[i]}: ${r.stderr}`);
      const result = JSON.parse(r.stdout) as SendMessageResponse;
      assert.ok('task' in result && result.task.status.state === 'TASK_STATE_COMPLETED', `${bindings[i]}: ${r.stdout}`);
    });
  });
});
