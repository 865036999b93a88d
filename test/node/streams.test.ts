/**
 * SSE stream lifecycle over real sockets: disconnect hygiene (R8), slow consumers (R10) and
 * independent subscribers (STREAM-06 / R6).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { setTimeout as delay } from 'node:timers/promises';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import {
  JSONRPC_PATH,
  connect,
  openSse,
  request,
  rpcBody,
  rpcResult,
  rpcStream,
  spawnChildServer,
  startServer,
  stateOf,
  userMessage,
  waitForState,
  waitUntil,
  within,
  type ChildServer,
  type SseClient,
  type TestServer,
} from './helpers.js';

const MiB = 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Heap in use after full collections. */
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function startSlowTask(s: TestServer, text = 'slow hygiene'): Promise<Task> {
  const res = await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage(text), configuration: { returnImmediately: true } });
  assert.equal(res.task.status.state === 'TASK_STATE_SUBMITTED' || res.task.status.state === 'TASK_STATE_WORKING', true, res.task.status.state);
  return res.task;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function inBatches<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T, i);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------- R8

describe('R8 disconnect hygiene', () => {
  let s: TestServer;
  let quick: TestServer;
  before(async () => {
    // The slow task must outlast opening 1,000 streams, which took over 8 s on a loaded 2-core machine.
    s = await startServer(createDemoAgent({ slowMs: 20_000, tickMs: 500 }), {}, { shutdownTimeoutMs: 500 });
    quick = await startServer(createDemoAgent({ slowMs: 3_000, tickMs: 500 }), {}, { shutdownTimeoutMs: 500 });
  });
  after(async () => {
    await s?.close();
    await quick?.close();
  });

  test('1,000 SubscribeToTask streams (JSON-RPC + REST) destroyed → bus and open-stream gauge back to baseline within ~1 s; the task completes', async (t) => {
    const task = await startSlowTask(s);
    const baseBus = s.bus.size;
    assert.equal(s.server.openStreams, 0);
    // Warm up the code paths, so lazily built caches are not counted as a leak.
    const warm = await Promise.all(Array.from({ length: 20 }, () => rpcStream(s.rpcUrl, 'SubscribeToTask', { id: task.id })));
    await Promise.all(warm.map((c) => c.waitFor((events) => events.some((e) => e.data !== undefined), 5_000, 'warm-up snapshot')));
    for (const c of warm) c.destroy();
    await waitUntil(() => s.bus.size === baseBus && s.server.openStreams === 0, 1_500, 'warm-up streams freed');
    const baseHeap = heapAfterGc();

    const started = performance.now();
    let clients = await inBatches(
      Array.from({ length: 1000 }, (_, i) => i),
      100,
      async (i) => {
        const c =
          i % 2 === 0
            ? await rpcStream(s.rpcUrl, 'SubscribeToTask', { id: task.id })
            : await openSse(`${s.restUrl}/tasks/${task.id}:subscribe`, undefined, { method: 'GET', jsonRpc: false });
        assert.equal(c.status, 200);
        await c.waitFor((events) => events.some((e) => e.data !== undefined), 5_000, 'the Task snapshot');
        return c;
      },
    );
    t.diagnostic(`opened 1,000 streams in ${(performance.now() - started).toFixed(0)} ms`);
    for (const c of clients) {
      const first = c.payloads[0] as { task?: Task };
      assert.equal(first.task?.id, task.id, 'each stream starts with the Task snapshot');
    }
    assert.equal(s.bus.size, baseBus + 1000, 'one bus subscription per stream');
    assert.equal(s.server.openStreams, 1000);

    // Premise: every stream is cut mid-task, none ended by itself.
    assert.equal(clients.filter((c) => c.isEnded || c.payloads.some((p) => stateOf(p) === 'TASK_STATE_COMPLETED')).length, 0);
    for (const c of clients) c.destroy();
    const freed = await waitUntil(() => s.bus.size === baseBus && s.server.openStreams === 0, 1_500, `bus.size ${baseBus} and 0 open streams`);
    t.diagnostic(`freed in ${freed} ms after destroying the sockets`);
    assert.ok(freed <= 1_500);
    assert.equal(s.bus.size, baseBus);
    assert.equal(s.server.openStreams, 0);
    // Heap back to baseline (client and server objects together; ~27 MB while open).
    clients = [];
    await delay(100);
    const heapGrowth = heapAfterGc() - baseHeap;
    t.diagnostic(`heap after GC: ${(heapGrowth / MiB).toFixed(1)} MiB above baseline`);
    assert.ok(heapGrowth < 10 * MiB, `heap ${(heapGrowth / MiB).toFixed(1)} MiB above baseline after the streams closed`);

    // The task is unaffected by its watchers going away.
    const state = (await rpcResult<Task>(s.rpcUrl, 'GetTask', { id: task.id })).status.state;
    assert.equal(state, 'TASK_STATE_WORKING');
    const done = await waitForState(s.rpcUrl, task.id, 'TASK_STATE_COMPLETED', 30_000);
    assert.equal(done.artifacts?.[0]?.name, 'slow');
    // Nothing re-subscribed behind our back.
    assert.equal(s.bus.size, baseBus);
  });

  test('200 SendStreamingMessage streams destroyed mid-task → subscriptions freed, every task still completes', async () => {
    const baseBus = quick.bus.size;
    const clients = await inBatches(
      Array.from({ length: 200 }, (_, i) => i),
      50,
      async (i) => {
        const c = await rpcStream(quick.rpcUrl, 'SendStreamingMessage', { message: userMessage(`slow many ${i}`) });
        await c.waitFor((events) => events.filter((e) => e.data !== undefined).length >= 2, 5_000, 'the snapshot and WORKING');
        return c;
      },
    );
    const taskIds = clients.map((c) => (c.payloads[0] as { task: Task }).task.id);
    assert.equal(new Set(taskIds).size, 200);
    assert.equal(quick.server.openStreams, 200);
    assert.equal(quick.bus.size, baseBus + 200);
    assert.equal(clients.filter((c) => c.isEnded).length, 0, 'all cut mid-task');
    for (const c of clients) c.destroy();
    await waitUntil(() => quick.bus.size === baseBus && quick.server.openStreams === 0, 1_500, 'streams freed');
    // The tasks run 3 s from their start; all complete although nobody watches.
    await waitForState(quick.rpcUrl, taskIds[taskIds.length - 1] as string, 'TASK_STATE_COMPLETED', 10_000);
    const states = await Promise.all(taskIds.map(async (id) => (await rpcResult<Task>(quick.rpcUrl, 'GetTask', { id })).status.state));
    assert.deepEqual([...new Set(states)], ['TASK_STATE_COMPLETED']);
  });
});

