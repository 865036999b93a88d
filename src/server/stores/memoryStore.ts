/**
 * In-memory TaskStore: for tests, embedding and benchmarks. Records are immutable values
 * (snapshots are replaced, never mutated), so reads hand out shared objects without copying.
 */
import type { StreamResponse, Task } from '../../protocol/types.js';
import { isTerminalState } from '../../protocol/taskStates.js';
import { millisRoundedUp } from '../../protocol/timestamp.js';
import { taskKey as key } from '../taskKey.js';
import { MemoryOutbox } from './memoryOutbox.js';
import { purgeMemory, type ContextOwner } from './memoryRetention.js';
import { leaseFenceError, type AcquireLease, type Lease, type LeaseKey, type LeaseStore } from './leaseStore.js';
import type {
  ClaimOptions,
  DeadLetter,
  DeliveryKey,
  PushConfigPage,
  PushDelivery,
  PushStore,
  PutPushConfigOptions,
  StoredPushConfig,
} from './pushStore.js';
import {
  DuplicateMessageError,
  type CreateOptions,
  VersionConflictError,
  type MessageClaim,
  type MessageRecord,
  statusTime,
  type AppendInput,
  type ListQuery,
  type ListResult,
  type PurgeOptions,
  type StoredEvent,
  type TaskRecord,
  type TaskStore,
} from './taskStore.js';
import { listPage } from './listPage.js';

interface Entry {
  record: TaskRecord;
  /**
   * The kept events, oldest first; the first has seq `firstSeq` and the others follow without
   * gaps, so their seqs are implied (no {seq, event} wrapper is kept per event).
   */
  log: StreamResponse[];
  firstSeq: number;
}

export interface MemoryStoreOptions {
  /** Most events kept per task; older ones are dropped from replay (snapshots stay whole). */
  maxEventsPerTask?: number;
}

/** A lease as held in memory: expiry in epoch milliseconds. */
interface MemoryLease {
  tenant: string;
  taskId: string;
  owner: string;
  expiresAt: number;
}

