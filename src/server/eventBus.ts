/**
 * Wakes up readers of a task's event log. In one process it hands over the stored events
 * directly; a cross-instance bus (PostgreSQL LISTEN/NOTIFY) implements the same interface and
 * readers fill any gap from the store, since the log, not the bus, is the truth.
 */
import type { StoredEvent } from './stores/taskStore.js';

export type EventListener = (events: StoredEvent[]) => void;

export interface EventBus {
  subscribe(tenant: string, taskId: string, listener: EventListener): () => void;
  publish(tenant: string, taskId: string, events: StoredEvent[]): void;
}

export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<EventListener>>();

  subscribe(tenant: string, taskId: string, listener: EventListener): () => void {
    const k = `${tenant}\u0000${taskId}`;
    let set = this.listeners.get(k);
    if (!set) {
      set = new Set();
      this.listeners.set(k, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(k);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(k);
    };
  }

  publish(tenant: string, taskId: string, events: StoredEvent[]): void {
    if (events.length === 0) return;
    const set = this.listeners.get(`${tenant}\u0000${taskId}`);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(events);
      } catch {
        // A failing listener must not stop delivery to the others (STREAM-06).
      }
    }
  }

  /** True when someone in this process follows the task. */
  has(tenant: string, taskId: string): boolean {
    return this.listeners.has(`${tenant}\u0000${taskId}`);
  }

  /** Number of live subscriptions, for tests of disconnect hygiene (R8). */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
