/**
 * AUTHZ-03 / SUB-05 / STREAM-04, digest decision A2 (spec §7.6.1): an agent that asks for
 * authorization (AUTH_REQUIRED), keeps running while the credential is delivered out-of-band,
 * then resumes on its own. With the handler option `authRequiredStreamMs`, streams stay open at
 * AUTH_REQUIRED for that long, so SendStreamingMessage, a SubscribeToTask opened during the wait
 * and a Last-Event-ID resume all follow the resumption to COMPLETED; by default (0) they end at
 * AUTH_REQUIRED as before. A window that passes without an event ends the stream there, and the
 * stream of a message whose run is over (the agent returned) does not wait at all. The guards
 * still hold while a stream waits: heartbeats, the per-caller stream limit, client disconnect,
 * server shutdown. Over JSON-RPC, HTTP+JSON and gRPC alike; A2A 0.3 streams keep ending there.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { LocalEventBus } from '../../src/server/eventBus.js';
import { expectError, okStream, send, sleep, trace, uid } from '../support/assertions.js';
import { BINDINGS, type StreamEvent, type StreamOptions, type TestBinding } from '../support/bindings.js';
import { readSse, SseParser } from '../support/sse.js';
import { startServer, type TestServer } from '../support/server.js';

/** How long the credential takes to arrive out-of-band. */
const OOB_MS = 300;
/** The window of the servers that keep streams open; far longer than the tests wait. */
const LONG_WINDOW_MS = 10_000;
/** The window of the server whose agent never resumes. */
const SHORT_WINDOW_MS = 500;

/**
 * 'resume': AUTH_REQUIRED, the credential arrives OOB_MS later, then WORKING, an artifact,
 * COMPLETED. 'never': AUTH_REQUIRED and waits until the server stops it. 'returns':
 * AUTH_REQUIRED, then execute() returns (it would resume on a new message).
 */
const agent: AgentExecutor = {
  async execute(ctx, task) {
    await task.requireAuth('Sign in at https://id.example/device with code ABCD-EFGH');
    if (ctx.text === 'returns') return;
    if (ctx.text === 'never') {
      const signal = ctx.signal;
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return;
    }
    await sleep(OOB_MS);
    await task.startWork('signed in');
    await task.addArtifact('09:00 standup', { name: 'calendar' });
    await task.complete();
  },
};

const isAuthRequired = (e: StreamEvent): boolean => stateOf(e) === 'TASK_STATE_AUTH_REQUIRED';

function stateOf(e: StreamEvent): string | undefined {
  return e.event?.task?.status.state ?? e.event?.statusUpdate?.status.state;
}

function taskIdOf(e: StreamEvent): string {
  return e.event?.task?.id ?? e.event?.statusUpdate?.taskId;
}

const RESUMED = ['status:WORKING', 'artifact', 'status:COMPLETED'];

/**
 * SendStreamingMessage `text`; once it shows AUTH_REQUIRED (while the agent waits for its
 * credential), a SubscribeToTask and a resume after that event (Last-Event-ID) are opened.
 */
async function streamWithFollowers(b: TestBinding, text: string, opts: StreamOptions = {}) {
  let followers: Promise<[StreamEvent[], StreamEvent[]]> | undefined;
  let authAt = 0;
  const started = Date.now();
  const res = await b.stream('sendStreamingMessage', send(text), {
    timeoutMs: 8_000,
    ...opts,
    onEvent: (e) => {
      if (followers || !isAuthRequired(e)) return;
      authAt = Date.now();
      const id = taskIdOf(e);
      followers = Promise.all([
        b.stream('subscribeToTask', { id }, { timeoutMs: 8_000 }).then(okStream),
        b.stream('subscribeToTask', { id }, { timeoutMs: 8_000, headers: { 'last-event-id': e.id as string } }).then(okStream),
      ]);
    },
  });
  const events = okStream(res);
  const endedAfterAuthMs = Date.now() - authAt;
  assert.ok(followers, `the stream showed AUTH_REQUIRED: ${JSON.stringify(trace(events))} after ${Date.now() - started} ms`);
  const [subscribed, resumed] = await followers;
  return { res, events, subscribed, resumed, endedAfterAuthMs };
}

