/**
 * Server-Sent Events framing (SSE rules): one event per A2A event, `id:` carrying the task
 * log sequence number (R7), JSON on one line, heartbeat comments while idle, and an error
 * event in the binding's format when the stream fails midway (B9).
 *
 * The body is a push stream of frames (../pushStream.ts): the Node host pipes it straight into
 * the response; other hosts iterate it (a WHATWG Response body). Heartbeats come from one shared
 * clock per period (./heartbeat.ts), not a timer per stream (R9).
 */
import { PushStream, toPushStream, type StreamSink } from '../pushStream.js';
import type { StreamItem } from '../taskStream.js';
import { heartbeatClock, type HeartbeatClock, type Heartbeating } from './heartbeat.js';

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** How a binding writes its events (an object per stream, e.g. holding the JSON-RPC id). */
export interface SseFormat {
  /** Formats one event's `data:` JSON. */
  data(item: StreamItem): string;
  /** Formats the `data:` JSON of a mid-stream error. */
  error(error: unknown): string;
}

const HEARTBEAT = ': keep-alive\n\n';

export function sseEvent(data: string, id?: number): string {
  return id === undefined ? `data: ${data}\n\n` : `id: ${id}\ndata: ${data}\n\n`;
}

/** An error event: `event: error` marks it for clients that dispatch on event type (the official SDKs do). */
export function sseErrorEvent(data: string): string {
  return `event: error\n${sseEvent(data)}`;
}

/** The SSE body of a stream of items: frames in `format`, a heartbeat every `heartbeatMs` of silence. */
export function sseBody(items: AsyncIterable<StreamItem>, format: SseFormat, heartbeatMs: number): PushStream<string> {
  return new SseStream(toPushStream(items), format, heartbeatClock(heartbeatMs));
}

class SseStream extends PushStream<string> implements StreamSink<StreamItem>, Heartbeating {
  lastActive = 0;
  private sink: StreamSink<string> | undefined;
  /** The consumer said it is full: no heartbeats until it resumes (events wait in the source). */
  private full = false;
  private done = false;
  /**
   * R24: the first frame opens with a heartbeat comment, so a client learns at once that this
   * server heartbeats and watches for silence even on a stream that is never idle long enough
   * for the clock to beat. In the first write, not a write of its own.
   */
  private announced = false;

  constructor(
    private readonly source: PushStream<StreamItem>,
    private readonly format: SseFormat,
    private readonly clock: HeartbeatClock,
  ) {
    super();
  }

  protected start(sink: StreamSink<string>): void {
    if (this.done) return;
    this.sink = sink;
    this.clock.add(this);
    this.source.pipe(this);
  }

  resume(): void {
    this.full = false;
    this.source.resume();
  }

  close(): void {
    if (this.done) return;
    this.finish();
    this.source.close();
  }

  // ------------------------------------------------ the item source's sink

  push(item: StreamItem): boolean {
    let frame: string;
    try {
      frame = sseEvent(this.format.data(item), item.seq);
    } catch (error) {
      // An event that cannot be written ends the stream like any mid-stream failure (and is one for onCall).
      this.source.close(error);
      this.fail(error);
      return false;
    }
    this.lastActive = this.clock.ticks;
    return this.write(frame);
  }

  end(): void {
    if (this.done) return;
    this.finish();
    this.sink?.end();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.finish();
    const sink = this.sink as StreamSink<string>;
    let frame: string;
    try {
      frame = sseErrorEvent(this.format.error(error));
    } catch (formatError) {
      sink.fail(formatError);
      return;
    }
    sink.push(frame);
    sink.end();
  }

  // ------------------------------------------------ the clock's member

  beat(): void {
    if (!this.full && !this.done) this.write(HEARTBEAT);
  }

  private write(frame: string): boolean {
    if (!this.announced) {
      this.announced = true;
      if (frame !== HEARTBEAT) frame = HEARTBEAT + frame;
    }
    const room = (this.sink as StreamSink<string>).push(frame);
    if (!room) this.full = true;
    return room;
  }

  private finish(): void {
    this.done = true;
    this.clock.delete(this);
  }
}
