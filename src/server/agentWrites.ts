/**
 * What an agent writes through its TaskUpdater is held to the same rules as what clients send:
 * each status, message and artifact goes through the descriptor-driven decoder of requests
 * (../protocol/decode.ts) before it is stored, and a bad one is refused at the agent's call with
 * a TypeError naming the field ("addArtifact: parts[0] must set one of text, raw, url, data").
 * The run then fails the task as for any agent error. On top of the proto: LIFE-01 (no
 * TASK_STATE_UNSPECIFIED, no going back to SUBMITTED) and STREAM-10 (nothing appended to an
 * artifact after its last chunk). Writes dropped because the task is terminal are reported.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { StructSchema } from '@bufbuild/protobuf/wkt';
import { ArtifactSchema, MessageSchema, TaskStateSchema, TaskStatusSchema } from '../gen/a2a_pb.js';
import { decodeMessage, isJsonObject, type DecodeLimits } from '../protocol/decode.js';
import { isCleanId } from '../protocol/messagePlan.js';
import { InvalidParamsError } from '../protocol/errors.js';
import { isWellFormed } from '../protocol/wellFormed.js';
import type { Artifact, JsonObject, Message, Part, TaskState, TaskStatus } from '../protocol/types.js';
import { toParts } from './taskUpdater.js';

/** The decoder's size limits guard against untrusted input; the agent's own output has none. */
const UNLIMITED: DecodeLimits = { maxListLength: Infinity, maxObjectKeys: Infinity, maxStringLength: Infinity };

/** Most field violations named in one TypeError. */
const MAX_NAMED = 3;

/**
 * The shortcut for what agents write most (the string content of a status message or a
 * streamed chunk): a plain object of non-empty strings and text-only parts, which the decoder
 * would return unchanged, is kept as it is, without the decoder's walk and copy (a few µs per
 * write, on every streamed event). It only ever says yes to a subset of what the decoder
 * accepts (test/server/agentWrites.test.ts checks them against each other); anything else —
 * metadata, data or file parts, an empty string, an unknown member — goes through the decoder,
 * which alone decides and words the errors.
 */
const PLAIN_MEMBERS: ReadonlyMap<DescMessage, ReadonlySet<string>> = new Map<DescMessage, ReadonlySet<string>>([
  [MessageSchema, new Set(['messageId', 'contextId', 'taskId', 'role'])],
  [ArtifactSchema, new Set(['artifactId', 'name', 'description'])],
]);
const ID_MEMBERS: ReadonlySet<string> = new Set(['messageId', 'contextId', 'taskId']);
const ROLES: ReadonlySet<unknown> = new Set(['ROLE_USER', 'ROLE_AGENT']);
/** The states a task can be in: the proto's TaskState values but UNSPECIFIED (LIFE-01). */
const STATES: ReadonlySet<unknown> = new Set(TaskStateSchema.values.map((v) => v.name).filter((name) => name !== 'TASK_STATE_UNSPECIFIED'));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && isJsonObject(value);
}

/** `{ text: '…' }` and nothing else (well-formed text, as the decoder requires). */
function isPlainTextPart(part: unknown): boolean {
  if (!isPlainObject(part)) return false;
  for (const key in part) if (key !== 'text') return false;
  return typeof part.text === 'string' && part.text !== '' && isWellFormed(part.text);
}

/** True only for a value of `desc` that the decoder would accept and return unchanged. */
export function isPlainWrite(desc: DescMessage, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (desc === TaskStatusSchema) {
    for (const key in value) {
      if (key === 'message' ? !isPlainWrite(MessageSchema, value.message) : key !== 'state' && key !== 'timestamp') return false;
    }
    return STATES.has(value.state) && typeof value.timestamp === 'string' && value.timestamp.endsWith('Z') && !Number.isNaN(Date.parse(value.timestamp));
  }
  const members = PLAIN_MEMBERS.get(desc);
  if (!members) return false;
  let parts = false;
  for (const key in value) {
    const member = value[key];
    if (key === 'parts') {
      if (!Array.isArray(member) || member.length === 0 || !member.every(isPlainTextPart)) return false;
      parts = true;
    } else if (!members.has(key) || typeof member !== 'string' || member === '' || !isWellFormed(member)) return false;
    else if (key === 'role' ? !ROLES.has(member) : ID_MEMBERS.has(key) && !isCleanId(member)) return false;
  }
  return parts;
}

