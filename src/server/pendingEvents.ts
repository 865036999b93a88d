/**
 * The events a task stream holds for its consumer (./taskStream.ts): bus deliveries, replays and
 * gap fills not delivered yet, in order, with their JSON length (measured without serializing,
 * once per event object however many streams hold it) counted only once events are left waiting
 * after a pump — a consumer that keeps up costs nothing. The stream bounds them (R10): too many
 * events, or too many bytes for too long, and it drops the consumer.
 */
import type { StoredEvent } from './stores/taskStore.js';
import { storedJsonLength } from './jsonLength.js';

export class PendingEvents {
  /** The events, from `head` on. */
  private events: StoredEvent[] = [];
  private head = 0;
  /** The JSON length of the events from `head` up to `counted`. */
  private bytes = 0;
  private counted = 0;

  /** Events waiting. */
  get waiting(): number {
    return this.events.length - this.head;
  }

  /** Whether any event is held, taken or not (the array is released by `clear`). */
  get holding(): boolean {
    return this.events.length > 0;
  }

  add(events: readonly StoredEvent[]): void {
    for (const e of events) this.events.push(e);
  }

  /** Puts `events` before the waiting ones. */
  requeue(events: StoredEvent[]): void {
    this.events = events.concat(this.head === 0 ? this.events : this.events.slice(this.head));
    this.head = 0;
    // Indexes moved: counted again when next needed.
    this.bytes = 0;
    this.counted = 0;
  }

  /** The next event, left waiting. */
  peek(): StoredEvent | undefined {
    return this.events[this.head];
  }

  /** The next event, taken off the buffer. */
  take(): StoredEvent {
    const index = this.head++;
    const item = this.events[index] as StoredEvent;
    if (index < this.counted) this.bytes -= storedJsonLength(item.event);
    return item;
  }

  /** More than one event, and more than `maxBytes`, wait. */
  tooManyBytes(maxBytes: number): boolean {
    if (this.waiting <= 1) return false;
    if (this.counted < this.head) this.counted = this.head;
    for (; this.counted < this.events.length; this.counted++) this.bytes += storedJsonLength((this.events[this.counted] as StoredEvent).event);
    return this.bytes > maxBytes;
  }

  clear(): void {
    this.events = [];
    this.head = 0;
    this.bytes = 0;
    this.counted = 0;
  }
}
