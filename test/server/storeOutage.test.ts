/**
 * R2/R24: a run outlives a short store outage. The memory store behind a "connection" that
 * fails on command (the PostgreSQL versions: test/stores/postgresOutage.test.ts): a write the
 * store could not take is retried until the run's deadline and the agent's call waits for it;
 * a write whose answer was lost after it was applied (the connection dropped after COMMIT) is
 * recognised as applied and never written twice; a run that finally cannot write fails naming
 * the store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError } from '../../src/protocol/errors.js';
import type { Task } from '../../src/protocol/types.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { A2ARequestHandler, type CallContext } from '../../src/server/requestHandler.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { AppendInput, CreateOptions, ListQuery, StoredEvent, TaskStore } from '../../src/server/stores/taskStore.js';
import { deadlineIn } from '../../src/server/storePatience.js';
import { TaskWriter } from '../../src/server/taskWriter.js';
import { applyArtifact } from '../../src/protocol/applyEvent.js';
import { callAs, testCard } from './support.js';

const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };

const refused = () => StoreUnavailableError.from(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
const cut = () => StoreUnavailableError.from(new Error('Connection terminated unexpectedly'));

/**
 * The memory store behind a connection that fails on command: every call fails while `downUntil`
 * is ahead (or `refuseNext` calls remain); with `loseNextAnswer` the next write is applied and
 * then fails, as when the connection drops after COMMIT. No `ordersWrites`: writes take the lock.
 */
class FlakyStore implements TaskStore {
  readonly inner = new MemoryTaskStore();
  downUntil = 0;
  refuseNext = 0;
  loseNextAnswer = false;
  /** Writes the inner store applied. */
  applied = 0;

  private gate(): void {
    if (Date.now() < this.downUntil) throw refused();
    if (this.refuseNext > 0) {
      this.refuseNext--;
      throw refused();
    }
  }

  private answered<T>(result: T): T {
    this.applied++;
    if (!this.loseNextAnswer) return result;
    this.loseNextAnswer = false;
    throw cut();
  }

  async get(tenant: string, taskId: string) {
    this.gate();
    return this.inner.get(tenant, taskId);
  }
  async create(tenant: string, task: Task, options?: CreateOptions) {
    this.gate();
    return this.answered(await this.inner.create(tenant, task, options));
  }
  async append(input: AppendInput) {
    this.gate();
    return this.answered(await this.inner.append(input));
  }
  async events(tenant: string, taskId: string, afterSeq: number) {
    this.gate();
    return this.inner.events(tenant, taskId, afterSeq);
  }
  async findMessage(tenant: string, owner: string, messageId: string) {
    this.gate();
    return this.inner.findMessage(tenant, owner, messageId);
  }
  async list(query: ListQuery) {
    this.gate();
    return this.inner.list(query);
  }
  async claimContext(tenant: string, contextId: string, owner: string) {
    this.gate();
    return this.inner.claimContext(tenant, contextId, owner);
  }
}

const task: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-12-01T00:00:00.000Z' } };

function artifactChange(i: number) {
  return (record: { task: Task }) => {
    const update = { taskId: 't1', contextId: 'c1', artifact: { artifactId: `a${i}`, parts: [{ text: String(i) }] } };
    return { task: applyArtifact(record.task, update), events: [{ artifactUpdate: update }] };
  };
}

function writerOn(store: FlakyStore): { writer: TaskWriter; published: number[] } {
  const bus = new LocalEventBus();
  const published: number[] = [];
  bus.subscribe('', 't1', (events: StoredEvent[]) => published.push(...events.map((e) => e.seq)));
  return { writer: new TaskWriter(store, bus), published };
}

test('R2: an append applied before its connection dropped (answer lost) is recognised, not written twice', async () => {
  const store = new FlakyStore();
  const { writer, published } = writerOn(store);
  const created = await writer.create('', task);
  store.loseNextAnswer = true;
  const { record, events } = await writer.update({ tenant: '', taskId: 't1', known: created, until: deadlineIn(5_000) }, artifactChange(1));
  assert.equal(record.version, 2);
  assert.deepEqual(
    events.map((e) => e.seq),
    [2],
  );
  assert.equal(store.applied, 2, 'the creation and one append, no second append');
  assert.deepEqual(
    (await store.inner.events('', 't1', 0)).map((e) => e.seq),
    [1, 2],
  );
  assert.deepEqual(published, [1, 2], 'each event published once');
});

test('R2: a creation (with its first change) applied before its connection dropped is not written twice', async () => {
  const store = new FlakyStore();
  const { writer, published } = writerOn(store);
  store.loseNextAnswer = true;
  const first = artifactChange(1)({ task });
  const record = await writer.create('', task, { then: first, until: deadlineIn(5_000) });
  assert.deepEqual(record.task, first.task);
  assert.equal(store.applied, 1);
  assert.deepEqual(
    (await store.inner.events('', 't1', 0)).map((e) => e.seq),
    [1, 2],
  );
  assert.deepEqual(published, [1, 2]);
});