/** `value` decoded as `desc` (a clean copy), or a TypeError for the agent; `path` names a value that is not the root of the write. */
function checked<T>(label: string, value: unknown, as: { desc: DescMessage; path?: string }): T {
  const { desc, path = '' } = as;
  if (isPlainWrite(desc, value)) return value as T;
  try {
    return decodeMessage<T>(desc, value, { limits: UNLIMITED, unknownFields: 'reject', path });
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    const named = error.fieldViolations.slice(0, MAX_NAMED).map((v) => `${v.field} ${v.description}`);
    const more = error.fieldViolations.length - named.length;
    throw new TypeError(`${label}: ${named.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`, { cause: error });
  }
}

/** The parts of a `Content` (a string, a Part or a Part[]), refusing anything else. */
export function partsOf(label: string, content: unknown): Part[] {
  if (typeof content === 'string' || (typeof content === 'object' && content !== null)) return toParts(content as Part);
  throw new TypeError(`${label}: content must be a string, a Part or an array of Parts (got ${content === null ? 'null' : typeof content})`);
}

export function checkedMessage(label: string, message: Message): Message {
  return checked<Message>(label, message, { desc: MessageSchema });
}

/** Metadata the agent sets (the task's, or an event's own, named `field`): a JSON object. */
export function checkedMetadata(label: string, field: string, metadata: unknown): JsonObject {
  return checked<JsonObject>(label, metadata, { desc: StructSchema, path: field });
}

/** A status the agent sets: a known state other than UNSPECIFIED (LIFE-01), and a valid message. */
export function checkedStatus(label: string, status: { state: TaskState; message?: Message; timestamp: string }): TaskStatus {
  const state: unknown = status.state;
  if (state === 'TASK_STATE_UNSPECIFIED' || state === 0) throw new TypeError(`${label}: TASK_STATE_UNSPECIFIED is not a state a task can be in (LIFE-01)`);
  return checked<TaskStatus>(label, status, { desc: TaskStatusSchema });
}

/** LIFE-01: a task is SUBMITTED once, when it is created; it never goes back to it. */
export function checkTransition(label: string, from: TaskState, to: TaskState): void {
  if (to === 'TASK_STATE_SUBMITTED' && from !== 'TASK_STATE_SUBMITTED') {
    throw new TypeError(`${label}: a task cannot go back to TASK_STATE_SUBMITTED (it is ${from})`);
  }
}

/** Thrown at nothing: handed to onError when an agent's write was ignored because the task had ended. */
export class DroppedWriteError extends Error {
  override get name(): string {
    return 'DroppedWriteError';
  }
}

/** Per run: artifacts closed by their last chunk, and whether a dropped write was reported. */
export class AgentWrites {
  private closed: Set<string> | undefined;
  private reportedDrop = false;

  constructor(private readonly report: (error: Error) => void) {}

  /** An artifact the agent adds: valid as an Artifact, and not appended to after its last chunk (STREAM-10). */
  artifact(artifact: Artifact, chunk: { append?: boolean | undefined }): Artifact {
    const valid = checked<Artifact>('addArtifact', artifact, { desc: ArtifactSchema });
    if (chunk.append && this.closed?.has(valid.artifactId)) {
      throw new TypeError(`addArtifact: artifact ${valid.artifactId} already had its last chunk (lastChunk: true); nothing can be appended to it`);
    }
    return valid;
  }

  /** The artifact write was stored: a last chunk closes the artifact, a replacement opens it again. */
  written(artifactId: string, chunk: { append?: boolean | undefined; lastChunk?: boolean | undefined }): void {
    if (chunk.lastChunk) (this.closed ??= new Set()).add(artifactId);
    else if (!chunk.append) this.closed?.delete(artifactId);
  }

  /** LIFE-02: a write ignored because the task had ended; reported once per run. */
  dropped(what: string, state: TaskState): void {
    if (this.reportedDrop) return;
    this.reportedDrop = true;
    this.report(new DroppedWriteError(`agent wrote ${what} after the task reached ${state}; ignored (later ignored writes of this run are not reported)`));
  }
}
