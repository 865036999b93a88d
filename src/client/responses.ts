/**
 * The shapes of the agent's answers, checked before a caller sees them: every unary result
 * (checkResponse, for every transport, a 0.3 answer after its translation) and every stream
 * event (checkEvent, JSON-08: the HTTP transports, gRPC, a 0.3 event after its translation).
 * What is checked is what a caller, the TaskAssembler or the CLI reads without looking twice: a
 * Task has an id and a status with a TaskState of 1.0 and, if any, a status message that is a
 * Message; a Message an id, a role and parts; an Artifact an id and parts; a Part exactly one
 * content member of its type; a list a list. Not metadata or `data` values, nor the optional
 * strings that are only printed, so that the check stays cheap per event; not the proto-driven
 * decoder (src/protocol/decode.ts), which stays out of the client bundle. REQUIRED is read as a
 * ProtoJSON writer allows (an empty page token or list of configs may be left out).
 * Anything else is a local A2AClientError INVALID_RESPONSE.
 */
import type { OperationResponses, StreamResponse, TaskState, UnaryOperationName } from '../protocol/types.js';
import { isFinalForNow } from '../protocol/taskStates.js';
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

/**
 * The TaskState names of A2A 1.0; UNSPECIFIED included (a 0.3 `unknown` state reads as it). A
 * name outside them is refused, not passed on: the client asked for 1.0 (A2A-Version), and a
 * state it does not know it cannot tell terminal or not (a stream would never settle on it).
 */
const knownState = (v: unknown): boolean =>
  v === 'TASK_STATE_UNSPECIFIED' || v === 'TASK_STATE_SUBMITTED' || v === 'TASK_STATE_WORKING' || isFinalForNow(v as TaskState);
/**
 * A Part: an object with exactly one content member, of its type (text, raw as base64, url:
 * strings; data: any JSON value, not looked into).
 */
const part: Check = (v) => {
  if (!isObject(v)) return false;
  let set = v.data === undefined ? 0 : 1;
  for (const content of [v.text, v.raw, v.url]) {
    if (content == null) continue;
    if (typeof content !== 'string') return false;
    set++;
  }
  return set === 1;
};
const parts = listOf(part);
const message: Check = (v) => isObject(v) && isId(v.messageId) && typeof v.role === 'string' && parts(v.parts);
const status: Check = (v) => isObject(v) && knownState(v.state) && (v.message === undefined || message(v.message));
const artifact: Check = (v) => isObject(v) && isId(v.artifactId) && parts(v.parts);
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
