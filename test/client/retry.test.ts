/**
 * Retries (idempotent operations only, on network errors, 503 and 429 with Retry-After),
 * timeouts and aborts.
 */
import { getEventListeners } from 'node:events';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  A2AClientError,
  A2AError,
  createClient,
  createMessage,
  responseInfo,
  type AgentCard,
} from '../../src/client/index.js';
import { jsonRpcErrorResponse } from '../../src/bindings/jsonrpc/errors.js';
import { toRestError } from '../../src/bindings/rest/errors.js';
import type { HttpRequest, HttpResponse } from '../../src/server/http/httpTypes.js';
import { serverShuttingDown } from '../../src/server/shuttingDown.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, hook, jsonResponse, record, type Seen } from './helpers.js';

const FAST = { baseDelayMs: 5, maxDelayMs: 20 };

/** The next `count` A2A calls (not the card) are answered by `answer` instead of the server. */
function failNext(server: TestServer, count: number, answer: (req: HttpRequest) => HttpResponse | Promise<HttpResponse>): () => void {
  let left = count;
  return hook(server, async (req, next) => {
    if (left > 0 && !req.path.startsWith('/.well-known/')) {
      left--;
      return answer(req);
    }
    return next(req);
  });
}

/** The messageId of a SendMessage request body (REST: the request; JSON-RPC: its params). */
function messageIdOf(body: string): string | undefined {
  const json = JSON.parse(body) as { message?: { messageId: string }; params?: { message: { messageId: string } } };
  return (json.params ?? json).message?.messageId;
}

