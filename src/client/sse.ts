/**
 * A small Server-Sent Events parser (WHATWG "event stream interpretation"): UTF-8 with an
 * optional BOM, lines ended by CRLF, LF or CR (also split across chunks), `:` comments,
 * `field: value` with one leading space removed, multi-line `data` joined with "\n", `id`
 * (ignored when it contains NUL) persisting across events, `event`, `retry`; an event is
 * dispatched on a blank line and an unterminated one is dropped at the end (SSE-05).
 */
import { A2AClientError } from './errors.js';

export interface SseEvent {
  /** The data lines joined with "\n". */
  data: string;
  /** The `event:` type; "message" when absent. */
  event: string;
  /** The last event ID at dispatch time ("" when none was ever given). */
  id: string;
}

export class SseParser {
  /** The last valid `retry:` value (reconnection time in ms). */
  retry: number | undefined;
  private rest = '';
  private started = false;
  private data: string[] = [];
  private event = '';
  private lastId = '';

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    if (!this.started && text) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const buffer = this.rest + text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A CR at the end of the chunk may be half of a CRLF: keep it for the next one.
      if (c === 13 && i === buffer.length - 1) break;
      this.line(buffer.slice(start, i), out);
      if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.rest = buffer.slice(start);
    return out;
  }

  /** End of stream: a trailing CR still ends a line; an unfinished event is discarded. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.rest.endsWith('\r')) this.line(this.rest.slice(0, -1), out);
    this.rest = '';
    this.data = [];
    this.event = '';
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ data: this.data.join('\n'), event: this.event || 'message', id: this.lastId });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment (heartbeats)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}

/**
 * Reads an event stream body as it arrives. Stopping the iteration cancels the body; a
 * connection that fails while reading becomes A2AClientError NETWORK.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, parser = new SseParser()): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        finished = true;
        throw new A2AClientError('NETWORK', 'The event stream was interrupted', { cause: error });
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
