/**
 * The client (createClient) with the gRPC transport plugged in: interface selection from the
 * card (CARD-05), A2A-Version on every call (VER-02), typed errors, and a task stream that
 * survives its listener restarting — the client resubscribes with `last-event-id` and gets
 * exactly the events it missed (R7 over gRPC).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { grpcTransport } from '../../src/bindings/grpc/client.js';
import { serveGrpc } from '../../src/bindings/grpc/listener.js';
import { createClient } from '../../src/client/client.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import type { StreamResponse } from '../../src/protocol/types.js';
import { eventually } from '../support/assertions.js';
import { startGrpcServer } from './support.js';

function progressOf(e: StreamResponse): number | undefined {
  if (!('statusUpdate' in e)) return undefined;
  const text = e.statusUpdate.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('') ?? '';
  const m = /^progress (\d+)\//.exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('createClient with grpcTransport()', () => {
  test('CARD-05 picks the GRPC interface; operations, streams and typed errors work through the client', async () => {
    const server = await startGrpcServer();
    const transport = grpcTransport();
    try {
      const client = await createClient(server.card, { transports: [transport] });
      assert.equal(client.agentInterface.protocolBinding, 'GRPC');
      assert.equal(client.agentInterface.url, server.address);
      const sent = await client.sendText('hi via client');
      assert.ok('task' in sent && sent.task.status.state === 'TASK_STATE_COMPLETED');
      const events: StreamResponse[] = [];
      for await (const e of client.streamText('stream via client')) events.push(e);
      assert.equal(events.length, 13);
      assert.equal((await client.getTask({ id: sent.task.id })).id, sent.task.id);
      await assert.rejects(client.getTask({ id: 'missing' }), TaskNotFoundError);
      assert.equal((await client.listTasks({ pageSize: 1 })).pageSize, 1);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test('R7 a stream cut by a listener restart is resumed with last-event-id: no gap, no duplicate', async () => {
    const server = await startGrpcServer({ demo: { slowMs: 1500, tickMs: 50 }, grpc: { drainOnClose: false } });
    const port = server.running.port;
    const transport = grpcTransport({ channelOptions: { 'grpc.initial_reconnect_backoff_ms': 50, 'grpc.max_reconnect_backoff_ms': 200 } });
    let second: Awaited<ReturnType<typeof serveGrpc>> | undefined;
    try {
      const client = await createClient(server.card, { transports: [transport], resume: { delayMs: 100, retries: 10 } });
      const sent = await client.sendText('slow resumable', { configuration: { returnImmediately: true } });
      assert.ok('task' in sent);
      const events: StreamResponse[] = [];
      const reading = (async () => {
        for await (const e of client.subscribeToTask({ id: sent.task.id })) events.push(e);
      })();
      await eventually(async () => (events.length >= 4 ? true : undefined), 'a few events');
      // The listener goes away mid-stream (open streams end with UNAVAILABLE), then comes back
      // on the same port in front of the same handler, as a restarted instance would.
      await server.running.close();
      second = await serveGrpc(server.handler, { port, host: '127.0.0.1', drainOnClose: false });
      await reading;
      const last = events.at(-1);
      assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
      const progress = events.map(progressOf).filter((n): n is number => n !== undefined);
      assert.ok(progress.length > 4, `progress events: ${progress.join(',')}`);
      progress.forEach((n, i) => {
        if (i > 0) assert.equal(n, (progress[i - 1] as number) + 1, `consecutive progress: ${progress.join(',')}`);
      });
      const snapshots = events.filter((e) => 'task' in e).length;
      assert.equal(snapshots, 1, 'the resumed stream replays after the last id instead of sending a new snapshot');
    } finally {
      transport.close();
      await second?.close();
      await server.close();
    }
  });
});
