/**
 * What graceful shutdown does with the runs it had to abort at its deadline (TaskRunner.drain):
 * a task they left SUBMITTED or WORKING becomes FAILED, saying the server shut down — unless a
 * resumable agent runs under execution leases, where another instance takes the task over and
 * runs it again (R2, R24), its last user message included. The blocking callers of the aborted
 * runs are answered here, with the task as it was left (MSG-01): those of runs that ignored their
 * signal, and those of runs that returned on it with the task WORKING, which get it FAILED.
 *
 * A recorded follow-up whose turn had not come by the deadline is never started: its task
 * becomes FAILED in the same way — also when the run before it left it INPUT_REQUIRED or
 * AUTH_REQUIRED, which no instance would take over, so that the task does not go on asking for
 * input its client already sent. Its caller gets that task, and onError hears of the message.
 */
import { isTerminalState } from '../protocol/taskStates.js';
import type { TaskState } from '../protocol/types.js';
import { detachedExecution, type DetachedRunDeps } from './detachedRun.js';
import { serverShuttingDown } from './shuttingDown.js';
import type { CutOffTask } from './taskRunner.js';

/** Status message of a task whose run the server cut short when it shut down. */
export const SHUT_DOWN_MESSAGE = 'The server shut down before the task finished';

const UNFINISHED: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

export async function settleCutOffRuns(deps: DetachedRunDeps, tasks: CutOffTask[]): Promise<void> {
  // Under leases a resumable agent's task is taken over elsewhere: left as it is.
  const handOver = deps.resumable && deps.runner.leases !== undefined;
  await Promise.all(
    tasks.map(async ({ tenant, taskId, aborted, withdrawn }) => {
      const callers = [...aborted, ...withdrawn];
      try {
        let record = await deps.store.get(tenant, taskId);
        const state = record?.task.status.state;
        const unfinished = state !== undefined && UNFINISHED.includes(state);
        const owed = withdrawn.length > 0 && state !== undefined && !isTerminalState(state);
        if (record && ((unfinished && !handOver) || (owed && !unfinished))) {
          const updater = detachedExecution(deps, { ...record, tenant });
          await updater.fail(SHUT_DOWN_MESSAGE);
          record = (await deps.store.get(tenant, taskId)) ?? record;
        }
        for (const execution of callers) {
          if (record) execution.cutOff(record);
          // No task was stored for the message (nor its R4 claim): sending it again is safe.
          else execution.refuse(serverShuttingDown(taskId));
        }
      } catch (error) {
        deps.onError?.(error);
        // The task as stored is not how shutdown meant to leave it: an error, never a stale task.
        for (const execution of callers) execution.refuse(error);
      }
    }),
  );
}
