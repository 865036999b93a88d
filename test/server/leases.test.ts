/**
 * Execution leases across instances, in one process: two request handlers ("instances" A and B)
 * share one store and one bus, as two servers share PostgreSQL and its NOTIFY bus. R2 (several
 * instances): a task whose instance stops renewing is taken over by the other — FAILED with a
 * reason, or re-run when the agent is resumable; R24: a draining instance hands its tasks over at
 * once; a cancel made on B stops the run on A. (Multi-process versions: test/scaleout.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler, INSTANCE_STOPPED_MESSAGE, type CallContext } from '../../src/server/requestHandler.js';
import { SHUT_DOWN_MESSAGE } from '../../src/server/cutOffRuns.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { LeaseStore } from '../../src/server/stores/leaseStore.js';
import { deadAfterAcquire } from '../support/deadLeases.js';
import { LeaseLostError } from '../../src/server/leases.js';
import type { Task } from '../../src/protocol/types.js';
import { eventually } from '../support/assertions.js';
import { testCard } from './support.js';

const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };
const card = testCard('lease test');
const TTL = 150;

/** Works until aborted (or 10 s); on a re-run (ctx.task set) completes at once. */
function slowAgent(log: string[]): AgentExecutor {
  return {
    async execute(c, task) {
      if (c.task && c.task.status.state === 'TASK_STATE_WORKING') {
        log.push('resumed');
        await task.complete('finished after takeover');
        return;
      }
      await task.startWork('working');
      log.push('started');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        c.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log.push('aborted');
          resolve();
        });
      });
    },
  };
}

/** Works and never returns, whatever its signal says (on a re-run too). */
function hangingAgent(log: string[]): AgentExecutor {
  return {
    async execute(c, task) {
      log.push(c.task ? 'resumed' : 'started');
      await task.startWork('working');
      await new Promise(() => undefined);
    },
  };
}

function instances(options: { resumable?: boolean; aliveA?: boolean; hangingA?: boolean } = {}) {
  const store = new MemoryTaskStore();
  const bus = new LocalEventBus();
  const logA: string[] = [];
  const logB: string[] = [];
  const a = new A2ARequestHandler({
    agentCard: card,
    executor: options.hangingA ? hangingAgent(logA) : slowAgent(logA),
    store,
    bus,
    leases: { owner: 'A', ttlMs: TTL, ...(options.aliveA === false ? { store: deadAfterAcquire(store) } : {}) },
    resumable: options.resumable === true,
  });
  const b = new A2ARequestHandler({
    agentCard: card,
    executor: slowAgent(logB),
    store,
    bus,
    leases: { owner: 'B', ttlMs: TTL },
    resumable: options.resumable === true,
  });
  return { store, a, b, logA, logB };
}

async function startOnA(a: A2ARequestHandler): Promise<string> {
  const res = await a.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'work' }] }, configuration: { returnImmediately: true } }, ctx);
  assert.ok('task' in res);
  return res.task.id;
}

async function stateOn(h: A2ARequestHandler, id: string): Promise<Task> {
  return h.unary('getTask', { id }, ctx);
}

test('R2 (two instances): the task of an instance that stopped renewing is FAILED by the other, with a reason', async () => {
  const { a, b, logA } = instances({ aliveA: false });
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  const failed = await eventually(async () => {
    const t = await stateOn(b, id);
    return t.status.state === 'TASK_STATE_FAILED' ? t : undefined;
  }, 'B to take the task over');
  const text = failed.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('');
  assert.equal(text, INSTANCE_STOPPED_MESSAGE);
  await Promise.all([a.drain(0), b.drain(0)]);
});

test('R2 (two instances): a resumable agent is run again on the instance that took over', async () => {
  const { a, b, logA, logB } = instances({ aliveA: false, resumable: true });
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  await eventually(async () => ((await stateOn(b, id)).status.state === 'TASK_STATE_COMPLETED' ? true : undefined), 'B to finish the task');
  assert.deepEqual(logB, ['resumed']);
  await Promise.all([a.drain(0), b.drain(0)]);
});

test('a live instance keeps its task: renewals stop the other from taking it over', async () => {
  const { a, b, logA } = instances();
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  await new Promise((resolve) => setTimeout(resolve, TTL * 4));
  assert.equal((await stateOn(b, id)).status.state, 'TASK_STATE_WORKING');
  await b.unary('cancelTask', { id }, ctx);
  await Promise.all([a.drain(1000), b.drain(0)]);
});

test('a cancel made on B aborts the run on A', async () => {
  const { a, b, logA } = instances();
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  const canceled = await b.unary('cancelTask', { id }, ctx);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  await eventually(async () => (logA.includes('aborted') ? true : undefined), "A's run to be aborted", 2000);
  await Promise.all([a.drain(0), b.drain(0)]);
});

