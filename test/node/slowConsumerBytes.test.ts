/**
 * R10 slow consumers, bounded in bytes as well as in events, over real sockets: a subscriber
 * that does not read while the agent writes a few large artifact chunks is dropped once the
 * events waiting for it pass `maxStreamBufferBytes` (default 8 MiB) — well before the 10,000
 * events of `maxStreamBuffer` — with the usual "too slow" error event once it reads again. The
 * task completes, and a subscriber that reads gets every event.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type net from 'node:net';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { DEFAULT_MAX_BUFFERED_BYTES } from '../../src/server/taskStream.js';
import { connect, rpcStream, startServer, stateOf, userMessage, waitUntil, within, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const MiB = 1024 * 1024;
const CHUNK = 'x'.repeat(4 * MiB);
const CHUNKS = 8; // 32 MiB in all: 4 times the default byte bound, and 8 events against a bound of 10,000

/**
 * WORKING, then waits for `go`, then CHUNKS artifact chunks of 4 MiB, then COMPLETED. The chunks
 * come PACE_MS apart (~40 MB/s): a subscriber that reads keeps up even on a loaded machine, so
 * only the one that reads nothing falls behind by more than the bound for longer than the grace.
 */
const PACE_MS = 100;
function bigChunks(go: Promise<void>): AgentExecutor {
  return {
    async execute(_ctx, task) {
      await task.startWork('about to stream');
      await go;
      const artifactId = 'big';
      for (let i = 1; i <= CHUNKS; i++) {
        await task.addArtifact(CHUNK, { artifactId, append: i > 1, lastChunk: i === CHUNKS });
        await new Promise((resolve) => setTimeout(resolve, PACE_MS));
      }
      await task.complete('done');
    },
  };
}

/** A SubscribeToTask over a raw socket that reads nothing until `read()`. */
async function stalledSubscriber(port: number, taskId: string): Promise<{ socket: net.Socket; read: () => Promise<string> }> {
  const socket = await connect(port);
  socket.on('error', () => undefined);
  socket.pause();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'SubscribeToTask', params: { id: taskId } });
  socket.write(
    `POST /a2a/jsonrpc HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const read = async (): Promise<string> => {
    let tail = '';
    let bytes = 0;
    socket.setEncoding('latin1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (d: string) => {
      bytes += d.length;
      tail = (tail + d).slice(-4096);
    });
    socket.resume();
    await within(closed, 20_000, undefined);
    return `${bytes} bytes; tail: ${tail}`;
  };
  return { socket, read };
}

test('R10 a subscriber that does not read is dropped once more than maxStreamBufferBytes (8 MiB) of large artifact events wait for it; the task completes and a reading subscriber gets everything', async () => {
  assert.equal(DEFAULT_MAX_BUFFERED_BYTES, 8 * MiB);
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  const errors: unknown[] = [];
  const s = await startServer(bigChunks(gate), { onError: (e) => errors.push(e) }, { onError: (e) => errors.push(e) });
  servers.push(s);

  const reader = await rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: userMessage('big') });
  await reader.waitFor((events) => events.some((e) => e.data?.includes('TASK_STATE_WORKING')), 5_000, 'WORKING');
  const taskId = (reader.payloads.find((p) => 'task' in (p as object)) as { task: { id: string } }).task.id;

  const slow = await stalledSubscriber(s.port, taskId);
  await waitUntil(() => s.bus.size === 2, 5_000, 'both subscribers attached');
  go();

  await within(reader.ended, 20_000, undefined);
  assert.ok(reader.isEnded, 'the reading subscriber got to the end');
  const states = reader.payloads.map(stateOf).filter((state) => state !== undefined);
  assert.equal(states.at(-1), 'TASK_STATE_COMPLETED');
  assert.equal(reader.payloads.filter((p) => 'artifactUpdate' in (p as object)).length, CHUNKS, 'every chunk reached the reading subscriber');

  // The stalled subscriber was let go while it still read nothing: no subscription, no buffer.
  await waitUntil(() => s.bus.size === 0, 5_000, 'the stalled subscriber to be dropped');

  const received = await slow.read();
  slow.socket.destroy();
  assert.match(received, /too slow/, 'it ends with the R10 error event once it reads');
  assert.doesNotMatch(received.slice(-4096), /TASK_STATE_COMPLETED/, 'and not with the end of the task');
  assert.deepEqual(errors, [], 'a slow reader is not reported to onError');
});

test('R10 maxStreamBufferBytes is configurable; one event larger than the bound still reaches a subscriber that reads', async () => {
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  // A bound below one chunk: a reader that keeps up is never dropped for a single large event.
  const s = await startServer(bigChunks(gate), { maxStreamBufferBytes: MiB });
  servers.push(s);
  const reader = await rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: userMessage('big') });
  await reader.waitFor((events) => events.some((e) => e.data?.includes('TASK_STATE_WORKING')), 5_000, 'WORKING');
  go();
  await within(reader.ended, 20_000, undefined);
  const states = reader.payloads.map(stateOf).filter((state) => state !== undefined);
  assert.equal(states.at(-1), 'TASK_STATE_COMPLETED', JSON.stringify(reader.parser.raw.slice(-300)));
  assert.equal(reader.payloads.filter((p) => 'artifactUpdate' in (p as object)).length, CHUNKS);
});
