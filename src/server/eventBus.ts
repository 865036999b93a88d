/**
 * Wakes up readers of a task's event log. In one process it hands over the stored events
 * directly; a cross-instance bus (PostgreSQL LISTEN/NOTIFY) implements the same interface and
 * readers fill any gap from the store, since the log, not the bus, is the truth.
 */
import type { StoredEvent } from './stores/taskStore.js';
import { splitTaskKey, taskKey } from './taskKey.js';

export type EventListener = (events: StoredEvent[]) => void;

export interface EventBus {
  subscribe(tenant: string, taskId: string, listener: EventListener): () => void;
  publish(tenant: string, taskId: string, events: StoredEvent[]): void;
}

/** The subscribers of one task, and the last seq handed to them. */
interface Followers {
  listeners: Set<EventListener>;
  lastSeq: number;
}

export class LocalEventBus implements EventBus {
  private readonly tasks = new Map<string, Followers>();

  subscribe(tenant: string, taskId: string, listener: EventListener): () => void {
    const k = taskKey(tenant, taskId);
    let entry = this.tasks.get(k);
    if (!entry) {
      entry = { listeners: new Set(), lastSeq: 0 };
      this.tasks.set(k, entry);
    }
    entry.listeners.add(listener);
    return () => {
      const current = this.tasks.get(k);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) this.tasks.delete(k);
    };
  }

  publish(tenant: string, taskId: string, events: StoredEvent[]): void {
    const last = events[events.length - 1];
    if (!last) return;
    const entry = this.tasks.get(taskKey(tenant, taskId));
    if (!entry) return;
    if (last.seq > entry.lastSeq) entry.lastSeq = last.seq;
    for (const listener of [...entry.listeners]) {
      try {
        listener(events);
      } catch {
        // A failing listener must not stop delivery to the others (STREAM-06).
      }
    }
  }

  /** True when someone in this process follows the task. */
  has(tenant: string, taskId: string): boolean {
    return this.tasks.has(taskKey(tenant, taskId));
  }

  /** The tasks someone in this process follows, with the last seq published to them here (0: none yet). */
  *followed(): IterableIterator<{ tenant: string; taskId: string; lastSeq: number }> {
    for (const [k, entry] of this.tasks) {
      const { tenant, id } = splitTaskKey(k);
      yield { tenant, taskId: id, lastSeq: entry.lastSeq };
    }
  }

  /** Number of live subscriptions, for tests of disconnect hygiene (R8). */
  get size(): number {
    let n = 0;
    for (const entry of this.tasks.values()) n += entry.listeners.size;
    return n;
  }
}
