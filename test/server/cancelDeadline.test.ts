/**
 * CancelTask and the agent's cancel(): it runs before CANCELED is written and the run's signal
 * is aborted; it can refuse (TaskNotCancelableError); and one that outlives its deadline
 * (CancelContext.signal, `cancelTimeoutMs`) is not waited for: the task is canceled anyway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import { TaskNotCancelableError } from '../../src/protocol/errors.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Task } from '../../src/protocol/types.js';
import { eventually } from '../support/assertions.js';
import { callAs, testCard } from './support.js';

const ctx = callAs();

/** Works until its signal aborts; `cancel` is the agent's cancel(). `log` records the order of events. */
function agent(log: string[], cancel: AgentExecutor['cancel']): AgentExecutor {
  return {
    async execute(c, task) {
      await task.startWork('working');
      log.push('working');
      await new Promise((resolve) => c.signal.addEventListener('abort', resolve));
      log.push('signal aborted');
    },
    ...(cancel ? { cancel } : {}),
  };
}

async function startTask(h: A2ARequestHandler, log: string[]): Promise<string> {
  const res = await h.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'work' }] }, configuration: { returnImmediately: true } }, ctx);
  assert.ok('task' in res);
  await eventually(async () => (log.includes('working') ? true : undefined), 'the run to work');
  return res.task.id;
}

test('LIFE-05 cancel() is called first (the run is still going), then CANCELED is written, then the signal aborts', async () => {
  const log: string[] = [];
  const h = new A2ARequestHandler({
    agentCard: testCard('cancel order'),
    executor: agent(log, async (c) => {
      log.push(`cancel() sees ${c.task.status.state}, signal ${c.signal.aborted ? 'aborted' : 'not aborted'}`);
    }),
  });
  const id = await startTask(h, log);
  const canceled: Task = await h.unary('cancelTask', { id }, ctx);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  await eventually(async () => (log.includes('signal aborted') ? true : undefined), 'the run to be aborted');
  assert.deepEqual(log, ['working', 'cancel() sees TASK_STATE_WORKING, signal not aborted', 'signal aborted']);
  await h.drain(0);
});

test('R5 a cancel() that hangs past its deadline does not hang CancelTask: the task is canceled anyway, and onError says why', async () => {
  const log: string[] = [];
  const errors: unknown[] = [];
  const contexts: unknown[] = [];
  let deadline: AbortSignal | undefined;
  const h = new A2ARequestHandler({
    agentCard: testCard('hanging cancel'),
    executor: agent(log, async (c) => {
      deadline = c.signal;
      await new Promise(() => undefined); // ignores its deadline
    }),
    cancelTimeoutMs: 200,
    onError: (e, context) => (errors.push(e), contexts.push(context)),
  });
  const id = await startTask(h, log);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answer = await Promise.race([h.unary('cancelTask', { id }, ctx), new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 5_000)))]);
  clearTimeout(timer);
  assert.notEqual(answer, 'hung', 'CancelTask answered');
  assert.equal((answer as Task).status.state, 'TASK_STATE_CANCELED');
  assert.equal(deadline?.aborted, true, 'cancel() was told through its signal');
  assert.match(String(errors[0]), /cancel\(\) of task .* did not finish within 200 ms/);
  assert.deepEqual(contexts[0], { operation: 'cancelTask', taskId: id, contextId: (answer as Task).contextId, tenant: '' }, 'onError hears which task');
  await eventually(async () => (log.includes('signal aborted') ? true : undefined), 'the run to be aborted');
  await h.drain(0);
});

test('LIFE-05 a cancel() that refuses in time: TaskNotCancelableError, the task keeps working', async () => {
  const log: string[] = [];
  const h = new A2ARequestHandler({
    agentCard: testCard('refusing cancel'),
    executor: agent(log, async () => {
      throw new TaskNotCancelableError('This task cannot be stopped');
    }),
    cancelTimeoutMs: 200,
  });
  const id = await startTask(h, log);
  await assert.rejects(h.unary('cancelTask', { id }, ctx), (e: unknown) => e instanceof TaskNotCancelableError);
  assert.equal((await h.unary('getTask', { id }, ctx)).status.state, 'TASK_STATE_WORKING');
  await h.drain(0);
});