test('R24 a draining instance hands its unfinished task of a resumable agent over at once (no TTL wait), even when its run ignores the signal', async () => {
  const { a, b, logA, logB } = instances({ resumable: true, hangingA: true });
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  // A's run never ends: drain gives up on it after the grace, leaves the task WORKING and expires its lease.
  await a.drain(0);
  await eventually(async () => ((await stateOn(b, id)).status.state === 'TASK_STATE_COMPLETED' ? true : undefined), 'B to take over and resume', TTL * 4);
  assert.deepEqual(logB, ['resumed']);
  await b.drain(0);
});

test('R24 a draining instance fails the unfinished task of an agent that is not resumable, saying the server shut down', async () => {
  const { a, b, logA } = instances({ hangingA: true });
  const id = await startOnA(a);
  await eventually(async () => (logA.includes('started') ? true : undefined), 'A to start');
  await a.drain(0);
  const failed = await stateOn(b, id);
  assert.equal(failed.status.state, 'TASK_STATE_FAILED');
  assert.equal(failed.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join(''), SHUT_DOWN_MESSAGE);
  await b.drain(0);
});

test('R3: an instance whose renewals fail (database unreachable) stops its run after a TTL and writes nothing more, even if the agent ignores the abort', async () => {
  const store = new MemoryTaskStore();
  const bus = new LocalEventBus();
  const seen: unknown[] = [];
  let reason: unknown;
  const unreachable: LeaseStore = {
    acquireLease: (i) => store.acquireLease(i),
    renewLeases: async () => {
      throw new Error('connection refused');
    },
    releaseLease: (t, id, owner) => store.releaseLease(t, id, owner),
    expiredLeases: async () => [],
    takeOverLease: async () => false,
  };
  const a = new A2ARequestHandler({
    agentCard: card,
    executor: {
      async execute(c, task) {
        await task.startWork('working');
        // Ignores ctx.signal on purpose, and writes after its lease is gone.
        await new Promise((resolve) => setTimeout(resolve, TTL * 3));
        reason = c.signal.reason;
        try {
          await task.complete('too late');
        } catch (error) {
          seen.push(error);
        }
      },
    },
    store,
    bus,
    leases: { owner: 'A', ttlMs: TTL, store: unreachable },
    onError: (e) => seen.push(e),
  });
  const id = await startOnA(a);
  await eventually(async () => (seen.some((e) => e instanceof LeaseLostError) && reason !== undefined ? true : undefined), 'the run to lose its lease', 3000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(reason instanceof LeaseLostError, `the run's signal says the lease was lost: ${String(reason)}`);
  assert.match((reason as Error).message, /lease of task .* was lost/);
  assert.equal((await stateOn(a, id)).status.state, 'TASK_STATE_WORKING', 'the late complete() was not written');
  assert.ok(seen.filter((e) => e instanceof LeaseLostError).length >= 2, 'the loss was reported, and the late write refused');
  await a.drain(0);
});

test('R3: a write that passes the instance\'s own lease check is still refused by the store once another instance holds the lease (the fence is in the write)', async () => {
  const store = new MemoryTaskStore();
  const bus = new LocalEventBus();
  const seen: unknown[] = [];
  let proceed!: () => void;
  const paused = new Promise<void>((resolve) => (proceed = resolve));
  let started!: () => void;
  const working = new Promise<void>((resolve) => (started = resolve));
  const a = new A2ARequestHandler({
    agentCard: card,
    executor: {
      async execute(_c, task) {
        await task.startWork('working');
        started();
        // As if the process paused here: the instance still thinks it holds the lease (long TTL).
        await paused;
        try {
          await task.complete('too late');
        } catch (error) {
          seen.push(error);
        }
      },
    },
    store,
    bus,
    leases: { owner: 'A', ttlMs: 60_000 },
    onError: (e) => seen.push(e),
  });
  const id = await startOnA(a);
  await working;
  // Another instance took the task over meanwhile (its expiry on the store's clock, not A's).
  await store.releaseLease('', id, 'A');
  assert.equal(await store.acquireLease({ tenant: '', taskId: id, owner: 'X', ttlMs: 60_000 }), true);
  proceed();
  await eventually(async () => (seen.some((e) => e instanceof LeaseLostError) ? true : undefined), 'the late write to be refused', 3000);
  assert.match(String((seen.find((e) => e instanceof LeaseLostError) as Error).message), /store refused the write/);
  assert.equal((await stateOn(a, id)).status.state, 'TASK_STATE_WORKING', 'the late complete() was not written');
  await a.drain(0);
});
