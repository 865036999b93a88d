/**
 * Row to record mapping of the SQL stores, written once for SQLite and PostgreSQL: the task
 * snapshot, its stored events, a recorded message id, and the result of an append. SQLite
 * hands back numbers, PostgreSQL bigints as text; both become numbers here.
 */
import type { StreamResponse } from '../../protocol/types.js';
import type { AppendInput, MessageRecord, StoredEvent, TaskRecord } from '../../server/stores/taskStore.js';
import { currentTask } from './snapshotLag.js';

/** A task row: the snapshot, the events it lags behind (snapshotLag.ts) and its counters. */
export interface RecordRow {
  owner: string | null;
  task_json: string;
  lag_json: string | null;
  version: number | string;
  seq: number | string;
}

/** The record of a task row: always the full current task (the snapshot caught up with its lag). */
export function toRecord(tenant: string, row: RecordRow): TaskRecord {
  return { tenant, owner: row.owner ?? '', task: currentTask(row.task_json, row.lag_json), version: Number(row.version), seq: Number(row.seq) };
}

export function toStoredEvent(row: { seq: number | string; event_json: string }): StoredEvent {
  return { seq: Number(row.seq), event: JSON.parse(row.event_json) as StreamResponse };
}

/** A row of the messages table, found by its owner and message id (IDEM-02: the key with the tenant). */
export function toMessageRecord(key: { owner: string; messageId: string }, row: { task_id: string; fingerprint: string }): MessageRecord {
  return { messageId: key.messageId, taskId: row.task_id, fingerprint: row.fingerprint, owner: key.owner };
}

/** The record and stored events of an append whose last event got `seq`. */
export function appended(input: AppendInput, { seq, owner }: { seq: number; owner: string }): { record: TaskRecord; events: StoredEvent[] } {
  const first = seq - input.events.length;
  return {
    record: { tenant: input.tenant, owner, task: input.task, version: input.expectedVersion + 1, seq },
    events: input.events.map((event, i) => ({ seq: first + i + 1, event })),
  };
}
