import type { TaskState } from './types.js';

const TERMINAL: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** LIFE-01: completed, failed, canceled and rejected tasks never change again. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** Input or auth required: the task waits for the client. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** MSG-01 / STREAM-04: blocking calls return and streams close on these states. */
export function isFinalForNow(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}
