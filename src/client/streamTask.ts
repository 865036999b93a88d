/**
 * STREAM-09: the events of a task stream are all about one task. Its id is known from the
 * request (SubscribeToTask's `id`, a follow-up message's `taskId`) or else from the first event
 * naming a task; an event naming another task is the agent's fault, INVALID_RESPONSE, rather
 * than something to assemble into this task (or to resubscribe to).
 */
import type { OperationName, StreamResponse } from '../protocol/types.js';
import { A2AClientError } from './errors.js';

type Named = { id?: string; taskId?: string; message?: Named } | undefined;

/** The task an event is about (checked by checkEvent: one member set); a message may name none. */
function taskIdOf(event: StreamResponse): string | undefined {
  const e = event as Record<string, Named>;
  return e.task?.id ?? (e.statusUpdate ?? e.artifactUpdate ?? e.message)?.taskId;
}

/** A check for each event of one stream (of `call`): it throws INVALID_RESPONSE for an event about another task. */
export function oneTaskCheck(call: { op: OperationName; request: unknown }): (event: StreamResponse) => void {
  const request = call.request as NonNullable<Named>;
  // An empty id names no task: the first event names it.
  let expected = call.op === 'subscribeToTask' ? request.id : request.message?.taskId;
  return (event) => {
    const id = taskIdOf(event);
    expected ||= id;
    if (id && id !== expected) {
      throw new A2AClientError('INVALID_RESPONSE', `The agent sent an event of task ${JSON.stringify(id).slice(0, 100)} on the stream of task ${JSON.stringify(expected).slice(0, 100)}`);
    }
  };
}