describe('A2 streams at AUTH_REQUIRED (authRequiredStreamMs)', { concurrency: true }, () => {
  let held: TestServer;
  let plain: TestServer;
  let short: TestServer;
  before(async () => {
    [held, plain, short] = await Promise.all([
      startServer({ executor: agent, handler: { authRequiredStreamMs: LONG_WINDOW_MS } }),
      startServer({ executor: agent }),
      startServer({ executor: agent, handler: { authRequiredStreamMs: SHORT_WINDOW_MS, heartbeatMs: 100 } }),
    ]);
  });
  after(() => Promise.all([held?.close(), plain?.close(), short?.close()]));

  for (const factory of BINDINGS) {
    describe(factory.name, { concurrency: 1 }, () => {
      test(`AUTHZ-03 SUB-05 A2 (${factory.name}): with the option, SendStreamingMessage, a SubscribeToTask opened during the wait and a Last-Event-ID resume follow the out-of-band resumption to COMPLETED, then end`, async () => {
        const { res, events, subscribed, resumed } = await streamWithFollowers(factory.create(held), 'resume');
        assert.ok(res.ok && res.ended && !res.timedOut);
        assert.ok(isAuthRequired(events[events.length - 4] as StreamEvent), `AUTH_REQUIRED, then the resumption: ${JSON.stringify(trace(events))}`);
        assert.deepEqual(trace(events).slice(-3), RESUMED);
        assert.deepEqual(trace(subscribed), ['task:AUTH_REQUIRED', ...RESUMED], 'the subscription starts with the AUTH_REQUIRED snapshot and follows the resumption');
        assert.deepEqual(trace(resumed), RESUMED, 'the resume after the AUTH_REQUIRED event replays nothing and follows the resumption');
        assert.equal(resumed[2]?.id, events[events.length - 1]?.id, 'the same event log');
      });

      test(`STREAM-04 A2 (${factory.name}): by default the streams end at AUTH_REQUIRED, before the agent resumes`, async () => {
        const { events, subscribed, resumed, endedAfterAuthMs } = await streamWithFollowers(factory.create(plain), 'resume');
        assert.ok(isAuthRequired(events[events.length - 1] as StreamEvent), `ends at AUTH_REQUIRED: ${JSON.stringify(trace(events))}`);
        assert.deepEqual(trace(subscribed), ['task:AUTH_REQUIRED']);
        assert.deepEqual(trace(resumed), []);
        assert.ok(endedAfterAuthMs < OOB_MS, `ended ${endedAfterAuthMs} ms after AUTH_REQUIRED`);
      });

      test(`A2 (${factory.name}): a window that passes without an event ends the streams at AUTH_REQUIRED; SSE heartbeats keep them alive meanwhile`, async () => {
        const b = factory.create(short);
        const { res, events, subscribed, resumed, endedAfterAuthMs } = await streamWithFollowers(b, 'never');
        assert.ok(res.ok && res.ended && !res.timedOut);
        assert.ok(isAuthRequired(events[events.length - 1] as StreamEvent), `ends at AUTH_REQUIRED: ${JSON.stringify(trace(events))}`);
        assert.ok(endedAfterAuthMs >= SHORT_WINDOW_MS - 50, `held for the window: ended ${endedAfterAuthMs} ms after AUTH_REQUIRED`);
        assert.ok(endedAfterAuthMs < SHORT_WINDOW_MS + 2_000, `ended ${endedAfterAuthMs} ms after AUTH_REQUIRED`);
        assert.deepEqual(trace(subscribed), ['task:AUTH_REQUIRED']);
        assert.deepEqual(trace(resumed), []);
        if (factory.name !== 'GRPC') assert.ok(res.comments.length > 0, 'heartbeat comments while the stream waited');
      });

      test(`A2 (${factory.name}): the stream of a message whose run is over (execute() returned at AUTH_REQUIRED) ends at once, not after the window`, async () => {
        const started = Date.now();
        const events = okStream(await factory.create(held).stream('sendStreamingMessage', send('returns'), { timeoutMs: 8_000 }));
        assert.ok(isAuthRequired(events[events.length - 1] as StreamEvent), `ends at AUTH_REQUIRED: ${JSON.stringify(trace(events))}`);
        assert.ok(Date.now() - started < 3_000, `ended after ${Date.now() - started} ms, not the ${LONG_WINDOW_MS} ms window`);
      });

      test(`R8 A2 (${factory.name}): a client that goes away from a waiting stream releases its subscription`, async () => {
        const bus = held.handler.requestHandler.bus as LocalEventBus;
        const res = await factory.create(held).stream('sendStreamingMessage', send('never'), { timeoutMs: 8_000, maxEvents: 2 });
        assert.ok(res.ok && res.cut && isAuthRequired(res.events[1] as StreamEvent), 'cut while the stream waits at AUTH_REQUIRED');
        const deadline = Date.now() + 3_000;
        while (bus.size > 0 && Date.now() < deadline) await sleep(20);
        assert.equal(bus.size, 0, 'no subscription left behind');
      });
    });
  }
});