const unavailable = () => ({ status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>Service Unavailable</h1>' });

for (const binding of BINDINGS) {
  describe(`retries over ${binding}`, () => {
    let server: TestServer;
    let seen: Seen[];
    before(async () => {
      server = await startServer();
      seen = record(server);
    });
    after(() => server.close());

    test('getTask: 503 twice, then the answer', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: FAST });
      const created = await client.sendText('hi');
      assert.ok('task' in created);
      const undo = failNext(server, 2, unavailable);
      try {
        const from = seen.length;
        const task = await client.getTask({ id: created.task.id });
        assert.equal(task.id, created.task.id);
        assert.equal(seen.length - from, 1, 'the two 503s never reached the recorder');
      } finally {
        undo();
      }
    });

    test('too many 503s: A2AClientError HTTP with the status', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: { ...FAST, retries: 2 } });
      let answered = 0;
      const undo = failNext(server, 10, () => (answered++, unavailable()));
      try {
        await assert.rejects(client.listTasks(), (e: unknown) => A2AClientError.is(e, 'HTTP') && e.status === 503);
        assert.equal(answered, 3);
      } finally {
        undo();
      }
    });

    test('429 with Retry-After: waits as told, then succeeds; the typed error keeps the hint', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: FAST });
      const body = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down' } };
      const undo = failNext(server, 1, () => jsonResponse(429, body, { 'retry-after': '1' }));
      try {
        const started = Date.now();
        await client.listTasks();
        assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
      } finally {
        undo();
      }
      const noRetry = await createClient(server.card, { bindings: [binding], retry: false });
      const undo2 = failNext(server, 1, () => jsonResponse(429, body, { 'retry-after': '7' }));
      try {
        await assert.rejects(noRetry.listTasks(), (e: unknown) => {
          assert.ok(A2AError.is(e));
          assert.equal(e.reason, 'RESOURCE_EXHAUSTED');
          assert.deepEqual(responseInfo(e), { status: 429, retryAfterMs: 7000 });
          return true;
        });
      } finally {
        undo2();
      }
    });

    test('a Retry-After beyond maxRetryAfterMs is not waited for', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: { ...FAST, maxRetryAfterMs: 1000 } });
      const undo = failNext(server, 1, () => jsonResponse(503, undefined, { 'retry-after': '120' }));
      try {
        const started = Date.now();
        await assert.rejects(client.listTasks(), (e: unknown) => responseInfo(e)?.retryAfterMs === 120_000);
        assert.ok(Date.now() - started < 5000, 'did not wait 120 s');
      } finally {
        undo();
      }
    });

    test('R16 a follow-up refused because the task history is full (429 RESOURCE_EXHAUSTED, limit historyMessages) is not retried', async () => {
      const capped = await startServer({ handler: { limits: { maxHistoryMessages: 2 } } });
      const cappedSeen = record(capped);
      try {
        const client = await createClient(capped.card, { bindings: [binding], retry: { ...FAST, retrySendMessage: true } });
        const asked = await client.sendMessage({ message: createMessage({ text: 'ask a question', messageId: `cap-${binding}-1` }) });
        assert.ok('task' in asked && asked.task.status.state === 'TASK_STATE_INPUT_REQUIRED');
        const from = cappedSeen.length;
        const followUp = createMessage({ text: 'an answer', messageId: `cap-${binding}-2`, taskId: asked.task.id });
        await assert.rejects(client.sendMessage({ message: followUp }), (e: unknown) => {
          assert.ok(A2AError.is(e));
          assert.equal(e.reason, 'RESOURCE_EXHAUSTED');
          assert.equal(e.metadata.limit, 'historyMessages');
          return true;
        });
        assert.equal(cappedSeen.length - from, 1, 'asked once, not retried');
      } finally {
        await capped.close();
      }
    });

    test('sendMessage is never retried by default', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: FAST });
      let answered = 0;
      const undo = failNext(server, 1, () => (answered++, unavailable()));
      try {
        await assert.rejects(client.sendMessage({ message: createMessage({ text: 'hi', messageId: 'fixed-1' }) }), (e: unknown) =>
          A2AClientError.is(e, 'HTTP'),
        );
        assert.equal(answered, 1);
      } finally {
        undo();
      }
    });

    test('retrySendMessage: retried with a caller-fixed messageId, not with a generated one', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: { ...FAST, retrySendMessage: true } });
      let undo = failNext(server, 2, unavailable);
      try {
        const from = seen.length;
        const result = await client.sendMessage({ message: createMessage({ text: 'hi', messageId: `fixed-${binding}` }) });
        assert.ok('task' in result);
        assert.equal(seen.length - from, 1);
        assert.equal(messageIdOf(seen.at(-1)?.body ?? '{}'), `fixed-${binding}`);
      } finally {
        undo();
      }
      undo = failNext(server, 1, unavailable);
      try {
        await assert.rejects(client.sendText('hi'), (e: unknown) => A2AClientError.is(e, 'HTTP'));
        const streamed = await collect(client.streamText('stream x', { messageId: `fixed-stream-${binding}` }));
        assert.equal(streamed.length, 13, 'the retried stream opened normally');
      } finally {
        undo();
      }
    });

    test('R24 retrySendMessage: a follow-up refused UNAVAILABLE by a server shutting down (in its binding\'s format) is sent again', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: { ...FAST, retrySendMessage: true } });
      const refusal = serverShuttingDown('t-1');
      const shuttingDown = async (req: HttpRequest) => {
        if (binding === 'HTTP+JSON') {
          const { status, body } = toRestError(refusal);
          return jsonResponse(status, body);
        }
        // The refusal answers the request's own id (RPC-09: the client takes no other).
        const { id } = JSON.parse(await req.text(1024 * 1024)) as { id: number };
        return { status: 200, headers: { 'content-type': 'application/json' }, body: jsonRpcErrorResponse(id, refusal) };
      };
      const undo = failNext(server, 1, shuttingDown);
      try {
        const from = seen.length;
        const result = await client.sendMessage({ message: createMessage({ text: 'hi', messageId: `unavailable-${binding}` }) });
        assert.ok('task' in result);
        assert.equal(seen.length - from, 1, 'the second attempt reached the server');
      } finally {
        undo();
      }
    });

    test('typed protocol errors are not retried', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: FAST });
      const from = seen.length;
      await assert.rejects(client.getTask({ id: 'missing' }), (e: unknown) => A2AError.is(e) && e.reason === 'TASK_NOT_FOUND');
      assert.equal(seen.length - from, 1);
    });

    test('subscribeToTask opening is retried like the other idempotent calls', async () => {
      const client = await createClient(server.card, { bindings: [binding], retry: FAST });
      const created = await client.sendText('slow sub', { configuration: { returnImmediately: true } });
      assert.ok('task' in created);
      const undo = failNext(server, 2, unavailable);
      try {
        const events = await collect(client.subscribeToTask({ id: created.task.id }));
        assert.ok(events.length > 2);
      } finally {
        undo();
      }
    });
  });
}

