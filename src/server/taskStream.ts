/**
 * Reads a task's event log as a live stream: optionally a Task snapshot first (SUB-01,
 * STREAM-03), then every event after it in sequence order, with gaps filled from the store,
 * never a duplicate (STREAM-05); events the log no longer holds (retention) are bridged by the
 * current Task snapshot, never skipped (R7). It ends after a terminal or interrupted state (STREAM-04), when
 * the consumer closes it, or fails when the consumer falls too far behind (R10): more events
 * waiting for it (./pendingEvents.ts) than `maxBuffered`, or events whose JSON length adds up to
 * more than `maxBufferedBytes` for longer than SLOW_CONSUMER_GRACE_MS — a few large artifact
 * chunks would otherwise keep hundreds of MiB alive for a reader that does not read. The grace is
 * for readers that do read: an agent writes a burst of large chunks faster than any socket
 * carries them, and a reader that keeps up works off such a burst within it. A stream over its
 * byte bound is the only one with a timer of its own, besides one waiting at AUTH_REQUIRED
 * (decision A2: ./authRequiredWindow.ts).
 *
 * A push stream (./pushStream.ts): the bus subscription wakes it and it hands events straight
 * to its sink, so an idle stream is this object, its subscription and an empty buffer (R9).
 */
import { isFinalForNow, isInterruptedState, isTerminalState } from '../protocol/taskStates.js';
import type { StreamResponse, Task, TaskState } from '../protocol/types.js';
import type { EventBus } from './eventBus.js';
import { PushStream, type StreamSink } from './pushStream.js';
import type { StoredEvent, TaskRecord, TaskStore } from './stores/taskStore.js';
import { AuthRequiredWindow } from './authRequiredWindow.js';
import { PendingEvents } from './pendingEvents.js';
import { shapeTask } from './taskShape.js';
import { StreamConsumerTooSlowError } from './slowConsumer.js';

export interface StreamItem {
  event: StreamResponse;
  /** The event's sequence number in the task log (SSE `id:`, R7). */
  seq?: number;
}

export interface TaskStreamOptions {
  store: TaskStore;
  bus: EventBus;
  tenant: string;
  taskId: string;
  /**
   * 'snapshot': start with the current Task (and end there if it is terminal or interrupted); `{ record }`: start with that record's Task (the
   * one a follow-up message wrote) and go on from its seq; a number: replay events after that seq.
   */
  start: 'snapshot' | { record: TaskRecord } | number;
  /** Trims the history of every Task the stream carries (HIST rules). */
  historyLength?: number | undefined;
  /** Most events buffered for a slow consumer before the stream is ended with an error. */
  maxBuffered?: number;
  /**
   * Most bytes of events (their JSON length, strings by characters) buffered for a slow consumer
   * for longer than SLOW_CONSUMER_GRACE_MS before the stream is ended with the same error; one
   * event always fits, whatever its size.
   */
  maxBufferedBytes?: number;
  /**
   * A follow-up's stream: the seq of the task when its run began (Execution.begun). Until then
   * it may run behind an earlier run, whose interrupted states (at or before that seq) do not
   * end the stream; undefined: the run does not happen, and any interrupted state ends it.
   */
  runBegun?: Promise<number | undefined> | undefined;
  /**
   * A2 / AUTHZ-03: how long the stream stays open at AUTH_REQUIRED waiting for the next event (an
   * agent resuming on an out-of-band credential); 0 or undefined: it ends there at once.
   */
  authRequiredMs?: number | undefined;
  /**
   * Settles when the run of the stream's own message is over (the agent returned): at
   * AUTH_REQUIRED nothing more is coming from it, so the stream ends without waiting out the window.
   */
  runEnded?: Promise<unknown> | undefined;
}

export function stateAfter(event: StreamResponse): TaskState | undefined {
  if ('task' in event) return event.task.status.state;
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  return undefined;
}

export function readTaskStream(options: TaskStreamOptions): PushStream<StreamItem> {
  return new TaskStream(options);
}

const DEFAULT_MAX_BUFFERED = 10_000;
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** How long more than `maxBufferedBytes` may wait for a consumer before it is dropped. */
export const SLOW_CONSUMER_GRACE_MS = 2_000;

class TaskStream extends PushStream<StreamItem> {
  private sink: StreamSink<StreamItem> | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Events not delivered yet (bus deliveries, replays, gap fills). */
  private readonly pending = new PendingEvents();
  /** Runs while more than maxBufferedBytes wait: drops the consumer when it fires. */
  private overBytes: ReturnType<typeof setTimeout> | undefined;
  /** The last seq delivered (or skipped past). */
  private lastSeq = 0;
  /** A resumed stream of a terminal or interrupted task ends once caught up with this seq. */
  private endSeq = Number.POSITIVE_INFINITY;
  /** Reading the store (opening, filling a gap): delivery waits. */
  private reading = true;
  private paused = false;
  private pumping = false;
  private overflow = false;
  private done = false;
  /** Known once `runBegun` settled (see TaskStreamOptions). */
  private begunAt: { seq: number | undefined } | undefined;
  /** Open at AUTH_REQUIRED (A2); once lapsed, the stream ends when caught up. */
  private readonly authWait: AuthRequiredWindow;

