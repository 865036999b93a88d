/**
 * A grpc-js call's deadline (`grpc-timeout`). grpc-js answers DEADLINE_EXCEEDED from a timer
 * that can fire before the request's half-close arrives: it then runs the call's cancellation
 * while no handler call exists yet, and still calls the handler afterwards with a call whose
 * `cancelled` is false and that never emits 'cancelled'. So a handler treats a deadline already
 * passed on entry as a cancelled call, and a stream watches its deadline itself (streamCall.ts).
 */
import type { Deadline } from '@grpc/grpc-js';

/** What is read of a call. */
export interface DeadlineCall {
  getDeadline(): Deadline;
}

/** The deadline in ms since the epoch; Infinity when the call has none. */
export function deadlineOf(call: DeadlineCall): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/** The call's deadline has passed: grpc-js has answered (or is about to answer) DEADLINE_EXCEEDED. */
export function deadlinePassed(call: DeadlineCall): boolean {
  return deadlineOf(call) <= Date.now();
}

/** setTimeout's largest delay; a later deadline is checked again when this one runs out. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Runs `expired` once the call's deadline has passed (never without one); clear the result to stop. */
export function whenDeadlinePasses(call: DeadlineCall, expired: () => void): { clear(): void } | undefined {
  const deadline = deadlineOf(call);
  if (deadline === Infinity) return undefined;
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    // One ms past it: grpc-js's own timer, due at the deadline, normally ends the call first.
    timer = setTimeout(() => (Date.now() > deadline ? expired() : arm()), Math.min(Math.max(deadline - Date.now() + 1, 0), MAX_DELAY_MS));
    timer.unref();
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}
