/**
 * The shared data objects between A2A 0.3 (JSON-RPC dialect) and 1.0 (digest §5.3): task
 * states, roles, parts, messages, artifacts, task status and tasks, in both directions.
 *
 * `…ToV03` take trusted 1.0 objects (ours) and are total. `…ToV10` take untrusted 0.3 JSON
 * (`unknown`) and throw InvalidParamsError naming the field when a value cannot be routed; the
 * 1.0 decoder validates the rest afterwards.
 */
import { invalidField } from '../protocol/errors.js';
import type { Artifact, JsonObject, Message, Part, Role, Task, TaskState, TaskStatus } from '../protocol/types.js';
import { asArray, asObj, copy, isObj, join, metadataOf, type Obj } from './read.js';
import type { V03Artifact, V03FileWithBytes, V03FileWithUri, V03Message, V03Part, V03Role, V03Task, V03TaskState, V03TaskStatus } from './v03Types.js';

const STATE_TO_V03: Record<TaskState, V03TaskState> = {
  TASK_STATE_UNSPECIFIED: 'unknown',
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};
const STATE_TO_V10 = new Map<string, TaskState>(
  (Object.entries(STATE_TO_V03) as [TaskState, V03TaskState][]).map(([v10, v03]) => [v03, v10]),
);

export function stateToV03(state: TaskState): V03TaskState {
  return STATE_TO_V03[state] ?? 'unknown';
}

export function stateToV10(state: unknown, field = 'state'): TaskState {
  const found = typeof state === 'string' ? STATE_TO_V10.get(state) : undefined;
  if (!found) throw invalidField(field, `must be a 0.3 task state (${[...STATE_TO_V10.keys()].join(', ')})`);
  return found;
}

/** ROLE_UNSPECIFIED has no 0.3 form; it becomes `agent` (a 1.0 client message must be ROLE_USER anyway). */
export function roleToV03(role: Role): V03Role {
  return role === 'ROLE_USER' ? 'user' : 'agent';
}

export function roleToV10(role: unknown, field = 'role'): Role {
  if (role === 'user') return 'ROLE_USER';
  if (role === 'agent') return 'ROLE_AGENT';
  throw invalidField(field, "must be 'user' or 'agent'");
}

/**
 * The metadata key the reference Python SDK uses to mark a 1.0 data part whose value is not an
 * object, wrapped as `{"value": X}` for 0.3 (whose DataPart.data must be an object).
 */
export const DATA_PART_COMPAT_KEY = 'data_part_compat';

function withMetadata<T extends object>(out: T, metadata: JsonObject | undefined): T {
  if (metadata !== undefined) (out as Obj).metadata = metadata;
  return out;
}

/** 1.0 → 0.3. Lossy: `mediaType` and `filename` of text and data parts (0.3 has no such fields). */
export function partToV03(part: Part): V03Part {
  if ('text' in part) return withMetadata({ kind: 'text', text: part.text }, part.metadata);
  if ('raw' in part || 'url' in part) {
    const file: V03FileWithBytes | V03FileWithUri = 'raw' in part ? { bytes: part.raw } : { uri: part.url };
    if (part.mediaType !== undefined) file.mimeType = part.mediaType;
    if (part.filename !== undefined) file.name = part.filename;
    return withMetadata({ kind: 'file', file }, part.metadata);
  }
  if (isObj(part.data)) return withMetadata({ kind: 'data', data: part.data }, part.metadata);
  return { kind: 'data', data: { value: part.data }, metadata: { ...part.metadata, [DATA_PART_COMPAT_KEY]: true } };
}

/** 0.3 → 1.0: `kind` dropped; `file.{bytes|uri, mimeType, name}` → `{raw|url, mediaType, filename}`. */
export function partToV10(input: unknown, field = 'part'): Part {
  const part = asObj(input, field);
  const metadata = metadataOf(part);
  switch (part.kind) {
    case 'text':
      return withMetadata({ text: part.text as string }, metadata);
    case 'file': {
      const file = asObj(part.file, join(field, 'file'));
      const hasBytes = file.bytes !== undefined;
      const hasUri = file.uri !== undefined;
      if (hasBytes === hasUri) throw invalidField(join(field, 'file'), hasBytes ? 'must set only one of bytes, uri' : 'must set one of bytes, uri');
      const out: Part = hasBytes ? { raw: file.bytes as string } : { url: file.uri as string };
      if (file.mimeType !== undefined) out.mediaType = file.mimeType as string;
      if (file.name !== undefined) out.filename = file.name as string;
      return withMetadata(out, metadata);
    }
    case 'data': {
      if (metadata?.[DATA_PART_COMPAT_KEY] === true && isObj(part.data) && Object.keys(part.data).length === 1 && 'value' in part.data) {
        const { [DATA_PART_COMPAT_KEY]: _flag, ...rest } = metadata;
        return withMetadata({ data: part.data.value as JsonObject }, Object.keys(rest).length > 0 ? rest : undefined);
      }
      return withMetadata({ data: part.data as JsonObject }, metadata);
    }
    default:
      throw invalidField(join(field, 'kind'), "must be 'text', 'file' or 'data'");
  }
}