test('R2: a write the store refuses is retried (with backoff) until it lands; without a deadline it fails at once', async () => {
  const store = new FlakyStore();
  const { writer } = writerOn(store);
  const created = await writer.create('', task);
  store.refuseNext = 4;
  const { record } = await writer.update({ tenant: '', taskId: 't1', known: created, until: deadlineIn(5_000) }, artifactChange(1));
  assert.equal(record.version, 2);
  store.refuseNext = 1;
  await assert.rejects(writer.update({ tenant: '', taskId: 't1' }, artifactChange(2)), StoreUnavailableError);
  store.downUntil = Date.now() + 60_000;
  const started = Date.now();
  await assert.rejects(writer.update({ tenant: '', taskId: 't1', until: deadlineIn(300) }, artifactChange(3)), StoreUnavailableError);
  const waited = Date.now() - started;
  assert.ok(waited >= 250 && waited < 2_000, `gave up at its deadline (${waited} ms)`);
});

/** Emits `n` artifacts, one every 20 ms, then completes. */
function chattyAgent(n: number, onEmit: (i: number) => void): AgentExecutor {
  return {
    async execute(_c, updater) {
      await updater.startWork('working');
      for (let i = 0; i < n; i++) {
        onEmit(i);
        await updater.addArtifact(`chunk ${i}`, { artifactId: 'out', append: i > 0 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await updater.complete('done');
    },
  };
}

test('R2/R24: an agent run outlives a 400 ms store outage and a lost answer: COMPLETED, every event once, gapless', async () => {
  const store = new FlakyStore();
  const handler = new A2ARequestHandler({
    agentCard: testCard('outage'),
    store,
    executor: chattyAgent(20, (i) => {
      if (i === 5) store.downUntil = Date.now() + 400;
      if (i === 12) store.loseNextAnswer = true;
    }),
  });
  const res = await handler.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } }, ctx);
  assert.ok('task' in res);
  assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED');
  const events = await store.inner.events('', res.task.id, 0);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
  );
  // The snapshot, WORKING, 20 chunks, COMPLETED.
  assert.equal(events.length, 23);
  assert.equal(res.task.artifacts?.[0]?.parts.length, 20);
  await handler.drain(0);
});

test('R2: a run that gives up because the store stayed out of reach fails naming the store, not the agent', async () => {
  const store = new FlakyStore();
  const handler = new A2ARequestHandler({
    agentCard: testCard('outage'),
    store,
    // What an agent sees once a write's deadline has passed (its error rethrown with a cause).
    executor: {
      async execute(_c, updater) {
        await updater.startWork('working');
        throw new Error('could not save progress', { cause: refused() });
      },
    },
  });
  const res = await handler.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } }, ctx);
  assert.ok('task' in res);
  assert.equal(res.task.status.state, 'TASK_STATE_FAILED');
  const reason = res.task.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('');
  assert.match(reason ?? '', /task store could not be reached/);
  await handler.drain(0);
});

test('R2/TENANT-06: recording a message reply\'s context outlives a short store outage like the run\'s writes (not INTERNAL)', async () => {
  const store = new FlakyStore();
  let claimsRefused = 0;
  const claim = store.claimContext.bind(store);
  store.claimContext = async (tenant, contextId, owner) => {
    if (claimsRefused < 3) {
      claimsRefused++;
      throw refused();
    }
    return claim(tenant, contextId, owner);
  };
  const handler = new A2ARequestHandler({
    agentCard: testCard('outage'),
    store,
    executor: {
      async execute(_c, updater) {
        await updater.reply('hello');
      },
    },
  });
  const res = await handler.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, callAs('alice'));
  assert.ok('message' in res, JSON.stringify(res));
  assert.equal(claimsRefused, 3);
  assert.equal(await store.inner.claimContext('', res.message.contextId as string, 'mallory'), 'alice', 'the context is recorded as the caller\'s');
  await handler.drain(0);
});

test('R19: a cancel() hook that fails because the store cannot be reached is answered UNAVAILABLE (retryable), not INTERNAL', async () => {
  const handler = new A2ARequestHandler({
    agentCard: testCard('outage'),
    executor: {
      async execute(_c, updater) {
        await updater.requireInput('which one?');
      },
      async cancel() {
        throw new Error('could not cancel', { cause: refused() });
      },
    },
  });
  const res = await handler.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } }, ctx);
  assert.ok('task' in res);
  await assert.rejects(handler.unary('cancelTask', { id: res.task.id }, ctx), (error: unknown) => error instanceof StoreUnavailableError && error.reason === 'UNAVAILABLE');
  await handler.drain(0);
});
