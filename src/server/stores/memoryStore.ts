/**
 * In-memory TaskStore: for tests, embedding and benchmarks. Records are immutable values
 * (snapshots are replaced, never mutated), so reads hand out shared objects without copying.
 */
import type { Task } from '../../protocol/types.js';
import {
  DuplicateMessageError,
  VersionConflictError,
  type MessageClaim,
  type MessageRecord,
  statusTime,
  type AppendInput,
  type ListQuery,
  type ListResult,
  type StoredEvent,
  type TaskRecord,
  type TaskStore,
} from './taskStore.js';

interface Entry {
  record: TaskRecord;
  log: StoredEvent[];
}

export interface MemoryStoreOptions {
  /** Most events kept per task; older ones are dropped from replay (snapshots stay whole). */
  maxEventsPerTask?: number;
}

export class MemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  private readonly messages = new Map<string, MessageRecord>();
  private readonly maxEvents: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerTask ?? 10_000;
  }

  async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    return this.entries.get(key(tenant, taskId))?.record;
  }

  async create(tenant: string, task: Task, options: { claim?: MessageClaim } = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const k = key(tenant, task.id);
    if (this.entries.has(k)) throw new VersionConflictError(task.id);
    this.claim(tenant, task.id, options.claim);
    const events: StoredEvent[] = [{ seq: 1, event: { task } }];
    const record: TaskRecord = { tenant, task, version: 1, seq: 1 };
    this.entries.set(k, { record, log: events.slice() });
    return { record, events };
  }

  async append(input: AppendInput): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const entry = this.entries.get(key(input.tenant, input.taskId));
    if (!entry || entry.record.version !== input.expectedVersion) throw new VersionConflictError(input.taskId);
    this.claim(input.tenant, input.taskId, input.claim);
    let seq = entry.record.seq;
    const events = input.events.map((event) => ({ seq: ++seq, event }));
    entry.record = { tenant: input.tenant, task: input.task, version: entry.record.version + 1, seq };
    for (const e of events) entry.log.push(e);
    if (entry.log.length > this.maxEvents) entry.log.splice(0, entry.log.length - this.maxEvents);
    return { record: entry.record, events };
  }

  async findMessage(tenant: string, messageId: string): Promise<MessageRecord | undefined> {
    return this.messages.get(key(tenant, messageId));
  }

  /** Records a message id before anything else is written; a repeat throws and writes nothing. */
  private claim(tenant: string, taskId: string, claim: MessageClaim | undefined): void {
    if (!claim) return;
    const k = key(tenant, claim.messageId);
    const existing = this.messages.get(k);
    if (existing) throw new DuplicateMessageError(existing);
    this.messages.set(k, { messageId: claim.messageId, taskId, fingerprint: claim.fingerprint });
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const log = this.entries.get(key(tenant, taskId))?.log ?? [];
    // The log is gapless and ordered: find the start by offset from the first kept seq.
    const first = log[0]?.seq ?? 1;
    return log.slice(Math.max(0, afterSeq - first + 1));
  }

  async list(query: ListQuery): Promise<ListResult> {
    const matches: TaskRecord[] = [];
    for (const { record } of this.entries.values()) {
      if (record.tenant !== query.tenant) continue;
      const t = record.task;
      if (query.contextId !== undefined && t.contextId !== query.contextId) continue;
      if (query.status !== undefined && t.status.state !== query.status) continue;
      if (query.statusTimestampAfter !== undefined && Date.parse(statusTime(t)) < Date.parse(query.statusTimestampAfter)) continue;
      matches.push(record);
    }
    matches.sort(compareRecords);
    let start = 0;
    if (query.after) {
      const after = query.after;
      start = matches.findIndex((r) => compareKeys(keyOf(r), after) > 0);
      if (start < 0) start = matches.length;
    }
    const page = matches.slice(start, start + query.pageSize);
    return { records: page, totalSize: matches.length, hasMore: start + query.pageSize < matches.length };
  }
}

function key(tenant: string, id: string): string {
  return `${tenant}\u0000${id}`;
}

/** Newest status first, ties broken by id descending (LIST-04, C7). */
function compareKeys(a: { timestamp: string; id: string }, b: { timestamp: string; id: string }): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? 1 : -1;
}

function keyOf(record: TaskRecord): { timestamp: string; id: string } {
  return { timestamp: statusTime(record.task), id: record.task.id };
}

function compareRecords(a: TaskRecord, b: TaskRecord): number {
  return compareKeys(keyOf(a), keyOf(b));
}