const MESSAGE_FIELDS = ['messageId', 'contextId', 'taskId', 'referenceTaskIds', 'extensions', 'metadata'] as const;

export function messageToV03(message: Message): V03Message {
  const out = { kind: 'message', messageId: message.messageId, role: roleToV03(message.role), parts: message.parts.map(partToV03) } as V03Message;
  return copy(out, message, MESSAGE_FIELDS);
}

export function messageToV10(input: unknown, field = 'message'): Message {
  const message = asObj(input, field);
  const out = {
    messageId: message.messageId,
    role: roleToV10(message.role, join(field, 'role')),
    parts: asArray(message.parts, join(field, 'parts')).map((p, i) => partToV10(p, join(join(field, 'parts'), i))),
  } as Message;
  return copy(out, message, MESSAGE_FIELDS);
}

const ARTIFACT_FIELDS = ['name', 'description', 'metadata', 'extensions'] as const;

export function artifactToV03(artifact: Artifact): V03Artifact {
  return copy({ artifactId: artifact.artifactId, parts: artifact.parts.map(partToV03) }, artifact, ARTIFACT_FIELDS);
}

export function artifactToV10(input: unknown, field = 'artifact'): Artifact {
  const artifact = asObj(input, field);
  const parts = asArray(artifact.parts, join(field, 'parts')).map((p, i) => partToV10(p, join(join(field, 'parts'), i)));
  return copy({ artifactId: artifact.artifactId as string, parts }, artifact, ARTIFACT_FIELDS);
}

/** 0.3 examples wrote naive timestamps (no zone): they are UTC (digest §5.3). */
const NAIVE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

export function timestampToV10(value: unknown): unknown {
  return typeof value === 'string' && NAIVE_TIMESTAMP.test(value) ? `${value}Z` : value;
}

export function statusToV03(status: TaskStatus): V03TaskStatus {
  const out: V03TaskStatus = { state: stateToV03(status.state) };
  if (status.message !== undefined) out.message = messageToV03(status.message);
  if (status.timestamp !== undefined) out.timestamp = status.timestamp;
  return out;
}

export function statusToV10(input: unknown, field = 'status'): TaskStatus {
  const status = asObj(input, field);
  const out: TaskStatus = { state: stateToV10(status.state, join(field, 'state')) };
  if (status.message !== undefined) out.message = messageToV10(status.message, join(field, 'message'));
  if (status.timestamp !== undefined) out.timestamp = timestampToV10(status.timestamp) as string;
  return out;
}

/** `contextId` is REQUIRED in 0.3: a 1.0 task without one gets `""` (A13: ours always have one). */
export function taskToV03(task: Task): V03Task {
  const out: V03Task = { kind: 'task', id: task.id, contextId: task.contextId ?? '', status: statusToV03(task.status) };
  if (task.history !== undefined) out.history = task.history.map(messageToV03);
  if (task.artifacts !== undefined) out.artifacts = task.artifacts.map(artifactToV03);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

export function taskToV10(input: unknown, field = 'task'): Task {
  const task = asObj(input, field);
  const out: Task = { id: task.id as string, status: statusToV10(task.status, join(field, 'status')) };
  if (task.contextId !== undefined && task.contextId !== '') out.contextId = task.contextId as string;
  if (task.history !== undefined) {
    out.history = asArray(task.history, join(field, 'history')).map((m, i) => messageToV10(m, join(join(field, 'history'), i)));
  }
  if (task.artifacts !== undefined) {
    out.artifacts = asArray(task.artifacts, join(field, 'artifacts')).map((a, i) => artifactToV10(a, join(join(field, 'artifacts'), i)));
  }
  if (task.metadata !== undefined) out.metadata = task.metadata as JsonObject;
  return out;
}
