/**
 * Agent failures are never silent: without `onError` they are logged with their stack and the
 * task's ids; `onError(error, context)` gets those ids; writes an agent makes after its task
 * ended are reported once per run (LIFE-02), and `addArtifact` then resolves to ''.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AHandler, type A2AHandler } from '../../src/server/createA2AHandler.js';
import { DroppedWriteError } from '../../src/server/agentWrites.js';
import type { ErrorContext } from '../../src/server/errorHook.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Task } from '../../src/protocol/types.js';
import { testCard } from './support.js';

let counter = 0;
async function call(handler: A2AHandler, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await handler.fetch(
    new Request(`http://localhost/a2a/rest${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(body ?? {}),
    }),
  );
  return (await res.json()) as Record<string, unknown>;
}
const send = (handler: A2AHandler, extra: object = {}) =>
  call(handler, '/message:send', { message: { messageId: `e-${++counter}`, role: 'ROLE_USER', parts: [{ text: 'go' }] }, ...extra });

const thrower: AgentExecutor = {
  async execute(_ctx, task) {
    await task.startWork();
    throw new Error('boom in the agent');
  },
};

test('without onError, an agent that throws is logged on console.error with its stack and the task id', async (t: TestContext) => {
  const logged = t.mock.method(console, 'error', () => undefined);
  const handler = createA2AHandler({ agentCard: testCard('loud'), executor: thrower });
  const { task } = (await send(handler)) as { task: Task };
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assert.equal(logged.mock.callCount(), 1);
  const line = String(logged.mock.calls[0]?.arguments[0]);
  assert.ok(line.startsWith(`a2a-kit: error (agent, task ${task.id}, context ${task.contextId}): Error: boom in the agent\n    at `), line);
  assert.match(line, /agentErrors\.test\.ts/, 'the stack points into the agent');
});

test('onError(error, context): the operation, task and context ids; an old one-argument callback still fits', async () => {
  const seen: { error: unknown; context: ErrorContext | undefined }[] = [];
  const handler = createA2AHandler({ agentCard: testCard('ctx'), executor: thrower, onError: (error, context) => seen.push({ error, context }) });
  const { task } = (await send(handler)) as { task: Task };
  assert.equal(seen.length, 1);
  assert.equal((seen[0]?.error as Error).message, 'boom in the agent');
  assert.deepEqual(seen[0]?.context, { operation: 'execute', tenant: '', taskId: task.id, contextId: task.contextId });
  const old: unknown[] = [];
  const oneArg = (error: unknown): void => void old.push(error);
  await send(createA2AHandler({ agentCard: testCard('old'), executor: thrower, onError: oneArg }));
  assert.equal(old.length, 1);
});

test('LIFE-02: writes after COMPLETED are ignored and reported once per run; addArtifact resolves to ""', async () => {
  const reports: { error: unknown; context: ErrorContext | undefined }[] = [];
  let late: { id: string; terminal: boolean } | undefined;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const handler = createA2AHandler({
    agentCard: testCard('late'),
    executor: {
      async execute(_ctx, task) {
        await task.complete('done');
        const id = await task.addArtifact('too late', { artifactId: 'late-1' });
        await task.startWork('still going?');
        await task.addArtifact('and again');
        late = { id, terminal: task.isTerminal };
        finished();
      },
    },
    onError: (error, context) => reports.push({ error, context }),
  });
  const { task } = (await send(handler)) as { task: Task };
  await done;
  assert.deepEqual(late, { id: '', terminal: true });
  assert.equal(reports.length, 1, 'once per run');
  const report = reports[0];
  assert.ok(report?.error instanceof DroppedWriteError);
  assert.equal(report.error.message, 'agent wrote artifact late-1 after the task reached TASK_STATE_COMPLETED; ignored (later ignored writes of this run are not reported)');
  assert.equal(report.context?.taskId, task.id);
  const stored = (await handler.fetch(new Request(`http://localhost/a2a/rest/tasks/${task.id}`, { headers: { 'a2a-version': '1.0' } })).then((r) => r.json())) as Task;
  assert.equal(stored.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(stored.artifacts, undefined);
});

test('a run whose task was canceled: the agent error is reported, the run\'s own FAILED write (ignored) is not', async () => {
  const reports: unknown[] = [];
  let started!: (id: string) => void;
  const running = new Promise<string>((resolve) => (started = resolve));
  const handler = createA2AHandler({
    agentCard: testCard('canceled'),
    executor: {
      async execute(ctx, task) {
        await task.startWork();
        started(task.taskId);
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('stopped by the cancel');
      },
    },
    onError: (error) => reports.push(error),
  });
  void send(handler, { configuration: { returnImmediately: true } });
  const taskId = await running;
  const canceled = (await call(handler, `/tasks/${taskId}:cancel`)) as unknown as Task;
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  await handler.requestHandler.drain(5_000); // the run has ended (its FAILED write included)
  assert.deepEqual(
    reports.map((e) => (e as Error).message),
    ['stopped by the cancel'],
  );
});