  constructor(private readonly options: TaskStreamOptions) {
    super();
    this.authWait = new AuthRequiredWindow({
      authRequiredMs: options.authRequiredMs,
      runEnded: options.runEnded,
      onLapse: () => {
        if (!this.done) this.pump();
      },
    });
  }

  protected start(sink: StreamSink<StreamItem>): void {
    if (this.done) return;
    this.sink = sink;
    const { bus, tenant, taskId } = this.options;
    // Subscribed before the store is read, so nothing published meanwhile is missed.
    this.unsubscribe = bus.subscribe(tenant, taskId, (events) => this.receive(events));
    this.open().then(
      () => this.read(),
      (error: unknown) => this.fail(error),
    );
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.pump();
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.release();
  }

  private async open(): Promise<void> {
    const { store, tenant, taskId, start } = this.options;
    const record = typeof start === 'object' ? start.record : await store.get(tenant, taskId);
    if (this.done) return;
    if (!record) {
      this.end();
      return;
    }
    if (typeof start !== 'number') {
      this.lastSeq = record.seq;
      this.deliver({ event: { task: this.shape(record.task) }, seq: record.seq });
      // A snapshot of a task that is terminal, or waiting for input (A2, C12), is all there is for
      // now. A follow-up's record may still show the state its message is answering: that goes on.
      const state = record.task.status.state;
      if (isTerminalState(state)) this.end();
      else if (start === 'snapshot' && isInterruptedState(state)) this.interrupted(state);
    } else {
      // Resuming after Last-Event-ID (R7): replay what followed; a task that is terminal, or
      // waiting for the client (A2, C12), ends the stream once its last event is delivered,
      // instead of waiting for events that cannot come (or only come for a new message).
      // At AUTH_REQUIRED with a window (A2), it waits for the next event instead.
      this.lastSeq = Math.min(start, record.seq);
      const state = record.task.status.state;
      if (this.authWait.waitsAt(state)) this.authWait.start();
      else if (isFinalForNow(state)) this.endSeq = record.seq;
    }
    if (this.done) return;
    // Replay from the log whatever happened before the subscription caught up.
    const after = this.lastSeq;
    const events = await store.events(tenant, taskId, after);
    if (this.done) return;
    // Events after Last-Event-ID gone from the log (retention): the stream starts with the snapshot instead.
    if (after < record.seq && events[0]?.seq !== after + 1) this.snapshotOverGap(record);
    if (!this.done) this.pending.requeue(events);
  }

  /**
   * Events after `lastSeq` are gone from the log (retention, R7): the stream goes on with the
   * task snapshot `record` (numbered with the seq it reflects, so a later resume starts there)
   * instead of skipping them, and a consumer takes it as its new base. A record not ahead of
   * what was delivered (a lagging store) cannot bridge the gap; the pump finds it again.
   */
  private snapshotOverGap(record: TaskRecord): void {
    if (record.seq <= this.lastSeq) return;
    this.lastSeq = record.seq;
    this.endSeq = Number.POSITIVE_INFINITY;
    this.deliver({ event: { task: this.shape(record.task) }, seq: record.seq });
    this.endAfter(record.task.status.state, record.seq);
  }

  /** Bus delivery. */
  private receive(events: StoredEvent[]): void {
    if (this.done || this.overflow) return;
    this.pending.add(events);
    this.pump();
    if (this.done) return;
    const waiting = this.pending.waiting;
    if (waiting > (this.options.maxBuffered ?? DEFAULT_MAX_BUFFERED)) this.drop();
    else if (waiting > 1 && !this.overBytes && this.tooManyBytes()) {
      this.overBytes = setTimeout(() => this.stalled(), SLOW_CONSUMER_GRACE_MS);
      this.overBytes.unref?.();
    }
  }