describe('R8 disconnect before the first event', () => {
  // An agent that takes 300 ms before its first update: SendStreamingMessage waits for it.
  const slowStarter: AgentExecutor = {
    async execute(_ctx, task) {
      await delay(300);
      await task.startWork('started');
      await delay(300);
      await task.complete('done');
    },
  };

  test(
    'clients that give up while SendStreamingMessage waits for the agent leave no bus subscription behind',
        async () => {
      const s = await startServer(slowStarter, { heartbeatMs: 100 });
      try {
        const baseBus = s.bus.size;
        const requests = Array.from({ length: 20 }, (_, i) => {
          const req = http.request(s.rpcUrl, { method: 'POST', agent: false, headers: { 'a2a-version': '1.0', 'content-type': 'application/json' } });
          req.on('error', () => undefined);
          req.end(rpcBody('SendStreamingMessage', { message: userMessage(`early ${i}`) }));
          return req;
        });
        await delay(100);
        for (const r of requests) r.destroy();
        // The tasks finish (~600 ms) without anyone watching.
        const list = async () => (await s.handler.requestHandler.store.list({ tenant: '', pageSize: 100 })).records;
        const deadline = Date.now() + 5_000;
        while ((await list()).filter((r) => r.task.status.state === 'TASK_STATE_COMPLETED').length < 20) {
          assert.ok(Date.now() < deadline, 'the 20 tasks complete');
          await delay(50);
        }
        await delay(300);
        assert.equal(s.server.openStreams, 0);
        assert.equal(s.bus.size, baseBus, 'no subscription outlives its client');
      } finally {
        await s.close();
      }
    },
  );
});

// ---------------------------------------------------------------- R10

/** Reads a raw HTTP/1.1 chunked SSE response incrementally without keeping the payloads. */
class CountingSseReader {
  private buffer = '';
  headersDone = false;
  status = 0;
  ids: number[] = [];
  kinds: string[] = [];
  dataBytes = 0;
  lastError: { code: number; message: string } | undefined;
  private pendingChunkBytes = 0;
  private body = '';

