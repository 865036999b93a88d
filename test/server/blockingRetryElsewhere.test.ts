/**
 * R4 / MSG-01 across instances, in one process: two request handlers ("instances" A and B) share
 * one store and one bus under execution leases, as two servers share PostgreSQL and its NOTIFY
 * bus. A blocking retry of a message (same messageId, same caller) that lands on B while A runs
 * its task used to be answered at once with the task still WORKING (B only waited for runs on
 * B). It now waits for A's run — or, when A died, for B's lease sweep to fail the task — and
 * is answered with the task as it ends. B shutting down, or the retry's caller going away,
 * stops the wait: UNAVAILABLE, never WORKING. (Real processes on PostgreSQL:
 * test/scaleout/blockingRetry.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler, INSTANCE_STOPPED_MESSAGE, type CallContext } from '../../src/server/requestHandler.js';
import { A2AError } from '../../src/protocol/errors.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { deadAfterAcquire } from '../support/deadLeases.js';
import type { Message, SendMessageResponse, Task } from '../../src/protocol/types.js';
import { eventually } from '../support/assertions.js';
import { testCard } from './support.js';

const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };
const card = testCard('retry elsewhere');
const TTL = 150;

/** A store several instances share (as PostgreSQL is). */
class SharedStore extends MemoryTaskStore {
  readonly sharedAcrossInstances = true;
}

/** Works for `ms` (or until aborted), then completes. */
function slowAgent(ms: number, started: string[]): AgentExecutor {
  return {
    async execute(c, task) {
      await task.startWork('working');
      started.push(c.taskId);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        c.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (!c.signal.aborted) await task.complete('done');
    },
  };
}

/**
 * Lease timers do not hold the process open (a server's sockets do): the tests keep it alive
 * while a retry waits for a sweep.
 */
function keepAlive(): () => void {
  const timer = setInterval(() => undefined, 1000);
  return () => clearInterval(timer);
}

function instances(options: { aMs: number; aliveA?: boolean }) {
  const store = new SharedStore();
  const bus = new LocalEventBus();
  const started: string[] = [];
  const a = new A2ARequestHandler({
    agentCard: card,
    executor: slowAgent(options.aMs, started),
    store,
    bus,
    leases: { owner: 'A', ttlMs: TTL, ...(options.aliveA === false ? { store: deadAfterAcquire(store) } : {}) },
    // A dead instance's lost lease is reported: expected here.
    onError: () => undefined,
  });
  const b = new A2ARequestHandler({ agentCard: card, executor: slowAgent(0, started), store, bus, leases: { owner: 'B', ttlMs: TTL } });
  return { store, a, b, started };
}

function message(): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'work' }] };
}

function taskOf(res: SendMessageResponse): Task {
  assert.ok('task' in res, 'answered with a task');
  return res.task;
}

/** Sends `msg` blocking to A and waits until A's run has begun (the task WORKING). */
async function runningOnA(a: A2ARequestHandler, started: string[], msg: Message): Promise<{ first: Promise<SendMessageResponse> }> {
  const first = a.unary('sendMessage', { message: msg }, ctx);
  first.catch(() => undefined);
  await eventually(async () => (started.length > 0 ? true : undefined), 'A to start the run');
  return { first };
}

test('R4 MSG-01 (two instances): a blocking retry on B of a message A is running answers with the task A completes, not WORKING', async () => {
  const { store, a, b, started } = instances({ aMs: 400 });
  try {
    const msg = message();
    const { first } = await runningOnA(a, started, msg);
    const retried = taskOf(await b.unary('sendMessage', { message: msg }, ctx));
    assert.equal(retried.status.state, 'TASK_STATE_COMPLETED', 'the retry waited for the run on A');
    const original = taskOf(await first);
    assert.equal(retried.id, original.id, 'the same task');
    assert.deepEqual(started, [original.id], 'the agent ran once');
    const stored = await store.get('', original.id);
    assert.equal(stored?.task.history?.filter((m) => m.role === 'ROLE_USER').length, 1, 'no second user message in the history');
  } finally {
    await Promise.all([a.drain(1000), b.drain(1000)]);
  }
});

test('R4 MSG-01 (two instances): A dies mid-run; a blocking retry on B waits for B to take the task over and answers with it FAILED', async () => {
  const { a, b, started } = instances({ aMs: 10_000, aliveA: false });
  const release = keepAlive();
  try {
    const msg = message();
    await runningOnA(a, started, msg);
    const retried = taskOf(await b.unary('sendMessage', { message: msg }, ctx));
    assert.equal(retried.status.state, 'TASK_STATE_FAILED', "the retry waited for B's lease sweep");
    assert.equal(retried.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join(''), INSTANCE_STOPPED_MESSAGE);
  } finally {
    release();
    await Promise.all([a.drain(0), b.drain(0)]);
  }
});

test('R4 MSG-01 (two instances): B shutting down, or the caller going away, stops the wait with UNAVAILABLE, never WORKING', async () => {
  const { a, b, started } = instances({ aMs: 10_000 });
  const release = keepAlive();
  try {
    const msg = message();
    await runningOnA(a, started, msg);
    const gone = new AbortController();
    const left = b.unary('sendMessage', { message: msg }, { ...ctx, signal: gone.signal });
    const waiting = b.unary('sendMessage', { message: msg }, ctx);
    const pending = Symbol('pending');
    assert.equal(await Promise.race([left, waiting, new Promise((resolve) => setTimeout(() => resolve(pending), 200))]), pending, 'the retries wait');
    gone.abort();
    await assert.rejects(left, (e: unknown) => A2AError.is(e) && e.reason === 'UNAVAILABLE');
    await b.drain(0);
    await assert.rejects(waiting, (e: unknown) => A2AError.is(e) && e.reason === 'UNAVAILABLE' && /send the message again/.test(e.message));
  } finally {
    release();
    await Promise.all([a.drain(0), b.drain(0)]);
  }
});
