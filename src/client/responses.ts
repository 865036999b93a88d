/**
 * The shapes of the agent's answers, checked before a caller sees them: every unary result
 * (checkResponse, for every transport, a 0.3 answer after its translation) and every stream
 * event of the HTTP transports (checkEvent, JSON-08). What is checked is what a caller or the
 * TaskAssembler reads without looking twice: a Task has an id and a status with a TaskState
 * name, a Message an id and parts, a list a list. Not the proto-driven decoder
 * (src/protocol/decode.ts), which stays out of the client bundle; REQUIRED is read as a
 * ProtoJSON writer allows (an empty page token or list of configs may be left out).
 * Anything else is a local A2AClientError INVALID_RESPONSE.
 */
import type { OperationResponses, StreamResponse, UnaryOperationName } from '../protocol/types.js';
import { A2AClientError } from './errors.js';
import { isObject } from './http.js';

type Check = (value: unknown) => boolean;

const isId: Check = (v) => typeof v === 'string' && v !== '';
/** Absent, or a string. */
const optString: Check = (v) => v === undefined || typeof v === 'string';
const listOf =
  (check: Check, optional?: boolean): Check =>
  (v) =>
    (optional && v === undefined) || (Array.isArray(v) && v.every(check));
/** Exactly one member set (null counts as unset), and that one valid. */
const oneOf =
  (members: Record<string, Check>): Check =>
  (v) => {
    const set = isObject(v) ? Object.keys(members).filter((k) => v[k] != null) : [];
    return set.length === 1 && (members[set[0] as string] as Check)((v as Record<string, unknown>)[set[0] as string]);
  };

/** A TaskState name; UNSPECIFIED included (a 0.3 `unknown` state reads as it). */
const status: Check = (v) => isObject(v) && /^TASK_STATE_[A-Z_]+$/.test(String(v.state));
const message: Check = (v) => isObject(v) && isId(v.messageId) && typeof v.role === 'string' && Array.isArray(v.parts);
const artifact: Check = (v) => isObject(v) && Array.isArray(v.parts);
const task: Check = (v) =>
  isObject(v) && isId(v.id) && optString(v.contextId) && status(v.status) && listOf(artifact, true)(v.artifacts) && listOf(message, true)(v.history);
const update = (member: string, check: Check): Check => (v) => isObject(v) && isId(v.taskId) && check(v[member]);
const pushConfig: Check = (v) => isObject(v) && typeof v.url === 'string' && optString(v.id) && optString(v.taskId);
const page = (member: string, check: Check): Check => (v) => isObject(v) && check(v[member]) && optString(v.nextPageToken);

const event = oneOf({ task, message, statusUpdate: update('status', status), artifactUpdate: update('artifact', artifact) });

/**
 * What each unary operation answers: SendMessageResponse (exactly one of task, message), Task,
 * ListTasksResponse, TaskPushNotificationConfig, ListTaskPushNotificationConfigsResponse.
 * DeleteTaskPushNotificationConfig may answer anything; the extended card is checkCard's.
 */
const RESPONSES: { [K in UnaryOperationName]?: Check } = {
  sendMessage: oneOf({ task, message }),
  getTask: task,
  cancelTask: task,
  listTasks: page('tasks', listOf(task)),
  createTaskPushNotificationConfig: pushConfig,
  getTaskPushNotificationConfig: pushConfig,
  listTaskPushNotificationConfigs: page('configs', listOf(pushConfig, true)),
};

function checked<T>(check: Check | undefined, value: unknown, what: string): T {
  if (!check || check(value)) return value as T;
  throw new A2AClientError('INVALID_RESPONSE', `The agent sent ${what}: ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** The result of `op`, or INVALID_RESPONSE when it does not have the operation's response shape. */
export function checkResponse<K extends UnaryOperationName>(op: K, value: OperationResponses[K]): OperationResponses[K] {
  return checked(RESPONSES[op], value, `an invalid ${op} response`);
}

/** A StreamResponse has exactly one of its four members (JSON-08), itself well formed. */
export function checkEvent(value: unknown): StreamResponse {
  return checked(event, value, 'an event that is not a StreamResponse');
}