  feed(text: string): void {
    if (!this.headersDone) {
      this.buffer += text;
      const split = this.buffer.indexOf('\r\n\r\n');
      if (split < 0) return;
      this.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(this.buffer)?.[1] ?? 0);
      this.headersDone = true;
      text = this.buffer.slice(split + 4);
      this.buffer = '';
    }
    this.dechunk(text);
  }

  /** Strips the chunked transfer framing (ASCII payloads only, so string offsets are byte offsets). */
  private dechunk(text: string): void {
    this.buffer += text;
    for (;;) {
      if (this.pendingChunkBytes > 0) {
        const take = Math.min(this.pendingChunkBytes, this.buffer.length);
        this.onBody(this.buffer.slice(0, take));
        this.buffer = this.buffer.slice(take);
        this.pendingChunkBytes -= take;
        if (this.pendingChunkBytes > 0) return;
        continue;
      }
      const eol = this.buffer.indexOf('\r\n');
      if (eol < 0) return;
      const line = this.buffer.slice(0, eol);
      this.buffer = this.buffer.slice(eol + 2);
      if (line === '') continue;
      this.pendingChunkBytes = parseInt(line, 16);
      if (this.pendingChunkBytes === 0) return;
    }
  }

  private onBody(text: string): void {
    this.body += text;
    for (;;) {
      const end = this.body.indexOf('\n\n');
      if (end < 0) return;
      const block = this.body.slice(0, end);
      this.body = this.body.slice(end + 2);
      if (block.startsWith(':')) {
        this.kinds.push('heartbeat');
        continue;
      }
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const dataAt = block.indexOf('data: ');
      if (dataAt < 0) continue;
      const data = block.slice(dataAt + 6);
      this.dataBytes += data.length;
      if (id !== undefined) this.ids.push(Number(id));
      const env = JSON.parse(data) as { result?: StreamResponse; error?: { code: number; message: string } };
      if (env.error) {
        this.lastError = env.error;
        this.kinds.push('error');
      } else if (env.result) {
        const r = env.result;
        this.kinds.push('artifactUpdate' in r ? 'artifact' : (stateOf(r) ?? 'other'));
      }
    }
  }
}

