/**
 * Runs of an agent that no request started: a takeover of a task whose instance died (leases),
 * and the TaskUpdater a cancel hook is given. Both act on the task as stored, with its last
 * user message as the run's message.
 */
import type { Message } from '../protocol/types.js';
import type { AgentExecutor } from './agentExecutor.js';
import type { ErrorHook } from './errorHook.js';
import { Execution } from './execution.js';
import { LazyAbort } from './lazyAbort.js';
import { textOf } from './runContext.js';
import type { Lease } from './stores/leaseStore.js';
import type { TaskRecord, TaskStore } from './stores/taskStore.js';
import type { TaskRunner } from './taskRunner.js';
import type { TaskWriter } from './taskWriter.js';

/** Status message of a task whose instance stopped while it ran (and the agent is not resumable). */
export const INSTANCE_STOPPED_MESSAGE =
  'The server instance running this task stopped, or lost its hold on the task (it could not reach the task store for a whole lease TTL, say), before it finished';

/** What a detached run needs from the request handler. */
export interface DetachedRunDeps {
  writer: TaskWriter;
  executor: AgentExecutor;
  newId: () => string;
  onError: ErrorHook | undefined;
  store: TaskStore;
  runner: TaskRunner;
  /** The agent can run a task again from its stored state (else a taken-over task fails). */
  resumable: boolean;
}

/** An Execution on an existing task with its last user message (cancel hooks, takeover re-runs). */
export function detachedExecution(deps: DetachedRunDeps, record: TaskRecord & { tenant: string }, run: { abort?: LazyAbort; resume?: boolean } = {}): Execution {
  const tenant = record.tenant;
  const task = record.task;
  const history = task.history ?? [];
  const message: Message = [...history].reverse().find((m) => m.role === 'ROLE_USER') ?? { messageId: '', role: 'ROLE_USER', parts: [] };
  return new Execution({
    writer: deps.writer,
    executor: deps.executor,
    existing: record,
    abort: run.abort ?? new LazyAbort(),
    recorded: run.resume === true,
    newId: deps.newId,
    ...(deps.onError ? { onError: deps.onError } : {}),
    context: {
      message,
      text: textOf(message.parts),
      taskId: task.id,
      contextId: task.contextId ?? '',
      task,
      request: { message },
      tenant,
      extensions: [],
      protocolVersion: '1.0',
    },
  });
}

/** A task whose instance died: run the agent again if it is resumable, else fail the task. */
export async function takeOverTask(deps: DetachedRunDeps, lease: Lease): Promise<void> {
  const { tenant, taskId } = lease;
  const { runner } = deps;
  const record = await deps.store.get(tenant, taskId);
  const state = record?.task.status.state;
  if (!record || (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING')) {
    await runner.leases?.release(tenant, taskId);
    return;
  }
  if (!deps.resumable) {
    try {
      await detachedExecution(deps, record).fail(INSTANCE_STOPPED_MESSAGE);
    } finally {
      await runner.leases?.release(tenant, taskId);
    }
    return;
  }
  const controller = new LazyAbort();
  const execution = detachedExecution(deps, record, { abort: controller, resume: true });
  // The lease is already ours (won by takeover): the run re-acquires it as its owner.
  await runner.schedule({ tenant, taskId, execution, abort: controller });
}
