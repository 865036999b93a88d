/**
 * OBS-01: a call whose answer cannot be encoded is reported as the error the client receives,
 * not `ok` — on every binding, unary and streaming, A2A 1.0 and 0.3. The handler's part of the
 * call succeeds; the binding then fails writing its answer (INTERNAL): a store handing back a
 * task that JSON and protobuf cannot carry (a bigint in its metadata). (An agent's text with a
 * lone surrogate, which protobuf cannot carry, is refused when the agent writes it:
 * test/protocol/wellFormedText.test.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BINDINGS, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { TaskRecord } from '../../src/server/stores/taskStore.js';
import type { CallRecord } from '../../src/server/callObserver.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';

/** Hands back the tasks in `poisoned` with metadata no encoder can write. */
class PoisonedStore extends MemoryTaskStore {
  readonly poisoned = new Set<string>();

  override async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    const record = await super.get(tenant, taskId);
    if (!record || !this.poisoned.has(taskId)) return record;
    return { ...record, task: { ...record.task, metadata: { size: 1n } as never } };
  }
}

/** Keeps the task WORKING until cancelled. */
const agent: AgentExecutor = {
  async execute(ctx, task) {
    await task.startWork('working');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  },
};

const message = (text: string) => ({ message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } });

describe('OBS-01 an answer that fails to encode is reported as the error it becomes', () => {
  let server: TestServer;
  const store = new PoisonedStore();
  const records: CallRecord[] = [];
  const bindings: TestBinding[] = [];

  before(async () => {
    server = await startServer({ executor: agent, handler: { store, onCall: (call) => records.push(call) } });
    for (const f of BINDINGS) bindings.push(f.create(server));
  });
  after(() => server.close());

  /** The one record of the calls `run` makes (hook calls of streams may come a moment after their end). */
  async function recordOf(run: () => Promise<void>): Promise<CallRecord> {
    const from = records.length;
    await run();
    await new Promise((r) => setTimeout(r, 100));
    const got = records.slice(from);
    assert.equal(got.length, 1, JSON.stringify(got));
    return got[0] as CallRecord;
  }

  /** A task WORKING (its agent waits), poisoned in the store. */
  async function poisonedTask(binding: TestBinding): Promise<string> {
    const sent = await binding.call('sendMessage', { ...message('wait'), configuration: { returnImmediately: true } });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const id = (sent as { result: { task: { id: string } } }).result.task.id;
    store.poisoned.add(id);
    return id;
  }

  for (const f of BINDINGS) {
    test(`${f.name}: GetTask and SubscribeToTask whose answer cannot be encoded are INTERNAL, not ok`, async () => {
      const binding = bindings.find((b) => b.name === f.name) as TestBinding;
      const id = await poisonedTask(binding);
      const unary = await recordOf(async () => {
        const got = await binding.call('getTask', { id });
        assert.equal(got.ok, false, JSON.stringify(got));
        assert.equal((got as { error: { reason: string } }).error.reason, 'INTERNAL');
      });
      assert.deepEqual([unary.binding, unary.operation, unary.outcome, unary.taskId], [f.name, 'getTask', 'INTERNAL', id]);

      const stream = await recordOf(async () => {
        const got = await binding.stream('subscribeToTask', { id }, { timeoutMs: 5000 });
        const failed = got.ok ? got.events.find((e) => e.error)?.error : got.error;
        assert.equal(failed?.reason, 'INTERNAL', JSON.stringify(got));
      });
      assert.deepEqual([stream.binding, stream.operation, stream.outcome, stream.streamEnd], [f.name, 'subscribeToTask', 'INTERNAL', 'error']);
      await binding.call('cancelTask', { id });
    });
  }

  test('HTTP+JSON 0.3: GET /v1/tasks/{id} and :subscribe whose answer cannot be encoded are INTERNAL, not ok', async () => {
    const id = await poisonedTask(bindings[0] as TestBinding);
    const unary = await recordOf(async () => {
      const res = await fetch(`${server.restUrl}/v1/tasks/${id}`);
      assert.equal(res.status, 500, await res.text());
    });
    assert.deepEqual([unary.protocolVersion, unary.binding, unary.operation, unary.outcome], ['0.3', 'HTTP+JSON', 'getTask', 'INTERNAL']);
    const stream = await recordOf(async () => {
      const text = await (await fetch(`${server.restUrl}/v1/tasks/${id}:subscribe`)).text();
      assert.match(text, /-32603|INTERNAL/i);
    });
    assert.deepEqual([stream.protocolVersion, stream.operation, stream.outcome, stream.streamEnd], ['0.3', 'subscribeToTask', 'INTERNAL', 'error']);
    await bindings[0]?.call('cancelTask', { id });
  });

  test('JSON-RPC 0.3: tasks/get and tasks/resubscribe whose answer cannot be encoded are INTERNAL, not ok', async () => {
    const id = await poisonedTask(bindings[0] as TestBinding);
    const rpc = (method: string) =>
      fetch(server.jsonRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id } }) });
    const unary = await recordOf(async () => {
      const body = (await (await rpc('tasks/get')).json()) as { error?: { code: number } };
      assert.equal(body.error?.code, -32603, JSON.stringify(body));
    });
    assert.deepEqual([unary.protocolVersion, unary.operation, unary.outcome], ['0.3', 'getTask', 'INTERNAL']);
    const stream = await recordOf(async () => {
      const text = await (await rpc('tasks/resubscribe')).text();
      assert.match(text, /-32603/);
    });
    assert.deepEqual([stream.protocolVersion, stream.operation, stream.outcome, stream.streamEnd], ['0.3', 'subscribeToTask', 'INTERNAL', 'error']);
    await bindings[0]?.call('cancelTask', { id });
  });
});
