/**
 * R24 over gRPC: a stream to an instance that froze (SIGSTOP: no FIN, no RST, the socket stays
 * open) ends NETWORK once an HTTP/2 keepalive PING goes unanswered, instead of waiting forever,
 * so createClient can resubscribe elsewhere. The server is a real `a2a serve` process working
 * on a `slow` task (an event every 200 ms) when it is stopped.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { A2AClientError } from '../../src/client/errors.js';
import { createGrpcClient, type GrpcTransportOptions } from '../../src/bindings/grpc/client.js';
import { runA2A, type A2AProcess } from '../cli/cliHelpers.js';

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) {
    p.child.kill('SIGCONT');
    p.kill('SIGKILL');
  }
});

async function frozenMidStream(options: GrpcTransportOptions): Promise<{ error: unknown; afterStopMs: number }> {
  const proc = runA2A(['serve', '--port', '0', '--grpc-port', '0', '--json', '--store', 'memory'], { A2A_DEMO_SLOW_MS: '600000', A2A_DEMO_TICK_MS: '200' });
  procs.push(proc);
  const { grpc } = JSON.parse(await proc.waitForLine(/^\{/)) as { grpc: string };
  const client = createGrpcClient(grpc, options);
  try {
    const events = client.sendStreamingMessage({ message: { messageId: `keepalive-${process.pid}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'slow x' }] } });
    let seen = 0;
    let stoppedAt = 0;
    try {
      for await (const _event of events) {
        if (++seen === 3) {
          proc.child.kill('SIGSTOP');
          stoppedAt = Date.now();
        }
      }
    } catch (error) {
      return { error, afterStopMs: Date.now() - stoppedAt };
    }
    return assert.fail(`the stream ended without an error after ${seen} events`);
  } finally {
    client.close();
    proc.child.kill('SIGCONT');
    proc.kill('SIGKILL');
  }
}

describe('gRPC client keepalive (R24)', () => {
  test('a stream to a frozen server ends NETWORK once a PING goes unanswered', async () => {
    const { error, afterStopMs } = await frozenMidStream({ channelOptions: { 'grpc.keepalive_time_ms': 300, 'grpc.keepalive_timeout_ms': 300 } });
    assert.ok(error instanceof A2AClientError, String(error));
    assert.equal(error.code, 'NETWORK');
    assert.ok(afterStopMs < 5_000, `ended ${afterStopMs} ms after the server froze`);
  });

  test('by default (30 s + 10 s) too: the stream ends within about 40 s, not never', { timeout: 60_000 }, async () => {
    const { error, afterStopMs } = await frozenMidStream({});
    assert.ok(error instanceof A2AClientError, String(error));
    assert.equal(error.code, 'NETWORK');
    assert.ok(afterStopMs > 25_000 && afterStopMs < 50_000, `ended ${afterStopMs} ms after the server froze`);
  });
});
