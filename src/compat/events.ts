/**
 * Results and stream events between A2A 0.3 and 1.0 (digest §5.2, §5.3, §5.7): 1.0 wraps
 * (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`), 0.3 sends the bare object with
 * its `kind`. 0.3 status updates carry a REQUIRED `final` flag; 1.0 ends the stream instead.
 */
import { invalidField } from '../protocol/errors.js';
import { isFinalForNow } from '../protocol/taskStates.js';
import type {
  JsonObject,
  SendMessageResponse,
  StreamResponse,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from '../protocol/types.js';
import { artifactToV03, artifactToV10, messageToV03, messageToV10, statusToV03, statusToV10, taskToV03, taskToV10 } from './objects.js';
import { asObj, join } from './read.js';
import type {
  V03SendMessageResult,
  V03StreamEvent,
  V03TaskArtifactUpdateEvent,
  V03TaskStatusUpdateEvent,
} from './v03Types.js';

export interface FinalOption {
  /**
   * The 0.3 `final` flag: true on the event after which the server closes the stream. Default:
   * the state is terminal or interrupted (input/auth required), which is when our streams close
   * (digest A2). The streaming layer, which knows when it closes, should pass it explicitly.
   */
  final?: boolean;
}

export function statusUpdateToV03(event: TaskStatusUpdateEvent, options: FinalOption = {}): V03TaskStatusUpdateEvent {
  const out: V03TaskStatusUpdateEvent = {
    kind: 'status-update',
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV03(event.status),
    final: options.final ?? isFinalForNow(event.status.state),
  };
  if (event.metadata !== undefined) out.metadata = event.metadata;
  return out;
}

/** `final` is dropped (1.0 has none): use `isFinalV03Event` before translating if the caller needs it. */
export function statusUpdateToV10(input: unknown, field = 'statusUpdate'): TaskStatusUpdateEvent {
  const event = asObj(input, field);
  const out: TaskStatusUpdateEvent = {
    taskId: event.taskId as string,
    contextId: event.contextId as string,
    status: statusToV10(event.status, join(field, 'status')),
  };
  if (event.metadata !== undefined) out.metadata = event.metadata as JsonObject;
  return out;
}

export function artifactUpdateToV03(event: TaskArtifactUpdateEvent): V03TaskArtifactUpdateEvent {
  const out: V03TaskArtifactUpdateEvent = {
    kind: 'artifact-update',
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: artifactToV03(event.artifact),
  };
  if (event.append !== undefined) out.append = event.append;
  if (event.lastChunk !== undefined) out.lastChunk = event.lastChunk;
  if (event.metadata !== undefined) out.metadata = event.metadata;
  return out;
}

export function artifactUpdateToV10(input: unknown, field = 'artifactUpdate'): TaskArtifactUpdateEvent {
  const event = asObj(input, field);
  const out: TaskArtifactUpdateEvent = {
    taskId: event.taskId as string,
    contextId: event.contextId as string,
    artifact: artifactToV10(event.artifact, join(field, 'artifact')),
  };
  if (event.append !== undefined) out.append = event.append as boolean;
  if (event.lastChunk !== undefined) out.lastChunk = event.lastChunk as boolean;
  if (event.metadata !== undefined) out.metadata = event.metadata as JsonObject;
  return out;
}

/** A 1.0 SendMessage result (`{task}` / `{message}`) as the bare 0.3 `message/send` result. */
export function sendMessageResultToV03(result: SendMessageResponse): V03SendMessageResult {
  return 'task' in result ? taskToV03(result.task) : messageToV03(result.message);
}

/** A 0.3 `message/send` result (bare Task or Message, told apart by `kind`) as the 1.0 wrapper. */
export function sendMessageResultToV10(input: unknown, field = 'result'): SendMessageResponse {
  const result = asObj(input, field);
  if (result.kind === 'task') return { task: taskToV10(result, field) };
  if (result.kind === 'message') return { message: messageToV10(result, field) };
  throw invalidField(join(field, 'kind'), "must be 'task' or 'message'");
}

/** One 1.0 stream element as the bare 0.3 stream result (`message/stream`, `tasks/resubscribe`). */
export function streamResponseToV03(response: StreamResponse, options: FinalOption = {}): V03StreamEvent {
  if ('task' in response) return taskToV03(response.task);
  if ('message' in response) return messageToV03(response.message);
  if ('statusUpdate' in response) return statusUpdateToV03(response.statusUpdate, options);
  return artifactUpdateToV03(response.artifactUpdate);
}

/** One 0.3 stream result as the 1.0 StreamResponse wrapper. */
export function streamEventToV10(input: unknown, field = 'result'): StreamResponse {
  const event = asObj(input, field);
  switch (event.kind) {
    case 'task':
      return { task: taskToV10(event, field) };
    case 'message':
      return { message: messageToV10(event, field) };
    case 'status-update':
      return { statusUpdate: statusUpdateToV10(event, field) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdateToV10(event, field) };
    default:
      throw invalidField(join(field, 'kind'), "must be 'task', 'message', 'status-update' or 'artifact-update'");
  }
}

/**
 * Client side: true when a 0.3 server marked this stream event as its last (`final: true` on a
 * status update). A message result also ends a 0.3 stream.
 */
export function isFinalV03Event(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const event = input as { kind?: unknown; final?: unknown };
  return (event.kind === 'status-update' && event.final === true) || event.kind === 'message';
}