  /** More than one event, and more than `maxBufferedBytes`, wait for the consumer. */
  private tooManyBytes(): boolean {
    return this.pending.tooManyBytes(this.options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  }

  /** The byte bound's grace is over: a consumer still that far behind is dropped. */
  private stalled(): void {
    this.overBytes = undefined;
    if (!this.done && !this.overflow && this.tooManyBytes()) this.drop();
  }

  /** Stops buffering for a consumer too far behind; it gets an error (once it has room for it) and can resubscribe. */
  private drop(): void {
    this.overflow = true;
    this.clearPending();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.pump();
  }

  /** The next pending event, taken off the buffer. */
  private take(): StoredEvent {
    const item = this.pending.take();
    if (this.overBytes && !this.tooManyBytes()) this.clearOverBytes();
    return item;
  }

  private clearOverBytes(): void {
    clearTimeout(this.overBytes);
    this.overBytes = undefined;
  }

  private clearPending(): void {
    this.pending.clear();
    if (this.overBytes) this.clearOverBytes();
  }

  /** Delivers pending events while the sink has room. */
  private pump(): void {
    if (this.pumping || this.reading || this.done) return;
    this.pumping = true;
    try {
      while (!this.done && !this.paused && !this.reading) {
        if (this.overflow) {
          this.fail(new StreamConsumerTooSlowError());
          return;
        }
        const item = this.pending.peek();
        if (!item) {
          if (this.pending.holding) this.clearPending();
          // Caught up with a resumed task that was terminal or interrupted, and no further; or
          // nothing came in AUTH_REQUIRED's window.
          if (this.lastSeq === this.endSeq || this.authWait.lapsed) this.end();
          return;
        }
        if (item.seq <= this.lastSeq) {
          this.take();
          continue;
        }
        if (item.seq > this.lastSeq + 1) {
          // A gap (e.g. an event published by another instance we missed): read it from the log.
          this.fillGap(item.seq);
          return;
        }
        this.take();
        this.lastSeq = item.seq;
        this.deliver({ event: 'task' in item.event ? { task: this.shape(item.event.task) } : item.event, seq: item.seq });
        const state = stateAfter(item.event);
        if (state !== undefined) this.endAfter(state, item.seq);
        // An event that leaves the task in AUTH_REQUIRED (an artifact): the window starts over.
        else if (this.authWait.open) this.authWait.start();
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Ends the stream after a terminal or interrupted `state` delivered at `seq` (STREAM-04). */
  private endAfter(state: TaskState, seq: number): void {
    this.authWait.stop();
    if (!isFinalForNow(state)) return;
    if (isTerminalState(state)) this.end();
    else if (!this.options.runBegun) this.interrupted(state);
    else this.endIfOwnRun({ state, seq }, this.options.runBegun);
  }

  /** At an interrupted `state`: the end, or at AUTH_REQUIRED with a window, a wait for the next event (A2). */
  private interrupted(state: TaskState): void {
    if (this.authWait.waitsAt(state)) this.authWait.start();
    else this.end();
  }

  /**
   * An interrupted state at `seq` on a follow-up's stream ends it only if the follow-up's run
   * wrote it (or will not run); until that run has begun, delivery waits.
   */
  private endIfOwnRun(at: { state: TaskState; seq: number }, runBegun: Promise<number | undefined>): void {
    const decide = (begunAt: { seq: number | undefined }): void => {
      if (begunAt.seq === undefined || at.seq > begunAt.seq) this.interrupted(at.state);
    };
    if (this.begunAt) {
      decide(this.begunAt);
      return;
    }
    this.reading = true;
    void runBegun.then((begunSeq) => {
      this.begunAt = { seq: begunSeq };
      if (this.done) return;
      decide(this.begunAt);
      this.read();
    });
  }

  private fillGap(before: number): void {
    this.reading = true;
    this.readGap(before).then(
      () => this.read(),
      (error: unknown) => this.fail(error),
    );
  }

  private async readGap(before: number): Promise<void> {
    const { store, tenant, taskId } = this.options;
    const after = this.lastSeq;
    const events = await store.events(tenant, taskId, after);
    if (this.done) return;
    const missing = events.filter((e) => e.seq < before);
    if (missing[0]?.seq === after + 1) {
      this.pending.requeue(missing);
      return;
    }
    // Gone from the log (retention): the current snapshot bridges the gap.
    const record = await store.get(tenant, taskId);
    if (this.done) return;
    if (record && record.seq >= before) this.snapshotOverGap(record);
    // A store lagging behind the event it announced: continue after the gap (nothing better to send).
    else this.lastSeq = before - 1;
  }

  /** A store read is over: deliver. */
  private read(): void {
    this.reading = false;
    this.pump();
  }

  private deliver(item: StreamItem): void {
    if (!(this.sink as StreamSink<StreamItem>).push(item)) this.paused = true;
  }

  private shape(task: Task): Task {
    const { historyLength } = this.options;
    return historyLength === undefined ? task : shapeTask(task, { historyLength });
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.release();
    this.sink?.end();
  }

  private fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.release();
    this.sink?.fail(error);
  }

  private release(): void {
    this.authWait.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.clearPending();
  }
}

/** A stream of exactly one item (a direct Message reply, a finished task answered once). */
export async function* singleItem(item: StreamItem): AsyncGenerator<StreamItem> {
  yield item;
}
