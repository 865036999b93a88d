/**
 * R24 over SSE: a client stream to a server that froze (SIGSTOP: the kernel still holds the
 * connection, no FIN, no RST) or sits behind a partition would wait forever. Once the server
 * has sent a heartbeat comment, a silence longer than max(streamIdleMs, 3 × the longest wait so
 * far) drops the stream as a broken connection (NETWORK) and createClient resubscribes with
 * Last-Event-ID. Our server opens every stream's first frame with a comment, so a busy stream
 * is watched too. A server that sends no comments is never cut, however long it is silent.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createClient, type StreamResponse } from '../../src/client/index.js';
import { A2AClientError } from '../../src/client/errors.js';
import { readSse, SseParser } from '../../src/client/sse.js';
import { startServe, type A2AProcess } from '../cli/cliHelpers.js';
import { cardAt, startFakeAgent, task } from './fakeAgent.js';

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) {
    p.child.kill('SIGCONT');
    p.kill('SIGKILL');
  }
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stateOf = (e: StreamResponse) => ('task' in e ? e.task.status.state : 'statusUpdate' in e ? e.statusUpdate.status.state : undefined);

/** A body written by `script` (chunks of text, waits in between); `cancelled` once the reader gives up. */
function scriptedBody(script: Array<string | number>): { body: ReadableStream<Uint8Array>; cancelled: Promise<void> } {
  let onCancel = () => {};
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const step of script) {
        if (typeof step === 'number') await wait(step);
        else controller.enqueue(new TextEncoder().encode(step));
      }
    },
    cancel: () => onCancel(),
  });
  return { body, cancelled };
}

/** What a read got before it ended (or `budgetMs` passed: error "still reading"), its error, and how long it took. */
async function readAll(body: ReadableStream<Uint8Array>, idleMs: number, budgetMs = 5_000): Promise<{ data: string[]; error: unknown; ms: number }> {
  const data: string[] = [];
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still reading'), budgetMs)));
  const reading = (async () => {
    for await (const event of readSse(body, new SseParser(), idleMs)) data.push(event.data);
    return undefined;
  })();
  const error = await Promise.race([reading.catch((e: unknown) => e), budget]);
  clearTimeout(timer);
  return { data, error, ms: Date.now() - started };
}

describe('R24 SSE idle watchdog: readSse', () => {
  test('after a heartbeat comment, silence past streamIdleMs ends the read NETWORK and cancels the body', async () => {
    const { body, cancelled } = scriptedBody([': keep-alive\n\n', 'data: 1\n\n']);
    const { data, error, ms } = await readAll(body, 200);
    assert.deepEqual(data, ['1']);
    assert.ok(A2AClientError.is(error, 'NETWORK') && /silent for 200 ms/.test(error.message), String(error));
    assert.ok(ms >= 190 && ms < 1_500, `cut after ${ms} ms`);
    await cancelled;
  });

  test('the limit grows to 3 × the longest wait seen: heartbeats every 300 ms allow 600 ms of silence past streamIdleMs 400', async () => {
    // The body never ends: after the late event, the read is cut once 3 × 600 ms pass in silence.
    const { body } = scriptedBody([': hb\n\n', 300, ': hb\n\n', 300, ': hb\n\n', 600, 'data: late\n\n']);
    const { data, error, ms } = await readAll(body, 400);
    assert.deepEqual(data, ['late']);
    assert.ok(A2AClientError.is(error, 'NETWORK') && /silent for 1[78]\d\d ms/.test(error.message), String(error));
    assert.ok(ms >= 1_200 + 1_700, `cut after ${ms} ms`);
  });

  test('a stream that never sent a comment is not cut, however long it is silent', async () => {
    const { body } = scriptedBody(['data: 1\n\n', 700, 'data: 2\n\n']);
    const { data, error } = await readAll(body, 100, 1_200);
    assert.deepEqual(data, ['1', '2']);
    assert.equal(error, 'still reading');
  });

  test('streamIdleMs 0 turns the watchdog off', async () => {
    const { body } = scriptedBody([': hb\n\n', 'data: 1\n\n', 400, 'data: 2\n\n']);
    const { data, error } = await readAll(body, 0, 800);
    assert.deepEqual(data, ['1', '2']);
    assert.equal(error, 'still reading');
  });
});

describe('R24 SSE idle watchdog: createClient against a server process that froze (SIGSTOP)', () => {
  // Idle: heartbeats fall between the events. Busy: events come faster than a heartbeat period,
  // so the only comment the stream carries is the one its first frame opens with.
  const paces = [
    { name: 'idle between events', heartbeatMs: '100', tickMs: '300' },
    { name: 'busy, no heartbeat period ever silent', heartbeatMs: '60000', tickMs: '100' },
  ];
  for (const binding of ['JSONRPC', 'HTTP+JSON']) for (const pace of paces) {
    test(`${binding}, ${pace.name}: the frozen stream is dropped within streamIdleMs and resumed with Last-Event-ID`, { timeout: 30_000 }, async () => {
      const { proc, urls } = await startServe(['--heartbeat-ms', pace.heartbeatMs], { A2A_DEMO_SLOW_MS: '3000', A2A_DEMO_TICK_MS: pace.tickMs });
      procs.push(proc);
      let streams = 0;
      let stoppedAt = 0;
      let resubscribedAt = 0;
      let lastEventId: string | null = null;
      const client = await createClient(urls.card, {
        bindings: [binding],
        streamIdleMs: 800,
        fetch: (input, init) => {
          const headers = new Headers(init?.headers);
          if (headers.get('accept')?.includes('text/event-stream') && ++streams === 2) {
            resubscribedAt = Date.now();
            lastEventId = headers.get('last-event-id');
            proc.child.kill('SIGCONT');
          }
          return globalThis.fetch(input, init);
        },
      });
      // Without the watchdog nothing would ever come: thaw the server late so the test ends.
      const thaw = setTimeout(() => proc.child.kill('SIGCONT'), 8_000);
      const events: StreamResponse[] = [];
      try {
        for await (const event of client.streamText('slow x')) {
          events.push(event);
          if (events.length === 3) {
            proc.child.kill('SIGSTOP');
            stoppedAt = Date.now();
          }
        }
      } finally {
        clearTimeout(thaw);
        proc.child.kill('SIGCONT');
        proc.kill('SIGKILL');
      }
      assert.ok(resubscribedAt > 0, 'the frozen stream was never dropped and resubscribed');
      const afterStopMs = resubscribedAt - stoppedAt;
      assert.ok(afterStopMs >= 700 && afterStopMs < 3_000, `resubscribed ${afterStopMs} ms after the server froze`);
      assert.match(lastEventId ?? '', /^\d+$/, 'resubscribed with Last-Event-ID');
      assert.equal(stateOf(events.at(-1) as StreamResponse), 'TASK_STATE_COMPLETED');
    });
  }
});

describe('R24 SSE idle watchdog: a server that sends no heartbeats', () => {
  test('a silence longer than streamIdleMs does not cut its stream', async () => {
    const agent = await startFakeAgent(async (req, res) => {
      const { id } = JSON.parse(req.body) as { id: number };
      const frame = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame({ task: task('t1', 'TASK_STATE_WORKING') }));
      await wait(1_500);
      res.end(frame({ statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
    });
    try {
      const client = await createClient(cardAt(`${agent.url}/rpc`), { streamIdleMs: 200 });
      const states: unknown[] = [];
      for await (const event of client.streamText('hi')) states.push(stateOf(event));
      assert.deepEqual(states, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      assert.equal(agent.requests.length, 1, 'no resubscription');
    } finally {
      await agent.close();
    }
  });
});