export class MemoryTaskStore implements TaskStore, PushStore, LeaseStore {
  private readonly entries = new Map<string, Entry>();
  private readonly messages = new Map<string, ClaimedMessage>();
  /** TENANT-06: context key → its owner, as claimed (claimContext) or kept by retention; nothing on the write path sets it. */
  private readonly contexts = new Map<string, ContextOwner>();
  private readonly push = new MemoryOutbox();
  /** Task key → lease; empty unless the server runs with leases (nothing on the write path reads it). */
  private readonly leases = new Map<string, MemoryLease>();
  private readonly maxEvents: number;
  /** Appends apply synchronously, so they settle in call order (no write lock needed, see TaskStore). */
  readonly ordersWrites = true;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerTask ?? 10_000;
  }

  async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    return this.entries.get(key(tenant, taskId))?.record;
  }

  async create(tenant: string, task: Task, options: CreateOptions = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const k = key(tenant, task.id);
    if (this.entries.has(k)) throw new VersionConflictError(task.id);
    const owner = options.owner ?? '';
    this.claim({ tenant, taskId: task.id, owner }, options.claim);
    const first: StreamResponse = { task };
    const then = options.then;
    // The creation and its first change (if any) in one write: the snapshot is seq 1.
    const log = then ? ([first] as StreamResponse[]).concat(then.events) : [first];
    const events: StoredEvent[] = new Array(log.length);
    for (let i = 0; i < log.length; i++) events[i] = { seq: i + 1, event: log[i] as StreamResponse };
    const record: TaskRecord = { tenant, owner, task: then ? then.task : task, version: 1, seq: log.length };
    this.entries.set(k, { record, log, firstSeq: 1 });
    if (options.pushConfig) this.push.put(tenant, options.pushConfig);
    this.push.enqueue({ tenant, taskId: task.id, events });
    return { record, events };
  }

  async append(input: AppendInput): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const k = key(input.tenant, input.taskId);
    const entry = this.entries.get(k);
    if (!entry || entry.record.version !== input.expectedVersion) throw new VersionConflictError(input.taskId);
    if (input.leaseOwner !== undefined) this.fence(k, input.taskId, input.leaseOwner);
    const owner = entry.record.owner;
    this.claim({ tenant: input.tenant, taskId: input.taskId, owner }, input.claim);
    let seq = entry.record.seq;
    const events = input.events.map((event) => ({ seq: ++seq, event }));
    entry.record = { tenant: input.tenant, owner, task: input.task, version: entry.record.version + 1, seq };
    for (const e of events) entry.log.push(e.event);
    if (entry.log.length > this.maxEvents) {
      const drop = entry.log.length - this.maxEvents;
      entry.log.splice(0, drop);
      entry.firstSeq += drop;
    }
    // A finished task's log grows no more: keep it at its length, not the capacity pushes reserved.
    if (isTerminalState(input.task.status.state)) entry.log = entry.log.slice();
    this.push.enqueue({ tenant: input.tenant, taskId: input.taskId, events });
    return { record: entry.record, events };
  }

  /** R3: refuses the write of a run whose lease `owner` no longer holds (see AppendInput.leaseOwner). */
  private fence(k: string, taskId: string, owner: string): void {
    const lease = this.leases.get(k);
    if (lease?.owner !== owner || lease.expiresAt < Date.now()) throw leaseFenceError(taskId);
  }

  async putPushConfig(tenant: string, config: StoredPushConfig, options?: PutPushConfigOptions): Promise<StoredPushConfig> {
    return this.push.put(tenant, config, options);
  }

  async getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    return this.push.configs.get(key(tenant, taskId))?.get(id);
  }

  async listPushConfigs(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): Promise<PushConfigPage> {
    return this.push.list(tenant, taskId, page);
  }

  async deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean> {
    return this.push.delete(tenant, taskId, id);
  }

  async claimDeliveries(options: ClaimOptions): Promise<PushDelivery[]> {
    return this.push.claim(options);
  }

  async completeDelivery(k: DeliveryKey): Promise<void> {
    this.push.take(k);
  }

  async retryDelivery(k: DeliveryKey, retry: { nextAttemptAt: Date; error: string }): Promise<void> {
    const d = this.push.find(k);
    if (!d) return;
    d.attempts++;
    d.nextAttemptAt = retry.nextAttemptAt.getTime();
    d.lockedUntil = undefined;
    d.lastError = retry.error;
  }

  async deferDelivery(k: DeliveryKey, next: { nextAttemptAt: Date }): Promise<void> {
    const d = this.push.find(k);
    if (!d) return;
    d.nextAttemptAt = next.nextAttemptAt.getTime();
    d.lockedUntil = undefined;
  }

  async deadLetterDelivery(k: DeliveryKey, failure: { error: string }): Promise<void> {
    const d = this.push.take(k);
    if (d) this.push.dead.push({ tenant: k.tenant, taskId: k.taskId, configId: k.configId, seq: k.seq, attempts: d.attempts + 1, error: failure.error, createdAt: d.createdAt });
  }

  async nextDeliveryDue(): Promise<Date | undefined> {
    return this.push.nextDue();
  }

  async listDeadLetters(tenant: string, options: { taskId?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.push.deadLetters(tenant, options);
  }

  async acquireLease(input: AcquireLease): Promise<boolean> {
    const k = key(input.tenant, input.taskId);
    const now = Date.now();
    const held = this.leases.get(k);
    if (held && held.owner !== input.owner && held.expiresAt >= now) return false;
    this.leases.set(k, { tenant: input.tenant, taskId: input.taskId, owner: input.owner, expiresAt: now + leaseTtl(input.ttlMs) });
    return true;
  }

  async renewLeases(owner: string, ttlMs: number): Promise<LeaseKey[]> {
    const now = Date.now();
    const expiresAt = now + leaseTtl(ttlMs);
    const renewed: LeaseKey[] = [];
    for (const lease of this.leases.values()) {
      if (lease.owner !== owner || lease.expiresAt < now) continue;
      lease.expiresAt = expiresAt;
      renewed.push({ tenant: lease.tenant, taskId: lease.taskId });
    }
    return renewed;
  }

  async releaseLease(tenant: string, taskId: string, owner: string): Promise<void> {
    const k = key(tenant, taskId);
    if (this.leases.get(k)?.owner === owner) this.leases.delete(k);
  }

  async expiredLeases(limit: number): Promise<Lease[]> {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    const now = Date.now();
    const candidates: MemoryLease[] = [];
    for (const [k, lease] of this.leases) {
      if (lease.expiresAt >= now) continue;
      const state = this.entries.get(k)?.record.task.status.state;
      if (state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING') candidates.push(lease);
      else this.leases.delete(k);
    }
    candidates.sort((a, b) => a.expiresAt - b.expiresAt || compareText(a.tenant, b.tenant) || compareText(a.taskId, b.taskId));
    return candidates.slice(0, limit).map((l) => ({ tenant: l.tenant, taskId: l.taskId, owner: l.owner, expiresAt: new Date(l.expiresAt).toISOString() }));
  }

  async takeOverLease(input: AcquireLease & { previousOwner: string }): Promise<boolean> {
    const lease = this.leases.get(key(input.tenant, input.taskId));
    const now = Date.now();
    if (!lease || lease.owner !== input.previousOwner || lease.expiresAt >= now) return false;
    lease.owner = input.owner;
    lease.expiresAt = now + leaseTtl(input.ttlMs);
    return true;
  }

  async findMessage(tenant: string, owner: string, messageId: string): Promise<MessageRecord | undefined> {
    return this.messages.get(messageKey(tenant, owner, messageId))?.toRecord();
  }

  /** Records a message id for the task's owner before anything else is written; a repeat of that owner's throws and writes nothing. */
  private claim(target: { tenant: string; taskId: string; owner: string }, claim: MessageClaim | undefined): void {
    if (!claim) return;
    const k = messageKey(target.tenant, target.owner, claim.messageId);
    const existing = this.messages.get(k);
    if (existing) throw new DuplicateMessageError(existing.toRecord());
    this.messages.set(k, new ClaimedMessage(target.taskId, target.owner, claim));
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const entry = this.entries.get(key(tenant, taskId));
    if (!entry) return [];
    // The log is gapless and ordered: find the start by offset from the first kept seq.
    const out: StoredEvent[] = [];
    for (let i = Math.max(0, afterSeq - entry.firstSeq + 1); i < entry.log.length; i++) out.push({ seq: entry.firstSeq + i, event: entry.log[i] as StreamResponse });
    return out;
  }

  async claimContext(tenant: string, contextId: string, owner: string): Promise<string> {
    const k = key(tenant, contextId);
    const held = this.contexts.get(k);
    if (held !== undefined) return held.owner;
    // Entries are kept in creation order: the first task of the context found is its oldest.
    let holder = owner;
    for (const { record } of this.entries.values()) {
      if (record.tenant === tenant && record.task.contextId === contextId) {
        holder = record.owner;
        break;
      }
    }
    this.contexts.set(k, { owner: holder, at: Date.now() });
    return holder;
  }

  /**
   * Retention, as on the SQL stores: deletes terminal tasks whose status timestamp is before
   * `before`, with everything kept for them; contexts outlive their tasks by a retention period
   * (memoryRetention.ts). Returns the number of tasks deleted.
   */
  async purgeTerminal(options: PurgeOptions): Promise<number> {
    const { entries, messages, contexts, push, leases } = this;
    return purgeMemory({ entries, messages, contexts, push, leases }, options);
  }

  /** Readiness: the memory store always answers. */
  async ping(): Promise<void> {}

  async list(query: ListQuery): Promise<ListResult> {
    const matches: TaskRecord[] = [];
    const since = query.statusTimestampAfter === undefined ? undefined : millisRoundedUp(query.statusTimestampAfter);
    for (const { record } of this.entries.values()) {
      if (record.tenant !== query.tenant) continue;
      if (query.owner !== undefined && record.owner !== query.owner) continue;
      const t = record.task;
      if (query.contextId !== undefined && t.contextId !== query.contextId) continue;
      if (query.status !== undefined && t.status.state !== query.status) continue;
      if (since !== undefined && Date.parse(statusTime(t)) < since) continue;
      matches.push(record);
    }
    matches.sort(compareRecords);
    let start = 0;
    if (query.after) {
      const after = query.after;
      start = matches.findIndex((r) => compareKeys(keyOf(r), after) > 0);
      if (start < 0) start = matches.length;
    }
    const { records, hasMore } = listPage(matches.slice(start, start + query.pageSize + 1), query, (r) => r);
    return { records, totalSize: matches.length, hasMore };
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function leaseTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`ttlMs must be a non-negative number, got ${ttlMs}`);
  return ttlMs;
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

/**
 * IDEM-02: the key of a message id, per tenant and owner: the (owner, id) key inside the tenant's,
 * so retention still reads the tenant with splitTaskKey. Anonymous ids of the default tenant stay
 * the plain id (taskKey makes no new string for them).
 */
function messageKey(tenant: string, owner: string, messageId: string): string {
  return key(tenant, key(owner, messageId));
}

/** A recorded message id; its fingerprint is computed only when the id is looked up again (R4). */
class ClaimedMessage {
  constructor(
    readonly taskId: string,
    private readonly owner: string,
    private readonly claim: MessageClaim,
  ) {}

  toRecord(): MessageRecord {
    return { messageId: this.claim.messageId, taskId: this.taskId, fingerprint: this.claim.fingerprint, owner: this.owner };
  }
}
