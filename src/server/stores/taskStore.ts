/**
 * The store contract (architecture decision 5). A task is a snapshot plus an append-only event
 * log with a gapless per-task sequence number. Every write is a compare-and-set on `version`,
 * so two writers can never silently overwrite each other; the memory, SQLite and PostgreSQL
 * stores all implement this one interface and pass one contract suite.
 */
import type { StreamResponse, Task, TaskState } from '../../protocol/types.js';
import type { StoredPushConfig } from './pushStore.js';

export interface TaskRecord {
  tenant: string;
  /**
   * The principal that created the task ('' = anonymous), set at create and never changed:
   * operations of any other principal treat the task as not found (issue 8, spec 13.1).
   */
  owner: string;
  task: Task;
  /** Incremented by every successful write. */
  version: number;
  /** Sequence number of the last event in the log (0 before the first). */
  seq: number;
}

export interface StoredEvent {
  seq: number;
  event: StreamResponse;
}

export interface AppendInput {
  tenant: string;
  taskId: string;
  /** The version read before computing `task`; the write fails if it changed. */
  expectedVersion: number;
  /**
   * The new snapshot: the task as `expectedVersion` left it with `events` applied (applyEvent),
   * plus any snapshot-only change. For an append made only of artifact chunks (`artifactUpdate`
   * with `append`) the SQL stores keep the events and derive the snapshot from them when read
   * (src/stores/contract/snapshotLag.ts), so there it must be exactly that (the server's is).
   */
  task: Task;
  /** Events to add to the log (may be empty: a snapshot-only change such as a history append). */
  events: StreamResponse[];
  /** R4: records the user message that caused this write, in the same transaction. */
  claim?: MessageClaim;
  /**
   * R3 fence: the write of a run under an execution lease. It takes effect only while this owner
   * holds the task's lease, unexpired by the store's clock, checked in the same transaction as the
   * version; otherwise nothing is written and `LeaseLostError` is thrown (another instance may
   * be running the task). Stores that implement LeaseStore check it; others ignore it.
   */
  leaseOwner?: string;
}

/**
 * R4: a user message id recorded with the write it caused (creation or follow-up). It is claimed
 * for the owner of that task (IDEM-02: deduplicated per tenant, caller and messageId), so the same
 * id from another caller is a different message, never a duplicate of this one (ERR-04).
 */
export interface MessageClaim {
  messageId: string;
  /** Digest of the message, to tell a retry (same) from a reused id (different). */
  fingerprint: string;
}

export interface CreateOptions {
  /** The creating principal, stored with the task for good (default '' = anonymous). */
  owner?: string;
  claim?: MessageClaim;
  pushConfig?: StoredPushConfig;
  /**
   * The task's first change, written with its creation: the record holds `then.task`, and the
   * log the `{task}` snapshot (seq 1) followed by `then.events` (seq 2, 3, ...). An agent's first
   * update then costs one write, not two. A store may write it as a separate append.
   */
  then?: FirstChange;
}

/** What `CreateOptions.then` writes: the task after the change, and the change's events. */
export interface FirstChange {
  task: Task;
  events: StreamResponse[];
}

/**
 * `CreateOptions.then` for a store that writes it as its own append after the creation: the
 * events of both writes, and the record of the last.
 */
export async function appendFirstChange(
  store: Pick<TaskStore, 'append'>,
  created: { record: TaskRecord; events: StoredEvent[] },
  then: FirstChange | undefined,
): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
  if (!then) return created;
  const { record } = created;
  const appended = await store.append({ tenant: record.tenant, taskId: record.task.id, expectedVersion: record.version, task: then.task, events: then.events });
  return { record: appended.record, events: created.events.concat(appended.events) };
}

export interface MessageRecord {
  messageId: string;
  taskId: string;
  fingerprint: string;
  /** The owner the id was claimed for: the owner of the task the message was recorded with. */
  owner: string;
}

export interface ListQuery {
  tenant: string;
  /**
   * Only tasks of this owner (exact match; '' matches anonymous tasks). Absent: every owner — the
   * SQL stores then sort the tenant's tasks per page (their list indexes lead with the owner).
   */
  owner?: string;
  contextId?: string;
  status?: TaskState;
  /** Inclusive lower bound on status.timestamp (LIST-07). */
  statusTimestampAfter?: string;
  pageSize: number;
  /** Keyset cursor: strictly after this (timestamp, id) in (timestamp desc, id desc) order. */
  after?: { timestamp: string; id: string };
  /**
   * Whether the page has room for this record, asked of each record in order (listTasks' cap on
   * an answer's size; it keeps count): the page ends before the first one refused, with hasMore
   * true, and the rows after it are not read (./listPage.ts). A store that does not ask returns
   * up to pageSize records and listTasks ends the page itself: the same page, read in full.
   */
  fits?: (record: TaskRecord) => boolean;
}

