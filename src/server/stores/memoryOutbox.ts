/**
 * The push half of the in-memory store (memoryStore.ts): push configs per task, a queue of
 * pending deliveries per config (R11), and dead letters.
 */
import type { StreamResponse } from '../../protocol/types.js';
import { taskKey as key } from '../taskKey.js';
import { PushConfigLimitError, type ClaimOptions, type DeadLetter, type DeliveryKey, type PushConfigPage, type PushDelivery, type PutPushConfigOptions, type StoredPushConfig } from './pushStore.js';
import type { StoredEvent } from './taskStore.js';

interface MemoryDelivery {
  seq: number;
  event: StreamResponse;
  attempts: number;
  /** Epoch milliseconds. */
  nextAttemptAt: number;
  lockedUntil: number | undefined;
  createdAt: string;
  lastError?: string;
}

/** The pending deliveries of one (tenant, task, config), in seq order: the head is `pending[0]`. */
interface DeliveryQueue {
  tenant: string;
  taskId: string;
  configId: string;
  pending: MemoryDelivery[];
}

/**
 * The push half of the memory store: configs per task, and one queue of pending deliveries per
 * config. Deliveries hold the event itself (no log trimming can lose it).
 */
export class MemoryOutbox {
  /** task key → config id → config; a task without configs has no entry (append stays one lookup). */
  readonly configs = new Map<string, Map<string, StoredPushConfig>>();
  private readonly queues = new Map<string, DeliveryQueue>();
  readonly dead: DeadLetter[] = [];

  put(tenant: string, config: StoredPushConfig, options: PutPushConfigOptions = {}): StoredPushConfig {
    const { tenant: _tenant, ...stored } = config;
    const k = key(tenant, config.taskId);
    let forTask = this.configs.get(k);
    const others = (forTask?.size ?? 0) - (forTask?.has(config.id) ? 1 : 0);
    if (options.maxPerTask !== undefined && others >= options.maxPerTask) throw new PushConfigLimitError(options.maxPerTask);
    if (!forTask) this.configs.set(k, (forTask = new Map()));
    forTask.set(config.id, stored);
    return stored;
  }

  list(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): PushConfigPage {
    if (!Number.isInteger(page.pageSize) || page.pageSize < 0) throw new RangeError(`pageSize must be a non-negative integer, got ${page.pageSize}`);
    const after = page.afterId;
    const all = [...(this.configs.get(key(tenant, taskId))?.values() ?? [])]
      .filter((c) => after === undefined || c.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { configs: all.slice(0, page.pageSize), hasMore: all.length > page.pageSize };
  }

  delete(tenant: string, taskId: string, id: string): boolean {
    const k = key(tenant, taskId);
    const forTask = this.configs.get(k);
    if (!forTask?.delete(id)) return false;
    if (forTask.size === 0) this.configs.delete(k);
    this.queues.delete(queueKey({ tenant, taskId, configId: id }));
    return true;
  }

  /** Retention: a purged task's configs and their pending deliveries. */
  forgetTask(tenant: string, taskId: string): void {
    const k = key(tenant, taskId);
    for (const configId of this.configs.get(k)?.keys() ?? []) this.queues.delete(queueKey({ tenant, taskId, configId }));
    this.configs.delete(k);
  }

  /** Retention: drops the dead letters `purged` picks. */
  forgetDeadLetters(purged: (d: DeadLetter) => boolean): void {
    let kept = 0;
    for (const d of this.dead) if (!purged(d)) this.dead[kept++] = d;
    this.dead.length = kept;
  }

  /** R11: one pending delivery per (event, config of the task). */
  enqueue(write: { tenant: string; taskId: string; events: StoredEvent[] }): void {
    const forTask = this.configs.get(key(write.tenant, write.taskId));
    if (!forTask || write.events.length === 0) return;
    const now = Date.now();
    const createdAt = new Date(now).toISOString();
    for (const configId of forTask.keys()) {
      const qk = queueKey({ tenant: write.tenant, taskId: write.taskId, configId });
      let queue = this.queues.get(qk);
      if (!queue) this.queues.set(qk, (queue = { tenant: write.tenant, taskId: write.taskId, configId, pending: [] }));
      for (const e of write.events) queue.pending.push({ seq: e.seq, event: e.event, attempts: 0, nextAttemptAt: now, lockedUntil: undefined, createdAt });
    }
  }

  claim(options: ClaimOptions): PushDelivery[] {
    const now = options.now.getTime();
    const due: Array<{ queue: DeliveryQueue; head: MemoryDelivery }> = [];
    for (const queue of this.queues.values()) {
      const head = queue.pending[0];
      if (head && head.nextAttemptAt <= now && (head.lockedUntil === undefined || head.lockedUntil < now)) due.push({ queue, head });
    }
    due.sort((a, b) => a.head.nextAttemptAt - b.head.nextAttemptAt);
    return due.slice(0, Math.max(0, options.limit)).map(({ queue, head }) => {
      head.lockedUntil = now + options.lockMs;
      const config = this.configs.get(key(queue.tenant, queue.taskId))?.get(queue.configId) as StoredPushConfig;
      const { tenant, taskId, configId } = queue;
      return { tenant, taskId, configId, seq: head.seq, event: head.event, config, attempts: head.attempts, createdAt: head.createdAt };
    });
  }

  find(k: DeliveryKey): MemoryDelivery | undefined {
    return this.queues.get(queueKey(k))?.pending.find((d) => d.seq === k.seq);
  }

  /** Removes a pending delivery and returns it. */
  take(k: DeliveryKey): MemoryDelivery | undefined {
    const qk = queueKey(k);
    const queue = this.queues.get(qk);
    const i = queue ? queue.pending.findIndex((d) => d.seq === k.seq) : -1;
    if (!queue || i < 0) return undefined;
    const [taken] = queue.pending.splice(i, 1);
    if (queue.pending.length === 0) this.queues.delete(qk);
    return taken;
  }

  /** Dead letters of a tenant (optionally one task), newest first. */
  deadLetters(tenant: string, options: { taskId?: string; limit?: number }): DeadLetter[] {
    const matches = this.dead.filter((d) => d.tenant === tenant && (options.taskId === undefined || d.taskId === options.taskId));
    matches.sort(newestFirst);
    return matches.slice(0, options.limit ?? 100);
  }

  nextDue(): Date | undefined {
    let min = Infinity;
    for (const queue of this.queues.values()) {
      const head = queue.pending[0];
      if (head) min = Math.min(min, head.lockedUntil ?? head.nextAttemptAt);
    }
    return min === Infinity ? undefined : new Date(min);
  }
}

/** Dead letters newest first, ties in key order descending (as the SQL stores list them). */
function newestFirst(a: DeadLetter, b: DeadLetter): number {
  for (const [x, y] of [
    [a.createdAt, b.createdAt],
    [a.taskId, b.taskId],
    [a.configId, b.configId],
  ] as const) {
    if (x !== y) return x < y ? 1 : -1;
  }
  return b.seq - a.seq;
}

/**
 * The key of one (tenant, task, config) queue: the task's key, then the config id behind the
 * task key's length, so that no two triples share a key whatever the parts contain (a plain
 * NUL-joined key let `("a\0b", "c")` and `("a", "b\0c")` share one queue).
 */
function queueKey(k: { tenant: string; taskId: string; configId: string }): string {
  const task = key(k.tenant, k.taskId);
  return `${task.length}:${task}${k.configId}`;
}