describe('network failures', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  function deadCard(card: AgentCard): AgentCard {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    return { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: i.url.replace(/:\d+\//, ':9/') })) };
  }

  for (const binding of BINDINGS) {
    test(`${binding}: idempotent calls are retried, then fail with NETWORK; sendMessage is tried once`, async () => {
      let attempts = 0;
      const fetch = (input: string, init: RequestInit) => {
        attempts++;
        return globalThis.fetch(input, init);
      };
      const client = await createClient(deadCard(server.card), { bindings: [binding], fetch, retry: { ...FAST, retries: 2 } });
      await assert.rejects(client.getTask({ id: 'x' }), (e: unknown) => A2AClientError.is(e, 'NETWORK'));
      assert.equal(attempts, 3);
      attempts = 0;
      await assert.rejects(client.sendText('hi'), (e: unknown) => A2AClientError.is(e, 'NETWORK'));
      assert.equal(attempts, 1);
    });
  }

  test('an unreachable card: NETWORK', async () => {
    await assert.rejects(createClient('http://127.0.0.1:9', { cardCache: false }), (e: unknown) => A2AClientError.is(e, 'NETWORK'));
  });
});

describe('timeouts and aborts', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    // Calls carrying `x-test: delay` are answered 2 s late.
    hook(server, async (req, next) => {
      if (req.header('x-test') === 'delay') await new Promise((r) => setTimeout(r, 2000));
      return next(req);
    });
  });
  after(() => server.close());

  for (const binding of BINDINGS) {
    test(`${binding}: timeoutMs → TIMEOUT, quickly, also while retrying`, async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      const started = Date.now();
      await assert.rejects(client.listTasks({}, { timeoutMs: 100, headers: { 'x-test': 'delay' } }), (e: unknown) =>
        A2AClientError.is(e, 'TIMEOUT'),
      );
      assert.ok(Date.now() - started < 1800, 'did not wait for the 2 s answer');
      const fallback = await createClient(server.card, { bindings: [binding], timeoutMs: 100 });
      await assert.rejects(fallback.getTask({ id: 'x' }, { headers: { 'x-test': 'delay' } }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
      const undo = failNext(server, 100, unavailable);
      try {
        const retrying = await createClient(server.card, { bindings: [binding], retry: { baseDelayMs: 50, retries: 50 } });
        const t0 = Date.now();
        await assert.rejects(retrying.listTasks({}, { timeoutMs: 300 }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
        assert.ok(Date.now() - t0 < 2500, 'the deadline covers the retries');
      } finally {
        undo();
      }
    });

    test(`${binding}: an AbortSignal → ABORTED (before the call, during it, and mid-stream)`, async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      await assert.rejects(client.listTasks({}, { signal: AbortSignal.abort() }), (e: unknown) => A2AClientError.is(e, 'ABORTED'));
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('user gave up')), 50);
      await assert.rejects(client.listTasks({}, { signal: controller.signal, headers: { 'x-test': 'delay' } }), (e: unknown) => {
        assert.ok(A2AClientError.is(e, 'ABORTED'));
        assert.equal((e.cause as Error).message, 'user gave up');
        return true;
      });
      const midStream = new AbortController();
      const events: unknown[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of client.streamText('slow abort me', { signal: midStream.signal })) {
            events.push(event);
            if (events.length === 3) midStream.abort();
          }
        })(),
        (e: unknown) => A2AClientError.is(e, 'ABORTED'),
      );
      assert.equal(events.length, 3);
    });

    test(`${binding}: after abort() a stream hands out no more events, not even those already received`, async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      const controller = new AbortController();
      const events: unknown[] = [];
      await assert.rejects(
        (async () => {
          // 'stream x': 13 events written back to back, so several arrive in one read.
          for await (const event of client.streamText('stream x', { signal: controller.signal })) {
            events.push(event);
            controller.abort();
          }
        })(),
        (e: unknown) => A2AClientError.is(e, 'ABORTED'),
      );
      assert.equal(events.length, 1);
    });

    test(`${binding}: one AbortSignal shared by 30 calls: one listener on it, no MaxListenersExceededWarning, all ABORTED`, async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      try {
        const controller = new AbortController();
        const calls = Array.from({ length: 30 }, () => client.listTasks({}, { signal: controller.signal, headers: { 'x-test': 'delay' } }));
        await new Promise((resolve) => setTimeout(resolve, 30));
        assert.equal(getEventListeners(controller.signal, 'abort').length, 1, 'one listener on the caller signal');
        controller.abort();
        for (const r of await Promise.allSettled(calls)) assert.ok(r.status === 'rejected' && A2AClientError.is(r.reason, 'ABORTED'));
        // Calls that end normally take their listener away with them.
        const calm = new AbortController();
        await Promise.all(Array.from({ length: 12 }, () => client.listTasks({}, { signal: calm.signal })));
        assert.equal(getEventListeners(calm.signal, 'abort').length, 0);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')), []);
      } finally {
        process.off('warning', onWarning);
      }
    });

    test(`${binding}: timeoutMs bounds opening a stream, not reading it`, async () => {
      const client = await createClient(server.card, { bindings: [binding], timeoutMs: 300 });
      const events = await collect(client.streamText('slow long'));
      assert.match(JSON.stringify(events.at(-1)), /TASK_STATE_COMPLETED/);
      await assert.rejects(collect(client.streamText('slow x', { headers: { 'x-test': 'delay' } })), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
    });
  }
});
