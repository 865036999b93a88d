/**
 * R20 / VER-06: `serveAgent` negotiates the same protocol versions on every binding. Its
 * `handler.supportedVersions` is the one setting: the gRPC listener refuses what JSON-RPC and
 * HTTP+JSON refuse, with the same error (message and ErrorInfo metadata), and a client falls
 * back to A2A 0.3 on each binding alike.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { grpc03Transport, grpcTransport } from '../../src/bindings/grpc/index.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { VersionNotSupportedError, createClient, type Task } from '../../src/client/index.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

describe('serveAgent with handler.supportedVersions ["0.3"]: every binding negotiates the same versions', () => {
  let agent: RunningAgent;
  before(async () => {
    agent = await serveAgent({
      agent: { card: demoCard(), executor: createDemoAgent() },
      port: 0,
      host: '127.0.0.1',
      shutdownTimeoutMs: 300,
      health: false,
      grpc: { port: 0 },
      handler: { supportedVersions: ['0.3'] },
    });
  });
  after(() => agent.close());

  test('R20/VER-06: a 1.0 call is refused with the same VersionNotSupportedError over JSON-RPC, HTTP+JSON and gRPC', async () => {
    const grpc = grpcTransport();
    try {
      const refusals: unknown[] = [];
      for (const binding of BINDINGS) {
        const client = await createClient(agent.agentCard, { transports: [grpc], bindings: [binding], versions: ['1.0'] });
        const error = await client.sendText('hello').then(
          () => assert.fail(`${binding}: the 1.0 call was served`),
          (e: unknown) => e,
        );
        assert.ok(error instanceof VersionNotSupportedError, `${binding}: ${String(error)}`);
        refusals.push([error.message, error.metadata]);
      }
      const expected = ['Protocol version 1.0 is not supported; supported: 0.3', { requestedVersion: '1.0', supportedVersions: '0.3' }];
      assert.deepEqual(refusals, [expected, expected, expected]);
    } finally {
      grpc.close();
    }
  });

  test('VER-06 fallback: without options the client reaches the agent over 0.3 on each binding', async () => {
    const grpc = grpc03Transport();
    try {
      for (const binding of BINDINGS) {
        const client = await createClient(agent.agentCard, { transports: [grpc], bindings: [binding] });
        const result = await client.sendText(`hello ${binding}`);
        assert.ok('task' in result, `${binding}: ${JSON.stringify(result)}`);
        assert.equal((result.task as Task).status.state, 'TASK_STATE_COMPLETED', binding);
      }
    } finally {
      grpc.close();
    }
  });
});
