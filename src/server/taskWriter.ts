/**
 * Serialized, compare-and-set writes to a task. In one process a per-task lock avoids needless
 * conflicts; across processes the store's version check catches the rest and the update is
 * recomputed from a fresh read. On a store that applies writes in call order (`ordersWrites`:
 * the memory store) an uncontended write skips the lock, and only a write that lost the version
 * check queues behind it. Every stored event is then published on the bus.
 */
import type { StreamResponse, Task } from '../protocol/types.js';
import type { EventBus } from './eventBus.js';
import { VersionConflictError, type CreateOptions, type MessageClaim, type StoredEvent, type TaskRecord, type TaskStore } from './stores/taskStore.js';
import { TaskNotFoundError } from '../protocol/errors.js';
import { taskKey } from './taskKey.js';

export interface TaskChange {
  task: Task;
  events: StreamResponse[];
  /** R4: the user message this change records (DuplicateMessageError if it was recorded before). */
  claim?: MessageClaim;
}

const MAX_ATTEMPTS = 20;

/** The task a write goes to; `known` is the record as the caller last wrote or read it. */
interface Target {
  tenant: string;
  taskId: string;
  known?: TaskRecord | undefined;
  /** R3: the write of a run under this lease owner; the store refuses it once the lease is gone (AppendInput.leaseOwner). */
  leaseOwner?: string | undefined;
}
type Change = (record: TaskRecord) => TaskChange | undefined;
type Written = { record: TaskRecord; events: StoredEvent[] };

export class TaskWriter {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly store: TaskStore,
    readonly bus: EventBus,
    /** Told after every successful write (the push worker's wake-up). */
    private readonly onWritten?: (tenant: string, taskId: string, events: StoredEvent[]) => void,
  ) {}

  async create(tenant: string, task: Task, options: CreateOptions = {}): Promise<TaskRecord> {
    const { record, events } = await this.store.create(tenant, task, options);
    this.published(tenant, task.id, events);
    return record;
  }

  private published(tenant: string, taskId: string, events: StoredEvent[]): void {
    this.bus.publish(tenant, taskId, events);
    this.onWritten?.(tenant, taskId, events);
  }

  /**
   * Computes a change from the current record and writes it. `change` returning undefined means
   * "nothing to write" (for example the task is already terminal); the current record is returned.
   * `known` is the record as the caller last wrote or read it: the first attempt computes the
   * change from it instead of reading the store (a stale one fails the version check, and the
   * change is recomputed from a fresh read).
   */
  async update(target: Target, change: Change): Promise<Written> {
    const key = taskKey(target.tenant, target.taskId);
    if (this.store.ordersWrites === true && !this.locks.has(key)) {
      // Writes apply in call order: try once without the lock (the usual, uncontended case).
      // Losing the version check means another writer is at it: queue behind the lock, from a
      // fresh read, so many concurrent writers take turns instead of exhausting their retries.
      try {
        return await this.attempt(target, change, target.known);
      } catch (error) {
        if (!(error instanceof VersionConflictError)) throw error;
      }
      return this.withLock(key, () => this.retrying({ ...target, known: undefined }, change));
    }
    return this.withLock(key, () => this.retrying(target, change));
  }

  /** The compare-and-set loop: the first attempt from `known` (if any), the others from fresh reads. */
  private async retrying(target: Target, change: Change): Promise<Written> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(target, change, attempt === 0 ? target.known : undefined);
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** One compare-and-set write of `change` computed from `known` (or a fresh read). */
  private async attempt(target: Target, change: Change, known: TaskRecord | undefined): Promise<Written> {
    const { tenant, taskId } = target;
    const record = known ?? (await this.store.get(tenant, taskId));
    if (!record) throw new TaskNotFoundError(`Task ${taskId} not found`, { metadata: { taskId } });
    const next = change(record);
    if (!next) return { record, events: [] };
    const result = await this.store.append({
      tenant,
      taskId,
      expectedVersion: record.version,
      task: next.task,
      events: next.events,
      ...(next.claim ? { claim: next.claim } : {}),
      ...(target.leaseOwner !== undefined ? { leaseOwner: target.leaseOwner } : {}),
    });
    this.published(tenant, taskId, result.events);
    return result;
  }

  private withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key);
    // Waiters chain on `run` with (fn, fn), so a rejected run never blocks the next one.
    const run = previous ? previous.then(fn, fn) : fn();
    this.locks.set(key, run);
    const release = () => {
      if (this.locks.get(key) === run) this.locks.delete(key);
    };
    run.then(release, release);
    return run;
  }
}
