/**
 * R2 for a single instance: on start, tasks that a crash left SUBMITTED or WORKING — their
 * executor died with the process — move to FAILED with a reason, as an ordinary
 * compare-and-set append, so GetTask, ListTasks and resumed streams all see a definite end.
 * Tasks waiting for the client (INPUT_REQUIRED, AUTH_REQUIRED) are not stuck and are left alone.
 *
 * Only correct when no other live instance runs tasks on the same storage: with several
 * instances on one PostgreSQL, recovery needs execution leases (the rest of R2).
 */
import { applyStatus } from '../../protocol/applyEvent.js';
import type { StreamResponse, TaskState, TaskStatus } from '../../protocol/types.js';
import { VersionConflictError, type TaskStore } from '../../server/stores/taskStore.js';
import { timeOrderedId } from '../../server/timeOrderedId.js';

/** States whose executor, if any, ran inside the process that stopped. */
export const ACTIVE_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

export const DEFAULT_RECOVERY_REASON = 'The server stopped while this task was running; it was marked failed when the server restarted.';

/** A store that can enumerate active tasks across tenants (the SQL stores). */
export interface ActiveTaskSource {
  listActive(): Promise<Array<{ tenant: string; taskId: string }>>;
}

export interface RecoverOptions {
  /** Text of the FAILED status message. */
  reason?: string;
  newId?: () => string;
  now?: () => string;
}

export interface RecoveredTask {
  tenant: string;
  taskId: string;
  /** The state the task was left in. */
  from: TaskState;
  seq: number;
}

export async function recoverInterrupted(store: TaskStore & ActiveTaskSource, options: RecoverOptions = {}): Promise<RecoveredTask[]> {
  const newId = options.newId ?? timeOrderedId;
  const now = options.now ?? (() => new Date().toISOString());
  const recovered: RecoveredTask[] = [];
  for (const { tenant, taskId } of await store.listActive()) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const record = await store.get(tenant, taskId);
      if (!record || !ACTIVE_STATES.includes(record.task.status.state)) break;
      const task = record.task;
      const status: TaskStatus = {
        state: 'TASK_STATE_FAILED',
        message: {
          messageId: newId(),
          role: 'ROLE_AGENT',
          taskId,
          ...(task.contextId !== undefined ? { contextId: task.contextId } : {}),
          parts: [{ text: options.reason ?? DEFAULT_RECOVERY_REASON }],
        },
        timestamp: now(),
      };
      const event: StreamResponse = { statusUpdate: { taskId, contextId: task.contextId ?? '', status } };
      try {
        const result = await store.append({ tenant, taskId, expectedVersion: record.version, task: applyStatus(task, status), events: [event] });
        recovered.push({ tenant, taskId, from: task.status.state, seq: result.record.seq });
        break;
      } catch (error) {
        if (!(error instanceof VersionConflictError)) throw error;
      }
    }
  }
  return recovered;
}
