/**
 * Reads a task's event log as a live stream: optionally a Task snapshot first (SUB-01,
 * STREAM-03), then every event after it in sequence order, with gaps filled from the store,
 * never a duplicate (STREAM-05). It ends after a terminal or interrupted state (STREAM-04), when
 * the consumer stops, or when the consumer falls too far behind (R10).
 */
import { isFinalForNow, isTerminalState } from '../protocol/taskStates.js';
import type { StreamResponse, Task, TaskState } from '../protocol/types.js';
import { InternalError } from '../protocol/errors.js';
import type { EventBus } from './eventBus.js';
import type { StoredEvent, TaskStore } from './stores/taskStore.js';

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
  /** 'snapshot': start with the current Task; a number: replay events after that seq. */
  start: 'snapshot' | number;
  /** Shapes every Task the stream carries (historyLength). */
  shape?: (task: Task) => Task;
  /** Most events buffered for a slow consumer before the stream is ended with an error. */
  maxBuffered?: number;
  signal?: AbortSignal;
}

export function stateAfter(event: StreamResponse): TaskState | undefined {
  if ('task' in event) return event.task.status.state;
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  return undefined;
}

export async function* readTaskStream(options: TaskStreamOptions): AsyncGenerator<StreamItem> {
  const { store, bus, tenant, taskId } = options;
  const maxBuffered = options.maxBuffered ?? 10_000;
  let pending: StoredEvent[] = [];
  let wake: (() => void) | undefined;
  let overflow = false;
  const onAbort = (): void => wake?.();
  const unsubscribe = bus.subscribe(tenant, taskId, (events) => {
    if (overflow) return;
    for (const e of events) pending.push(e);
    if (pending.length > maxBuffered) {
      // Stop buffering for a consumer this far behind; it gets an error and can resubscribe.
      overflow = true;
      pending = [];
    }
    wake?.();
  });
  options.signal?.addEventListener('abort', onAbort);
  const shape = options.shape ?? ((task: Task) => task);
  let endSeq = Number.POSITIVE_INFINITY;
  try {
    let lastSeq: number;
    if (options.start === 'snapshot') {
      const record = await store.get(tenant, taskId);
      if (!record) return;
      lastSeq = record.seq;
      yield { event: { task: shape(record.task) }, seq: record.seq };
      if (isTerminalState(record.task.status.state)) return;
    } else {
      // Resuming after Last-Event-ID (R7): replay what followed; a terminal task ends the stream
      // once its last event is delivered, instead of waiting for events that cannot come.
      const record = await store.get(tenant, taskId);
      if (!record) return;
      lastSeq = Math.min(options.start, record.seq);
      if (isTerminalState(record.task.status.state)) endSeq = record.seq;
    }
    // Replay from the log whatever happened before the subscription caught up.
    pending = [...(await store.events(tenant, taskId, lastSeq)), ...pending];
    for (;;) {
      if (options.signal?.aborted) return;
      if (overflow) throw new InternalError('Stream consumer too slow; reconnect with SubscribeToTask');
      if (pending.length === 0) {
        if (lastSeq >= endSeq) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      const batch = pending;
      pending = [];
      for (let i = 0; i < batch.length; i++) {
        const item = batch[i] as StoredEvent;
        if (item.seq <= lastSeq) continue;
        if (item.seq > lastSeq + 1) {
          // A gap (e.g. an event published by another instance we missed): read it from the log.
          const missing = (await store.events(tenant, taskId, lastSeq)).filter((e) => e.seq < item.seq);
          // Events gone from the log (retention) cannot be replayed: continue after the gap.
          if (missing[0]?.seq !== lastSeq + 1) lastSeq = item.seq - 1;
          pending = [...missing, ...batch.slice(i), ...pending];
          break;
        }
        lastSeq = item.seq;
        yield { event: 'task' in item.event ? { task: shape(item.event.task) } : item.event, seq: item.seq };
        const state = stateAfter(item.event);
        if (state !== undefined && isFinalForNow(state)) return;
      }
    }
  } finally {
    unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