describe('A2 guards while a stream waits at AUTH_REQUIRED', () => {
  test('R25 a waiting stream counts against the caller stream limit until its window ends', async (t) => {
    const s = await startServer({ executor: agent, handler: { authRequiredStreamMs: 800, abuseLimits: { maxStreamsPerCaller: 1 } } });
    t.after(() => s.close());
    for (const factory of BINDINGS) {
      const b = factory.create(s);
      let second: Promise<unknown> | undefined;
      const first = b.stream('sendStreamingMessage', send('never'), {
        timeoutMs: 8_000,
        onEvent: (e) => {
          if (!second && isAuthRequired(e)) second = b.stream('sendStreamingMessage', send('returns'));
        },
      });
      okStream(await first);
      assert.ok(second, factory.name);
      expectError((await second) as never, 'RESOURCE_EXHAUSTED');
      // Once the first stream's window has passed, the caller may open another.
      const third = okStream(await b.stream('sendStreamingMessage', send('returns'), { timeoutMs: 8_000 }));
      assert.ok(isAuthRequired(third[third.length - 1] as StreamEvent), factory.name);
    }
  });

  for (const factory of BINDINGS) {
    test(`R24 (${factory.name}) server shutdown ends a stream waiting at AUTH_REQUIRED at once`, async () => {
      const s = await startServer({ executor: agent, handler: { authRequiredStreamMs: 60_000 } });
      const b = factory.create(s);
      let closing: Promise<void> | undefined;
      const res = await b.stream('sendStreamingMessage', send('never'), {
        timeoutMs: 8_000,
        allowTimeout: true,
        onEvent: (e) => {
          if (!closing && isAuthRequired(e)) closing = sleep(100).then(() => s.close());
        },
      });
      await closing;
      assert.ok(res.ok && !res.timedOut, 'the stream ended with the server, not after its window');
    });
  }

  test('A2 an A2A 0.3 stream still ends at auth-required (its final: true says so)', async (t) => {
    const s = await startServer({ executor: agent, handler: { authRequiredStreamMs: LONG_WINDOW_MS } });
    t.after(() => s.close());
    const started = Date.now();
    const res = await fetch(s.jsonRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: uid('m'), role: 'user', parts: [{ kind: 'text', text: 'never' }] } },
      }),
      signal: AbortSignal.timeout(8_000),
    });
    const results: { status?: { state: string }; final?: boolean }[] = [];
    for await (const e of readSse(res.body as ReadableStream<Uint8Array>, new SseParser())) results.push(JSON.parse(e.data).result);
    const last = results[results.length - 1];
    assert.equal(last?.status?.state, 'auth-required');
    assert.equal(last?.final, true);
    assert.ok(Date.now() - started < 3_000, `ended after ${Date.now() - started} ms`);
  });
});
