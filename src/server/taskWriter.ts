/**
 * Serialized, compare-and-set writes to a task. In one process a per-task lock avoids needless
 * conflicts; across processes the store's version check catches the rest and the update is
 * recomputed from a fresh read. On a store that applies writes in call order (`ordersWrites`:
 * the memory store) an uncontended write skips the lock, and only a write that lost the version
 * check queues behind it. Every stored event is then published on the bus.
 *
 * A write given a deadline (`until`, a run's writes) outlives a short store outage: a try the
 * store could not take (StoreUnavailableError) is made again until then (storePatience.ts). Such
 * a try may have been applied all the same (the connection dropped after COMMIT), so before the
 * next one the writer reads the task and, when it holds exactly what that try wrote (its
 * snapshot, one version on), takes that as the outcome instead of writing it twice.
 */
import type { StreamResponse, Task } from '../protocol/types.js';
import type { EventBus } from './eventBus.js';
import { VersionConflictError, appendFirstChange, type AppendInput, type CreateOptions, type MessageClaim, type StoredEvent, type TaskRecord, type TaskStore } from './stores/taskStore.js';
import { TaskNotFoundError } from '../protocol/errors.js';
import { taskKey } from './taskKey.js';
import { Patience, patiently, type WriteDeadline } from './storePatience.js';
import { appended } from '../stores/contract/taskRows.js';

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
  /** R2: retry while the store cannot be reached, until then (absent: fail at once). */
  until?: WriteDeadline | undefined;
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

  /** Creates the task (see TaskStore.create); `until`: retry while the store cannot be reached, until then. */
  async create(tenant: string, task: Task, options: CreateOptions & { until?: WriteDeadline | undefined } = {}): Promise<TaskRecord> {
    const { until, ...create } = options;
    return patiently(until, async (retry) => {
      // After a try of unknown outcome, the task as stored tells whether it was written.
      const written = (retry && (await this.createdBefore(tenant, task, create))) || (await this.store.create(tenant, task, create));
      this.published(tenant, task.id, written.events);
      return written.record;
    });
  }

  /**
   * After a creation whose outcome is unknown: what it wrote, if the task exists (its id is
   * this run's own). A store that writes `then` as an append of its own may have written the
   * creation only: the first change is written now. (Versions are not compared: a store may
   * count a creation with its first change as one write or two.)
   */
  private async createdBefore(tenant: string, task: Task, options: CreateOptions): Promise<Written | undefined> {
    const record = await this.store.get(tenant, task.id);
    if (!record) return undefined;
    const created: StoredEvent[] = [{ seq: 1, event: { task } }];
    const { then } = options;
    if (then && sameTask(record.task, then.task)) return { record, events: created.concat(then.events.map((event, i) => ({ seq: 2 + i, event }))) };
    if (!sameTask(record.task, task)) return { record, events: [] }; // written, and changed since
    return then ? appendFirstChange(this.store, { record, events: created }, then) : { record, events: created };
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
        return await this.attempt(target, change, { known: target.known });
      } catch (error) {
        if (!(error instanceof VersionConflictError)) throw error;
      }
      return this.withLock(key, () => this.retrying({ ...target, known: undefined }, change));
    }
    return this.withLock(key, () => this.retrying(target, change));
  }

  /**
   * The compare-and-set loop: the first attempt from `known` (if any), the others from fresh
   * reads; a version conflict is retried at once, a store out of reach until `until`.
   */
  private async retrying(target: Target, change: Change): Promise<Written> {
    const patience = new Patience(target.until);
    /** The last append sent: after a failure it may still have been applied. */
    const sent: { input?: AppendInput } = {};
    for (let attempt = 0, conflicts = 0; ; attempt++) {
      try {
        return await this.attempt(target, change, { known: attempt === 0 ? target.known : undefined, sent });
      } catch (error) {
        if (error instanceof VersionConflictError) {
          if (++conflicts > MAX_ATTEMPTS) throw error;
        } else if (!(await patience.another(error))) throw error;
      }
    }
  }

  /**
   * One compare-and-set write of `change` computed from `known` (or a fresh read). A fresh read
   * that shows the append `sent` last (whose answer was lost) applied returns that as the outcome.
   */
  private async attempt(target: Target, change: Change, tried: { known: TaskRecord | undefined; sent?: { input?: AppendInput } }): Promise<Written> {
    const { tenant, taskId } = target;
    const record = tried.known ?? (await this.store.get(tenant, taskId));
    if (!record) throw new TaskNotFoundError(`Task ${taskId} not found`, { metadata: { taskId } });
    const sent = tried.sent?.input;
    if (sent && isApplied(record, sent)) {
      const result = appended(sent, record);
      this.published(tenant, taskId, result.events);
      return result;
    }
    const next = change(record);
    if (!next) return { record, events: [] };
    const input: AppendInput = {
      tenant,
      taskId,
      expectedVersion: record.version,
      task: next.task,
      events: next.events,
      ...(next.claim ? { claim: next.claim } : {}),
      ...(target.leaseOwner !== undefined ? { leaseOwner: target.leaseOwner } : {}),
    };
    if (tried.sent) tried.sent.input = input;
    const result = await this.store.append(input);
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

/**
 * Whether `record` is the task as `input` left it: one version on, with its snapshot. The
 * snapshot holds the new status's timestamp and message ids, so another writer's change is
 * never mistaken for it.
 */
function isApplied(record: TaskRecord, input: AppendInput): boolean {
  return record.version === input.expectedVersion + 1 && sameTask(record.task, input.task);
}

function sameTask(a: Task, b: Task): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
