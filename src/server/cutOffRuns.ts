/**
 * What graceful shutdown does with the runs it had to abort at its deadline (TaskRunner.drain):
 * a task they left SUBMITTED or WORKING becomes FAILED, saying the server shut down — unless a
 * resumable agent runs under execution leases, where another instance takes the task over and
 * runs it again (R2, R24). Callers still waiting on a run that ignored its signal are answered
 * with the task as it was left.
 */
import type { TaskState } from '../protocol/types.js';
import { detachedExecution, type DetachedRunDeps } from './detachedRun.js';
import type { CutOffTask } from './taskRunner.js';

/** Status message of a task whose run the server cut short when it shut down. */
export const SHUT_DOWN_MESSAGE = 'The server shut down before the task finished';

const UNFINISHED: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

export async function settleCutOffRuns(deps: DetachedRunDeps, tasks: CutOffTask[]): Promise<void> {
  // Under leases a resumable agent's task is taken over elsewhere: left as it is.
  const handOver = deps.resumable && deps.runner.leases !== undefined;
  await Promise.all(
    tasks.map(async ({ tenant, taskId, hanging }) => {
      try {
        let record = await deps.store.get(tenant, taskId);
        if (record && !handOver && UNFINISHED.includes(record.task.status.state)) {
          const updater = detachedExecution(deps, { ...record, tenant });
          await updater.fail(SHUT_DOWN_MESSAGE);
          record = (await deps.store.get(tenant, taskId)) ?? record;
        }
        if (record) for (const execution of hanging) execution.cutOff(record);
      } catch (error) {
        deps.onError?.(error);
      }
    }),
  );
}
