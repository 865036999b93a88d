/**
 * Task streams: the assembler (STREAM-10 chunks), waitForTask (streaming and polling), and
 * resumption of a dropped stream — by a loopback proxy that destroys the connection mid-stream
 * — with every event delivered exactly once and in order (with SSE ids and Last-Event-ID), or
 * a consistent task without them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  A2AClientError,
  InternalError,
  TaskAssembler,
  collectTask,
  createClient,
  type AgentCard,
  type StreamResponse,
  type Task,
} from '../../src/client/index.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, hook, mapBody, record, startCuttingProxy, trace, withBody, type CuttingProxy, type Seen } from './helpers.js';

function viaProxy(card: AgentCard, server: TestServer, proxy: CuttingProxy): AgentCard {
  return { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: i.url.replace(server.url, proxy.url) })) };
}

function taskIdOf(events: StreamResponse[]): string {
  const first = events[0];
  assert.ok(first && 'task' in first);
  return first.task.id;
}

describe('TaskAssembler', () => {
  const ids = { taskId: 't', contextId: 'c' };
  test('chunks (append, lastChunk) become one artifact; a non-append replaces', () => {
    const a = new TaskAssembler();
    a.apply({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } });
    a.apply({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', name: 'story', parts: [{ text: 'one ' }] } } });
    a.apply({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [{ text: 'two ' }] }, append: true } });
    a.apply({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [{ text: 'three' }] }, append: true, lastChunk: true } });
    a.apply({ artifactUpdate: { ...ids, artifact: { artifactId: 'b', parts: [{ data: 1 }] } } });
    a.apply({ artifactUpdate: { ...ids, artifact: { artifactId: 'b', parts: [{ data: 2 }] } } });
    assert.equal(a.settled, false);
    a.apply({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } });
    assert.equal(a.settled, true);
    assert.deepEqual(a.task?.artifacts, [
      { artifactId: 'a', name: 'story', parts: [{ text: 'one ' }, { text: 'two ' }, { text: 'three' }] },
      { artifactId: 'b', parts: [{ data: 2 }] },
    ]);
  });

  test('a stream that starts with an update, and a message-only stream', async () => {
    const a = new TaskAssembler();
    a.apply({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    assert.deepEqual(a.task, { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    assert.equal(a.settled, true);
    const reply = { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    await assert.rejects(
      collectTask((async function* () { yield { message: reply }; })()),
      (e: unknown) => A2AClientError.is(e, 'INVALID_RESPONSE'),
    );
    const m = new TaskAssembler();
    m.apply({ message: reply });
    assert.equal(m.settled, true);
    assert.deepEqual(m.message, reply);
  });
});

for (const binding of BINDINGS) {
  describe(`waitForTask over ${binding}`, () => {
    let server: TestServer;
    let seen: Seen[];
    before(async () => {
      server = await startServer({ demo: { slowMs: 500, tickMs: 50 } });
      seen = record(server);
    });
    after(() => server.close());

    test('streaming card: SubscribeToTask until COMPLETED', async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      const started = await client.sendText('slow wait', { configuration: { returnImmediately: true } });
      assert.ok('task' in started);
      const from = seen.length;
      const task = await client.waitForTask(started.task.id);
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(task.artifacts?.[0]?.name, 'slow');
      assert.equal(seen.length - from, 1, 'one subscription, no polling');
      assert.equal(await client.waitForTask(started.task.id).then((t) => t.status.state), 'TASK_STATE_COMPLETED', 'already terminal');
    });

    test('no streaming: GetTask polling; until finalForNow stops at INPUT_REQUIRED', async () => {
      const card = { ...server.card, capabilities: { ...server.card.capabilities, streaming: false } };
      const client = await createClient(card, { bindings: [binding] });
      const started = await client.sendText('slow poll', { configuration: { returnImmediately: true } });
      assert.ok('task' in started);
      const from = seen.length;
      const task = await client.waitForTask(started.task.id, { pollMs: 100 });
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.ok(seen.length - from > 3, 'polled');
      const asked = await client.sendText('ask anything', { configuration: { returnImmediately: true } });
      assert.ok('task' in asked);
      const waiting = await client.waitForTask(asked.task.id, { until: 'finalForNow', pollMs: 20 });
      assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
    });

    test('until terminal across an INPUT_REQUIRED pause, and a timeout', async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      const asked = await client.sendText('ask anything');
      assert.ok('task' in asked);
      await assert.rejects(client.waitForTask(asked.task.id, { timeoutMs: 200, pollMs: 50 }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
      const waiting = client.waitForTask(asked.task.id, { pollMs: 50 });
      await new Promise((r) => setTimeout(r, 100));
      await client.sendText('the answer', { taskId: asked.task.id });
      assert.equal((await waiting).status.state, 'TASK_STATE_COMPLETED');
    });
  });

  describe(`stream resumption over ${binding}`, () => {
    let server: TestServer;
    let seen: Seen[];
    before(async () => {
      server = await startServer({ demo: { slowMs: 800, tickMs: 25 } });
      seen = record(server);
    });
    after(() => server.close());

    test('connection destroyed mid-stream, several times: every event exactly once, in order, to COMPLETED', async () => {
      const proxy = await startCuttingProxy(server.url, { cutAfterBytes: 1500, maxCuts: 4 });
      try {
        const client = await createClient(viaProxy(server.card, server, proxy), { bindings: [binding], resume: { delayMs: 10 } });
        const from = seen.length;
        const events = await collect(client.streamText('slow resumable'));
        assert.equal(proxy.cuts, 4);
        const log = await server.handler.requestHandler.store.events('', taskIdOf(events), 0);
        assert.deepEqual(events, log.map((e) => e.event), 'exactly the task log, in order');
        assert.equal(trace(events).at(-1), 'status:COMPLETED');
        const resubscribes = seen.slice(from).filter((s) => s.headers['last-event-id'] !== undefined);
        assert.equal(resubscribes.length, 4);
        for (const r of resubscribes) assert.match(r.headers['last-event-id'] ?? '', /^\d+$/);
      } finally {
        await proxy.close();
      }
    });

    test('subscribeToTask resumes the same way', async () => {
      const proxy = await startCuttingProxy(server.url, { cutAfterBytes: 1200, maxCuts: 3 });
      try {
        const client = await createClient(viaProxy(server.card, server, proxy), { bindings: [binding], resume: { delayMs: 10 } });
        const started = await client.sendText('slow subscribed', { configuration: { returnImmediately: true } });
        assert.ok('task' in started);
        const events = await collect(client.subscribeToTask({ id: started.task.id }));
        assert.ok(proxy.cuts >= 1);
        const first = events[0];
        assert.ok(first && 'task' in first, 'the snapshot first (SUB-01)');
        const log = (await server.handler.requestHandler.store.events('', started.task.id, 0)).map((e) => e.event);
        const rest = events.slice(1);
        assert.deepEqual(rest, log.slice(log.length - rest.length), 'then every later event exactly once');
        assert.equal(trace(events).at(-1), 'status:COMPLETED');
      } finally {
        await proxy.close();
      }
    });

    test('a server without SSE ids: resubscribed plainly, snapshot deduplicated, the task assembled consistently', async () => {
      const undo = hook(server, async (req, next) => mapBody(await next(req), (chunk) => chunk.replace(/^id: .*\n/gm, '')));
      const proxy = await startCuttingProxy(server.url, { cutAfterBytes: 1500, maxCuts: 3 });
      try {
        const client = await createClient(viaProxy(server.card, server, proxy), { bindings: [binding], resume: { delayMs: 10 } });
        const from = seen.length;
        const events = await collect(client.streamText('slow idless'));
        assert.equal(proxy.cuts, 3);
        assert.ok(seen.slice(from).every((s) => s.headers['last-event-id'] === undefined));
        const keys = events.map((e) => JSON.stringify(e));
        assert.equal(new Set(keys).size, keys.length, 'no event twice');
        const progress = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status.message?.parts[0]] : [])).map((p) => (p && 'text' in p ? p.text : ''));
        const steps = progress.map((t) => Number(/progress (\d+)/.exec(t)?.[1]));
        assert.deepEqual(steps, [...steps].sort((a, b) => a - b), 'progress in order');
        const assembled = await collectTask((async function* () { yield* events; })());
        const stored = await client.getTask({ id: assembled.id });
        assert.deepEqual([assembled.status, assembled.artifacts], [stored.status, stored.artifacts]);
        assert.equal(stored.status.state, 'TASK_STATE_COMPLETED');
      } finally {
        await proxy.close();
        undo();
      }
    });

    test('a stream the server ends cleanly before the end is resumed too', async () => {
      let cut = true;
      const undo = hook(server, async (req, next) => {
        const res = await next(req);
        if (!cut || typeof res.body !== 'object') return res;
        cut = false;
        return mapBody(res, (chunk, i) => (i < 4 ? chunk : null));
      });
      try {
        const client = await createClient(server.card, { bindings: [binding], resume: { delayMs: 10 } });
        const events = await collect(client.streamText('stream clean end'));
        const log = await server.handler.requestHandler.store.events('', taskIdOf(events), 0);
        assert.deepEqual(events, log.map((e) => e.event));
      } finally {
        undo();
      }
    });

    test('without ids, a task that finished meanwhile ends with its GetTask snapshot', async () => {
      let cut = true;
      const undo = hook(server, async (req, next) => {
        const res = await next(req);
        if (typeof res.body !== 'object') return res;
        const once = cut;
        cut = false;
        return mapBody(res, (chunk, i) => (once && i >= 2 ? null : chunk.replace(/^id: .*\n/gm, '')));
      });
      try {
        const client = await createClient(server.card, { bindings: [binding], resume: { delayMs: 50 } });
        const events = await collect(client.streamText('stream finished meanwhile'));
        assert.deepEqual(trace(events), ['task:SUBMITTED', 'status:WORKING', 'task:COMPLETED']);
        const last = events.at(-1) as { task: Task };
        assert.equal(last.task.artifacts?.[0]?.parts.length, 10);
      } finally {
        undo();
      }
    });

    test('AUTHZ-06 / A2: a stream dropped at AUTH_REQUIRED is resumed and follows the agent that resumes on its own; one ended there cleanly is not', async () => {
      const agent: AgentExecutor = {
        async execute(_ctx, task) {
          await task.requireAuth('Sign in out of band');
          await new Promise((r) => setTimeout(r, 300));
          await task.startWork('signed in');
          await task.complete('done');
        },
      };
      const waiting = await startServer({ executor: agent, handler: { authRequiredStreamMs: 10_000 } });
      const closing = await startServer({ executor: agent });
      const proxy = await startCuttingProxy(waiting.url, { cutAfterBytes: 0, maxCuts: 1, cutAfterText: 'TASK_STATE_AUTH_REQUIRED' });
      try {
        const client = await createClient(viaProxy(waiting.card, waiting, proxy), { bindings: [binding], resume: { delayMs: 10 } });
        const events = await collect(client.streamText('calendar'));
        assert.equal(proxy.cuts, 1);
        assert.equal(trace(events).at(-1), 'status:COMPLETED');
        const ended = await collect((await createClient(closing.card, { bindings: [binding] })).streamText('calendar'));
        assert.equal(trace(ended).at(-1), 'status:AUTH_REQUIRED', 'a server that closes at AUTH_REQUIRED: the stream ends there');
      } finally {
        await proxy.close();
        await Promise.all([waiting.close(), closing.close()]);
      }
    });

    test('resume: false → STREAM_CLOSED; an error event from the agent is thrown, not resumed', async () => {
      let mode: 'cut' | 'error' | 'bare' = 'cut';
      const undo = hook(server, async (original, next) => {
        const { req, body } = await withBody(original);
        const res = await next(req);
        if (typeof res.body !== 'object') return res;
        const rpcError = { code: -32603, message: 'overloaded' };
        // JSON-RPC: the error response answers the request (its id).
        const id = binding === 'JSONRPC' ? (JSON.parse(body) as { id: unknown }).id : undefined;
        const errorEvent =
          binding === 'JSONRPC'
            ? `event: error\ndata: ${JSON.stringify(mode === 'bare' ? rpcError : { jsonrpc: '2.0', id, error: rpcError })}\n\n`
            : `event: error\ndata: ${JSON.stringify({ error: { code: 500, status: 'INTERNAL', message: 'overloaded' } })}\n\n`;
        return mapBody(res, (chunk, i) => (i < 2 ? chunk : mode !== 'cut' && i === 2 ? errorEvent : null));
      });
      try {
        const noResume = await createClient(server.card, { bindings: [binding], resume: false });
        await assert.rejects(collect(noResume.streamText('slow no resume')), (e: unknown) => A2AClientError.is(e, 'STREAM_CLOSED'));
        mode = 'error';
        const client = await createClient(server.card, { bindings: [binding], resume: { delayMs: 10 } });
        const from = seen.length;
        await assert.rejects(collect(client.streamText('slow error event')), (e: unknown) => e instanceof InternalError && e.message === 'overloaded');
        assert.equal(seen.length - from, 1, 'no resubscription');
        mode = 'bare';
        await assert.rejects(collect(client.streamText('slow bare error')), (e: unknown) => e instanceof InternalError && e.message === 'overloaded');
      } finally {
        undo();
      }
    });
  });
}
