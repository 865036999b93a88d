/**
 * Serialized, compare-and-set writes to a task. In one process a per-task lock avoids needless
 * conflicts; across processes the store's version check catches the rest and the update is
 * recomputed from a fresh read. Every stored event is then published on the bus.
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
  update(
    target: { tenant: string; taskId: string; known?: TaskRecord | undefined },
    change: (record: TaskRecord) => TaskChange | undefined,
  ): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const { tenant, taskId } = target;
    return this.withLock(taskKey(tenant, taskId), async () => {
      for (let attempt = 0; ; attempt++) {
        const record = attempt === 0 && target.known ? target.known : await this.store.get(tenant, taskId);
        if (!record) throw new TaskNotFoundError(`Task ${taskId} not found`, { metadata: { taskId } });
        const next = change(record);
        if (!next) return { record, events: [] };
        try {
          const result = await this.store.append({
            tenant,
            taskId,
            expectedVersion: record.version,
            task: next.task,
            events: next.events,
            ...(next.claim ? { claim: next.claim } : {}),
          });
          this.published(tenant, taskId, result.events);
          return result;
        } catch (error) {
          if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
        }
      }
    });
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
