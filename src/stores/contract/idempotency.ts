/**
 * R4 at the storage level: a user message id is recorded in the same transaction as the write
 * it caused (the task's creation, or a follow-up joining its history), so after any crash the
 * record exists exactly when the write does. A retry of SendMessage finds the record and is
 * answered from the task instead of running the agent again; the same id with a different body
 * is told apart by the fingerprint. Proposed contract addition: see docs/storage.md.
 */
import type { TaskStore } from '../../server/stores/taskStore.js';

export { DuplicateMessageError } from '../../server/stores/taskStore.js';
export type { MessageClaim, MessageRecord } from '../../server/stores/taskStore.js';

/** Every TaskStore records message ids now; kept for callers written before the contract had it. */
export type IdempotentTaskStore = TaskStore;

export function isIdempotentStore(store: TaskStore): store is IdempotentTaskStore {
  return typeof (store as Partial<TaskStore>).findMessage === 'function';
}

export { messageFingerprint } from '../../server/messageFingerprint.js';
