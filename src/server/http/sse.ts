/**
 * Server-Sent Events framing (SSE rules): one event per A2A event, `id:` carrying the task
 * log sequence number (R7), JSON on one line, heartbeat comments while idle, and an error
 * event in the binding's format when the stream fails midway (B9).
 */
import type { StreamItem } from '../taskStream.js';

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export interface SseOptions {
  /** Formats one event's `data:` JSON. */
  data: (item: StreamItem) => string;
  /** Formats the `data:` JSON of a mid-stream error. */
  error: (error: unknown) => string;
  heartbeatMs: number;
  signal?: AbortSignal;
}

export function sseEvent(data: string, id?: number): string {
  return id === undefined ? `data: ${data}\n\n` : `id: ${id}\ndata: ${data}\n\n`;
}

export async function* sseBody(items: AsyncIterable<StreamItem>, options: SseOptions): AsyncGenerator<string> {
  const iterator = items[Symbol.asyncIterator]();
  // The next item, a failure, or a heartbeat wakes the loop. Each next() gets one handler and each
  // wait a fresh promise, so nothing accumulates on a long-lived promise (no Promise.race: its
  // reactions on an unsettled heartbeat promise would grow with every event).
  let ready: IteratorResult<StreamItem> | undefined;
  let failure: { error: unknown } | undefined;
  let inFlight = false;
  let beat = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onItem = (r: IteratorResult<StreamItem>) => {
    inFlight = false;
    ready = r;
    signal();
  };
  const onError = (error: unknown) => {
    inFlight = false;
    failure = { error };
    signal();
  };
  // One timer per stream, pushed back after every event (cheaper than a timer per event).
  const timer = setTimeout(() => {
    beat = true;
    signal();
  }, options.heartbeatMs);
  try {
    for (;;) {
      if (!inFlight && !ready) {
        inFlight = true;
        iterator.next().then(onItem, onError);
      }
      if (!ready && !failure && !beat) await new Promise<void>((resolve) => (wake = resolve));
      if (failure) throw failure.error;
      const result = ready;
      if (result) {
        ready = undefined;
        if (result.done) return;
        beat = false;
        timer.refresh();
        yield sseEvent(options.data(result.value), result.value.seq);
      } else if (beat) {
        beat = false;
        timer.refresh();
        yield ': keep-alive\n\n';
      }
    }
  } catch (error) {
    // `event: error` marks it for clients that dispatch on event type (the official SDK does).
    yield `event: error\n${sseEvent(options.error(error))}`;
  } finally {
    clearTimeout(timer);
    // Stop the producer (frees its bus subscription) without waiting on a pending next().
    void iterator.return?.();
  }
}
