/**
 * R4 at the storage level: a user message id is recorded in the same transaction as the write
 * it caused (the task's creation, or a follow-up joining its history), so after any crash the
 * record exists exactly when the write does. A retry of SendMessage finds the record and is
 * answered from the task instead of running the agent again; the same id with a different body
 * is told apart by the fingerprint. Proposed contract addition: see docs/storage.md.
 */
import type { AppendInput, StoredEvent, TaskRecord, TaskStore } from '../../server/stores/taskStore.js';
import type { Task } from '../../protocol/types.js';

export interface MessageClaim {
  messageId: string;
  /** Digest of what makes the request the same request (see messageFingerprint). */
  fingerprint: string;
}

export interface MessageRecord {
  messageId: string;
  taskId: string;
  fingerprint: string;
}

/** The message id is already recorded (possibly by a concurrent duplicate); nothing was written. */
export class DuplicateMessageError extends Error {
  constructor(readonly existing: MessageRecord) {
    super(`message ${existing.messageId} was already received (task ${existing.taskId})`);
  }
}

export interface IdempotentTaskStore extends TaskStore {
  create(tenant: string, task: Task, options?: { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }>;
  append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }>;
  findMessage(tenant: string, messageId: string): Promise<MessageRecord | undefined>;
}

export function isIdempotentStore(store: TaskStore): store is IdempotentTaskStore {
  return typeof (store as Partial<IdempotentTaskStore>).findMessage === 'function';
}

/**
 * A stable digest of a message for duplicate detection: key order does not matter, every
 * value does. FNV-1a 64 over canonical JSON — collisions only need to be unlikely between two
 * bodies sent with the same messageId, not adversarially hard.
 */
export function messageFingerprint(value: unknown): string {
  const text = canonicalJson(value);
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return `fnv1a64:${h.toString(16).padStart(16, '0')}:${text.length}`;
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