describe('R10 slow consumers (server in a child process)', () => {
  const CHUNKS = 2000;
  const CHUNK_BYTES = 64 * 1024; // 2,000 × 64 KiB = 128 MiB streamed, twice the RSS bound

  async function pausedStream(child: ChildServer): Promise<{ socket: net.Socket; reader: CountingSseReader; ended: Promise<void> }> {
    const socket = await connect(child.port);
    socket.pause();
    const reader = new CountingSseReader();
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => reader.feed(d));
    socket.on('error', () => undefined);
    const ended = new Promise<void>((resolve) => {
      socket.once('end', () => resolve());
      socket.once('close', () => resolve());
    });
    const body = rpcBody('SendStreamingMessage', { message: userMessage('big stream') }, 'slow-consumer');
    socket.write(
      `POST ${JSONRPC_PATH} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
    return { socket, reader, ended };
  }

  async function newestTask(child: ChildServer): Promise<Task | undefined> {
    // ListTasks leaves artifacts out by default: a cheap status probe.
    const list = await rpcResult<{ tasks: Task[] }>(child.rpcUrl, 'ListTasks', { pageSize: 1 });
    return list.tasks[0];
  }

  async function assertResponsive(child: ChildServer): Promise<void> {
    const start = performance.now();
    const card = await request(`${child.url}/.well-known/agent-card.json`);
    assert.equal(card.status, 200);
    assert.ok(performance.now() - start < 2_000, `card served in ${(performance.now() - start).toFixed(0)} ms while a consumer is stalled`);
  }

  test('a paused consumer of 128 MiB of artifact chunks: RSS growth < 64 MiB, server responsive, all events on resume', async (t) => {
    const child = await spawnChildServer({ agent: 'chunks', chunks: CHUNKS, chunkBytes: CHUNK_BYTES });
    try {
      await assertResponsive(child);
      await child.ask('peakStart');
      const base = (await child.ask<{ rss: number }>('mem')).rss;

      const { socket, reader, ended } = await pausedStream(child);
      // The agent finishes writing although the consumer reads nothing.
      const deadline = Date.now() + 15_000;
      let task = await newestTask(child);
      while (task?.status.state !== 'TASK_STATE_COMPLETED') {
        assert.ok(Date.now() < deadline, `agent did not finish: ${task?.status.state}`);
        await delay(50);
        task = await newestTask(child);
      }
      await assertResponsive(child);
      await delay(300);
      const pausedPeak = (await child.ask<{ rss: number }>('peak')).rss - base;
      t.diagnostic(`RSS growth while paused: ${(pausedPeak / MiB).toFixed(1)} MiB`);
      assert.ok(pausedPeak < 64 * MiB, `server RSS grew ${(pausedPeak / MiB).toFixed(1)} MiB while the consumer was paused`);
      assert.equal(reader.ids.length, 0, 'nothing was read yet');

      socket.resume();
      await within(ended, 20_000, undefined);
      const totalPeak = (await child.ask<{ rss: number }>('peak')).rss - base;
      t.diagnostic(`RSS growth overall: ${(totalPeak / MiB).toFixed(1)} MiB; received ${(reader.dataBytes / MiB).toFixed(1)} MiB of data`);
      assert.ok(totalPeak < 64 * MiB, `server RSS grew ${(totalPeak / MiB).toFixed(1)} MiB overall`);

      assert.equal(reader.status, 200);
      const last = reader.kinds.at(-1);
      if (last === 'error') {
        // A clean error event is an allowed outcome: ordered events up to it, then a JSON-RPC error.
        assert.equal(reader.lastError?.code, -32603);
        assert.deepEqual(reader.ids, reader.ids.map((_, i) => i + 1));
      } else {
        const artifacts = reader.kinds.filter((k) => k === 'artifact').length;
        assert.equal(artifacts, CHUNKS, 'every chunk arrived');
        assert.equal(last, 'TASK_STATE_COMPLETED');
        assert.deepEqual(
          reader.kinds.filter((k) => k !== 'heartbeat').slice(0, 2),
          ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'],
        );
        // Gapless ids 1..n (R7).
        assert.deepEqual(reader.ids, Array.from({ length: CHUNKS + 3 }, (_, i) => i + 1));
        assert.ok(reader.dataBytes > CHUNKS * CHUNK_BYTES, 'the payload really went through');
      }
      const stats = await child.ask<{ busSize: number; openStreams: number }>('stats');
      assert.equal(stats.openStreams, 0);
      assert.equal(stats.busSize, 0);
      socket.destroy();
    } finally {
      await child.kill();
    }
  });

  test('with maxStreamBuffer 100 a stalled consumer gets a clean error event, then resumes from Last-Event-ID', async (t) => {
    const child = await spawnChildServer({ agent: 'chunks', chunks: CHUNKS, chunkBytes: CHUNK_BYTES, maxStreamBuffer: 100 });
    try {
      await child.ask('peakStart');
      const base = (await child.ask<{ rss: number }>('mem')).rss;
      const { socket, reader, ended } = await pausedStream(child);
      const deadline = Date.now() + 15_000;
      while ((await newestTask(child))?.status.state !== 'TASK_STATE_COMPLETED') {
        assert.ok(Date.now() < deadline, 'agent did not finish');
        await delay(50);
      }
      await assertResponsive(child);
      socket.resume();
      await within(ended, 20_000, undefined);
      const growth = (await child.ask<{ rss: number }>('peak')).rss - base;
      t.diagnostic(`received ${reader.ids.length} events before the error; RSS growth ${(growth / MiB).toFixed(1)} MiB`);
      assert.ok(growth < 64 * MiB, `server RSS grew ${(growth / MiB).toFixed(1)} MiB`);
      assert.equal(reader.kinds.at(-1), 'error', `last events: ${reader.kinds.slice(-3).join(',')}`);
      assert.equal(reader.lastError?.code, -32603);
      assert.match(reader.lastError?.message ?? '', /too slow/i);
      assert.ok(reader.ids.length > 0 && reader.ids.length < CHUNKS, `${reader.ids.length} events before the error`);
      assert.deepEqual(reader.ids, reader.ids.map((_, i) => i + 1), 'the events before the error are gapless');
      socket.destroy();

      // The consumer picks up where it stopped (R7): everything after its last id, nothing twice.
      const lastId = reader.ids.at(-1) as number;
      const resume = await connect(child.port);
      const rest = new CountingSseReader();
      resume.setEncoding('latin1');
      resume.on('data', (d: string) => rest.feed(d));
      const resumed = new Promise<void>((resolve) => resume.once('close', () => resolve()));
      const taskId = (await newestTask(child))?.id as string;
      const body = rpcBody('SubscribeToTask', { id: taskId }, 'resume');
      resume.write(
        `POST ${JSONRPC_PATH} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nLast-Event-ID: ${lastId}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await within(resumed, 20_000, undefined);
      assert.equal(rest.status, 200);
      assert.equal(rest.ids[0], lastId + 1);
      assert.deepEqual(rest.ids, Array.from({ length: CHUNKS + 3 - lastId }, (_, i) => lastId + 1 + i));
      assert.equal(rest.kinds.at(-1), 'TASK_STATE_COMPLETED');
    } finally {
      await child.kill();
    }
  });
});

