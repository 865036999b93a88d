/**
 * MSG-01 / R4 across instances: a blocking retry of a message whose task another instance
 * sharing the store is running (the first delivery landed there) waits for that run as
 * SubscribeToTask follows it — the task's event log and the cross-instance bus (taskStream.ts) —
 * until the task is terminal or interrupted. When that instance died, its lease expires and a
 * lease sweep (on any instance) fails the task or runs it again: either write ends the wait too.
 * The caller going away (or its deadline) and this server beginning to shut down end the wait
 * early; the caller is then told UNAVAILABLE (a retry is answered from the task, R4), never
 * the task still WORKING.
 */
import { A2AError } from '../protocol/errors.js';
import type { EventBus } from './eventBus.js';
import type { SignalHolder } from './pushStream.js';
import type { TaskStore } from './stores/taskStore.js';
import { readTaskStream } from './taskStream.js';

export interface ElsewhereDeps {
  store: TaskStore;
  bus: EventBus;
  /** Aborted when this server begins to shut down (drain). */
  closing: AbortSignal;
}

/**
 * Resolves once the task is terminal, interrupted or gone, or once `caller`'s signal or
 * shutdown stops the wait (the caller reads the task again to tell which); rejects when
 * reading the task fails.
 */
export function untilSettled(deps: ElsewhereDeps, task: { tenant: string; id: string }, caller: SignalHolder): Promise<void> {
  const stops = caller.signal ? [deps.closing, caller.signal] : [deps.closing];
  const stream = readTaskStream({ store: deps.store, bus: deps.bus, tenant: task.tenant, taskId: task.id, start: 'snapshot' });
  return new Promise<void>((resolve, reject) => {
    const done = (): void => {
      for (const signal of stops) signal.removeEventListener('abort', stop);
    };
    const stop = (): void => {
      done();
      stream.close();
      resolve();
    };
    if (stops.some((signal) => signal.aborted)) {
      stream.close();
      resolve();
      return;
    }
    for (const signal of stops) signal.addEventListener('abort', stop);
    stream.pipe({
      push: () => true,
      end: () => {
        done();
        resolve();
      },
      fail: (error) => {
        done();
        reject(error);
      },
    });
  });
}

/** The answer to a blocking retry whose wait was stopped before the task settled elsewhere. */
export function stoppedWaiting(taskId: string): A2AError {
  return new A2AError(
    'UNAVAILABLE',
    `Task ${taskId} is still being processed by another server instance, and this one stopped waiting for it (it is shutting down, or the call ended); send the message again to get its outcome`,
    { metadata: { taskId } },
  );
}
