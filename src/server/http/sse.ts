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
  let pending: Promise<IteratorResult<StreamItem>> | undefined;
  // One timer per stream, pushed back after every event (cheaper than a timer per event).
  let beat!: () => void;
  let heartbeat = new Promise<'heartbeat'>((resolve) => (beat = () => resolve('heartbeat')));
  const timer = setTimeout(() => beat(), options.heartbeatMs);
  try {
    for (;;) {
      pending ??= iterator.next();
      const result = await Promise.race([pending, heartbeat]);
      if (result === 'heartbeat') {
        heartbeat = new Promise<'heartbeat'>((resolve) => (beat = () => resolve('heartbeat')));
        timer.refresh();
        yield ': keep-alive\n\n';
        continue;
      }
      pending = undefined;
      if (result.done) return;
      timer.refresh();
      yield sseEvent(options.data(result.value), result.value.seq);
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