// ---------------------------------------------------------------- STREAM-06

describe('STREAM-06 concurrent subscribers', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(createDemoAgent({ slowMs: 2_000, tickMs: 100 }));
  });
  after(async () => {
    await s?.close();
  });

  function seqEvents(c: SseClient, jsonRpc: boolean): { id: number; payload: unknown }[] {
    return c.dataEvents.map((e) => {
      const v = JSON.parse(e.data as string) as { result?: unknown };
      return { id: e.id as number, payload: jsonRpc ? v.result : v };
    });
  }

  test('two subscribers (JSON-RPC and REST) get the same ordered events; closing a third affects neither', async () => {
    const baseBus = s.bus.size;
    const task = await startSlowTask(s, 'slow shared');
    const a = await rpcStream(s.rpcUrl, 'SubscribeToTask', { id: task.id });
    const b = await openSse(`${s.restUrl}/tasks/${task.id}:subscribe`, undefined, { method: 'GET', jsonRpc: false });
    const c = await rpcStream(s.rpcUrl, 'SubscribeToTask', { id: task.id });
    await c.waitFor((events) => events.filter((e) => e.data !== undefined).length >= 3, 3_000, 'three events on C');
    c.destroy();
    await c.ended;
    await waitUntil(() => s.bus.size === baseBus + 2, 1_000, 'C unsubscribed');

    await Promise.all([a.ended, b.ended]);
    const ea = seqEvents(a, true);
    const eb = seqEvents(b, false);
    for (const [name, events] of [
      ['A', ea],
      ['B', eb],
    ] as const) {
      assert.ok('task' in (events[0]?.payload as object), `${name} starts with the Task snapshot`);
      const ids = events.map((e) => e.id);
      assert.deepEqual(ids, ids.map((_, i) => (ids[0] as number) + i), `${name} ids are gapless: ${ids.join(',')}`);
      assert.equal(stateOf(events.at(-1)?.payload), 'TASK_STATE_COMPLETED', `${name} ends at COMPLETED`);
      assert.ok(events.length >= 10, `${name} got ${events.length} events`);
    }
    // Past both snapshots, the two streams carry identical events in identical order.
    const from = Math.max(ea[0]?.id as number, eb[0]?.id as number);
    const tailA = ea.filter((e) => e.id > from);
    const tailB = eb.filter((e) => e.id > from);
    assert.ok(tailA.length >= 10);
    assert.deepEqual(tailA, tailB);
    // Everything after the snapshot equals the task log.
    const log = await s.handler.requestHandler.store.events('', task.id, from);
    assert.deepEqual(
      tailA,
      log.map((e) => ({ id: e.seq, payload: JSON.parse(JSON.stringify(e.event)) })),
    );
    assert.equal(s.bus.size, baseBus);
    assert.equal(s.server.openStreams, 0);
  });

  test('closing the stream that started the task (SendStreamingMessage) does not affect a subscriber', async () => {
    const baseBus = s.bus.size;
    const starter = await rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: userMessage('slow starter') });
    await starter.waitFor((events) => events.some((e) => e.data !== undefined), 2_000, 'the snapshot');
    const taskId = (starter.payloads[0] as { task: Task }).task.id;
    const watcher = await rpcStream(s.rpcUrl, 'SubscribeToTask', { id: taskId });
    await watcher.waitFor((events) => events.some((e) => e.data !== undefined), 2_000, 'the snapshot');
    starter.destroy();
    await watcher.ended;
    const states = watcher.payloads.map(stateOf).filter((x) => x !== undefined);
    assert.equal(states.at(-1), 'TASK_STATE_COMPLETED');
    assert.ok(states.filter((x) => x === 'TASK_STATE_WORKING').length >= 10, states.join(','));
    await waitUntil(() => s.bus.size === baseBus && s.server.openStreams === 0, 1_000, 'all streams freed');
  });
});