export interface ListResult {
  records: TaskRecord[];
  totalSize: number;
  hasMore: boolean;
}

/**
 * The claimed message id is already recorded for this task's owner in this tenant (by a retry, or
 * a concurrent duplicate); nothing was written. `existing` is that owner's record.
 */
export class DuplicateMessageError extends Error {
  constructor(readonly existing: MessageRecord) {
    super(`message ${existing.messageId} was already received (task ${existing.taskId})`);
  }
}

/** Raised when a compare-and-set write lost the race; the caller re-reads and retries. */
export class VersionConflictError extends Error {
  constructor(readonly taskId: string) {
    super(`version conflict on task ${taskId}`);
  }
}

export interface TaskStore {
  /**
   * True when appends take effect, and their promises settle, in the order they are called (no
   * I/O in between: the memory store). The TaskWriter then skips its per-task lock: the version
   * check alone keeps writes consistent, and events are published in seq order anyway.
   */
  readonly ordersWrites?: boolean;
  /**
   * True for a store made to be shared by several server instances (PostgreSQL). A request
   * handler on it with the default in-process event bus warns once through onError: streams
   * would not see other instances' writes (sharedStoreCheck.ts).
   */
  readonly sharedAcrossInstances?: boolean;
  get(tenant: string, taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Creates the task; its first event (seq 1) is the `{task}` snapshot. With `claim`, the message
   * id is recorded for `owner` in the same transaction (DuplicateMessageError, and nothing
   * written, if that owner already used it in this tenant; another owner's use does not count).
   * With `pushConfig` (PushStore only), the config is registered in the same transaction and the
   * first event is enqueued for it. With `then`, the first change follows (see CreateOptions).
   */
  create(tenant: string, task: Task, options?: CreateOptions): Promise<{ record: TaskRecord; events: StoredEvent[] }>;
  /**
   * Compare-and-set append; throws VersionConflictError when `expectedVersion` is stale,
   * DuplicateMessageError when `claim` names a message id the task's owner already used in this
   * tenant (the claim is the task owner's, as at create), and LeaseLostError when
   * `leaseOwner` no longer holds the task's lease.
   */
  append(input: AppendInput): Promise<{ record: TaskRecord; events: StoredEvent[] }>;
  /**
   * R4 / IDEM-02: the task `owner`'s message id was recorded with in this tenant. Message ids are
   * per tenant and per owner: another owner's record with the same id is never returned.
   */
  findMessage(tenant: string, owner: string, messageId: string): Promise<MessageRecord | undefined>;
  /** Events with seq > afterSeq, in order. */
  events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]>;
  list(query: ListQuery): Promise<ListResult>;
  /**
   * TENANT-06: whose the context is, claimed for `owner` if nobody holds it: the recorded owner;
   * else the owner of its oldest task, now recorded; else (a context id unknown to everyone)
   * `owner`, now recorded. Atomic: callers racing to claim one new context all get the one
   * owner that was recorded. Retention (purgeTerminal of the stores) records the context of
   * each task it deletes, and forgets a context only once it has no task left and was last
   * recorded before the cutoff (docs/storage.md).
   */
  claimContext(tenant: string, contextId: string, owner: string): Promise<string>;
  /**
   * Readiness (docs/deploy.md, health probes): resolves once the store has answered a trivial
   * query (`SELECT 1`), throws when it cannot — StoreUnavailableError when it is out of reach.
   * Stops and frees what it holds (a pool connection) when `signal` aborts: the caller bounds it
   * with a short timeout. Optional: a store without it counts as ready.
   */
  ping?(signal?: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}

/** Retention (`purgeTerminal` of the memory, SQLite and PostgreSQL stores; docs/storage.md). */
export interface PurgeOptions {
  /** Terminal tasks whose status timestamp is before this instant are deleted with their events. */
  before: string | Date;
  /** Most tasks deleted per transaction (memory store: per turn of the event loop); default 500. */
  batchSize?: number;
}

/** The status timestamp used for ordering; tasks always get one on every transition (C7). */
export function statusTime(task: Task): string {
  return task.status.timestamp ?? '';
}
