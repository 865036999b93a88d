/**
 * A small Server-Sent Events parser (WHATWG "event stream interpretation"): UTF-8 with an
 * optional BOM, lines ended by CRLF, LF or CR (also split across chunks), `:` comments,
 * `field: value` with one leading space removed, multi-line `data` joined with "\n", `id`
 * (ignored when it contains NUL) persisting across events, `event`, `retry`; an event is
 * dispatched on a blank line and an unterminated one is dropped at the end (SSE-05).
 */
import { A2AClientError } from './errors.js';
import { DEFAULT_STREAM_IDLE_MS, StreamIdleWatch } from './streamIdle.js';

export interface SseEvent {
  /** The data lines joined with "\n". */
  data: string;
  /** The `event:` type; "message" when absent. */
  event: string;
  /** The last event ID at dispatch time ("" when none was ever given). */
  id: string;
}

/** Largest event the client reads by default: 16 Mi characters (a file artifact of ~12 MB as base64). */
export const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024;

export interface SseParserOptions {
  /**
   * Largest event accepted, in characters of decoded text (about bytes for JSON and base64):
   * its data lines plus the line being read. Past it the stream fails with A2AClientError
   * INVALID_RESPONSE. Default DEFAULT_MAX_EVENT_SIZE.
   */
  maxEventSize?: number | undefined;
}

export interface SseReadOptions extends SseParserOptions {
  /** ClientOptions.streamIdleMs (./streamIdle.ts); default DEFAULT_STREAM_IDLE_MS, 0: off. */
  streamIdleMs?: number | undefined;
}

/**
 * Linear in the input: each chunk is scanned once for line ends, and an unfinished line is
 * kept as a list of pieces joined once when it ends (an event of megabytes arrives in many
 * chunks).
 */
export class SseParser {
  /** The last valid `retry:` value (reconnection time in ms). */
  retry: number | undefined;
  /** Characters examined for line ends so far: the input's length, once each (linear cost). */
  scanned = 0;
  /** Comment lines read so far (heartbeats). */
  comments = 0;
  private readonly maxEventSize: number;
  /** The unfinished line, in pieces. */
  private pending: string[] = [];
  private pendingSize = 0;
  /** The last chunk ended with CR: an LF opening the next one completes that CRLF. */
  private afterCr = false;
  private started = false;
  private data: string[] = [];
  private dataSize = 0;
  private event = '';
  private lastId = '';

  constructor(options: SseParserOptions = {}) {
    this.maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  }

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    if (!this.started && text) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!text) return [];
    const out: SseEvent[] = [];
    let start = 0;
    if (this.afterCr && text.charCodeAt(0) === 10) start = 1;
    this.afterCr = false;
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.endLine(text.slice(start, i), out);
      if (c === 13) {
        if (i + 1 === text.length) this.afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.scanned += text.length;
    if (start < text.length) {
      this.pending.push(start === 0 ? text : text.slice(start));
      this.pendingSize += text.length - start;
      this.checkSize();
    }
    return out;
  }

  /** End of stream: an unfinished event (or line) is discarded. */
  end(): SseEvent[] {
    this.pending = [];
    this.pendingSize = 0;
    this.afterCr = false;
    this.data = [];
    this.dataSize = 0;
    this.event = '';
    return [];
  }

  /** A line ended: the pieces kept from earlier chunks, then `tail`. */
  private endLine(tail: string, out: SseEvent[]): void {
    if (this.pending.length === 0) return this.line(tail, out);
    this.pending.push(tail);
    const line = this.pending.join('');
    this.pending = [];
    this.pendingSize = 0;
    this.line(line, out);
  }

  private checkSize(): void {
    if (this.dataSize + this.pendingSize <= this.maxEventSize) return;
    this.end();
    throw new A2AClientError('INVALID_RESPONSE', `The agent streamed an event larger than the client's limit of ${this.maxEventSize} characters (maxEventSize)`);
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ data: this.data.join('\n'), event: this.event || 'message', id: this.lastId });
      this.data = [];
      this.dataSize = 0;
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58) {
      this.comments++; // ':' comment (heartbeats)
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataSize += value.length + 1;
      this.checkSize();
    } else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}

/**
 * Reads an event stream body as it arrives. Stopping the iteration cancels the body; a
 * connection that fails while reading becomes A2AClientError NETWORK, and so does a silence
 * past `idleMs` from a server that sent heartbeat comments (R24, ./streamIdle.ts).
 */
export async function* readSse(body: ReadableStream<Uint8Array>, parser = new SseParser(), idleMs = DEFAULT_STREAM_IDLE_MS): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const watch = new StreamIdleWatch(idleMs);
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await watch.read(reader, parser.comments > 0);
      } catch (error) {
        // Silent past the limit (NETWORK already): the reader is cancelled below, closing the connection.
        throw A2AClientError.is(error) ? error : new A2AClientError('NETWORK', 'The event stream was interrupted', { cause: error });
      }
      if (chunk.done) {
        finished = true;
        yield* parser.push(decoder.decode());
        yield* parser.end();
        return;
      }
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
  }
}
