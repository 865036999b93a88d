/**
 * A Server-Sent Events parser following the WHATWG "event stream interpretation" algorithm:
 * UTF-8 with an optional leading BOM, lines ended by CRLF, LF or CR (also split across chunks),
 * `:` comments, `field: value` with one optional leading space removed, multi-line `data`
 * joined with "\n", `id` (ignored when it contains NUL) persisting as the last event id,
 * `retry` (digits only), dispatch on a blank line, and an unterminated event discarded at EOF.
 */

export interface SseEvent {
  /** The joined data lines (without the final newline). */
  data: string;
  /** The `event:` type, "message" when absent. */
  type: string;
  /** The `id:` given on this very event, when it had one. */
  id?: string;
  /** The last event id buffer at dispatch time (persists across events, per the spec). */
  lastEventId: string;
}

export class SseParser {
  /** Text of every comment line (without the leading colon). */
  readonly comments: string[] = [];
  /** The last valid `retry:` value. */
  retry: number | undefined;
  private buffer = '';
  private started = false;
  private data: string[] = [];
  private type = '';
  private eventId: string | undefined;
  private lastEventId = '';

  /** Feeds decoded text; returns the events completed by it. */
  feed(chunk: string): SseEvent[] {
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const cr = this.buffer.indexOf('\r');
      const lf = this.buffer.indexOf('\n');
      if (cr < 0 && lf < 0) break;
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (cr === this.buffer.length - 1) break;
        end = cr;
        next = this.buffer.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(next);
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  /** End of stream: a trailing lone CR still ends a line; an unfinished event is discarded. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buffer.endsWith('\r')) {
      const event = this.line(this.buffer.slice(0, -1));
      if (event) out.push(event);
    }
    this.buffer = '';
    this.data = [];
    this.type = '';
    this.eventId = undefined;
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1));
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.type = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) {
          this.lastEventId = value;
          this.eventId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        // Unknown fields are ignored.
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const id = this.eventId;
    this.eventId = undefined;
    if (this.data.length === 0) {
      this.type = '';
      return undefined;
    }
    const event: SseEvent = { data: this.data.join('\n'), type: this.type || 'message', lastEventId: this.lastEventId };
    if (id !== undefined) event.id = id;
    this.data = [];
    this.type = '';
    return event;
  }
}

/** Parses a complete event stream held in one string. */
export function parseSse(text: string): { events: SseEvent[]; comments: string[]; retry: number | undefined } {
  const parser = new SseParser();
  const events = [...parser.feed(text), ...parser.end()];
  return { events, comments: parser.comments, retry: parser.retry };
}

/** Reads an event stream body incrementally; return early from the loop to stop reading. */
export async function* readSse(body: ReadableStream<Uint8Array>, parser = new SseParser()): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.feed(decoder.decode());
        yield* parser.end();
        return;
      }
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}
