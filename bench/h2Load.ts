/**
 * A lean gRPC load client for rows 6-7: HTTP/2 spoken directly over one TCP connection per server
 * (client preface, HEADERS + DATA frames out, a small HPACK decoder in), no grpc-js and no
 * node:http2 stream objects. A grpc-js client spends ~155 µs of CPU per unary call and a
 * node:http2 client ~50 µs, as much as the bare grpc-js server they load; this one a small
 * fraction of that, so the rows measure the servers, as autocannon does for the HTTP rows.
 *
 * Each call is checked cheaply: HTTP :status 200, grpc-status 0 (in the trailers, or in the
 * headers of a trailers-only answer), and the DATA split into complete, uncompressed, non-empty
 * gRPC messages, as many as expected (1 for unary, 13 per stream). The answers themselves are
 * checked deeply once per server with grpc-js before the load (grpcLoad.ts, extraRows.ts).
 *
 * What it does not do, because the bench does not need it: TLS, request bodies larger than the
 * peer's initial stream window, server push (disabled in SETTINGS), priorities (ignored).
 */
import net from 'node:net';
import type { CallOutcome } from './load.js';

// ---- requests -------------------------------------------------------------------------------

const HEX = '0123456789abcdef';

/**
 * A request to `path`: a gRPC frame (5-byte header + message) whose message id is a UUID. The
 * client writes it with a counter in the UUID's last 12 hex digits, so every call carries a
 * fresh message id (the server deduplicates a repeated one) for the cost of a copy.
 */
export class RequestTemplate {
  readonly frame: Buffer;
  private readonly at: number;
  private counter = 0;

  constructor(
    readonly path: string,
    message: Buffer,
    uuid: string,
  ) {
    this.frame = Buffer.allocUnsafe(5 + message.length);
    this.frame[0] = 0;
    this.frame.writeUInt32BE(message.length, 1);
    message.copy(this.frame, 5);
    const found = this.frame.indexOf(uuid, 5, 'latin1');
    if (found < 0 || uuid.length !== 36) throw new Error('the message does not carry the UUID given');
    this.at = found + 24;
  }

  /** Copies the frame to `out` at `offset` with the next message id. */
  writeNext(out: Buffer, offset: number): void {
    this.frame.copy(out, offset);
    let n = ++this.counter;
    for (let i = offset + this.at + 11; i >= offset + this.at; i--) {
      out[i] = HEX.charCodeAt(n & 15);
      n = Math.floor(n / 16);
    }
  }
}

// ---- HPACK (RFC 7541) -----------------------------------------------------------------------

/** HPACK integer with an n-bit prefix; `flags` are the bits above the prefix in the first byte. */
function hpackInt(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const out = [flags | max];
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 128);
  out.push(value);
  return out;
}

function hpackString(s: string): number[] {
  const bytes = Buffer.from(s, 'latin1');
  return [...hpackInt(bytes.length, 7, 0), ...bytes];
}

/** "Literal header field without indexing" (never touches the peer's dynamic table). */
function literal(name: number | string, value: string): number[] {
  const head = typeof name === 'number' ? hpackInt(name, 4, 0) : [0, ...hpackString(name)];
  return [...head, ...hpackString(value)];
}

/** The request header block of a gRPC call to `path` on `authority`, A2A-Version 1.0. */
function requestHeaderBlock(path: string, authority: string): Buffer {
  return Buffer.from([
    0x83, // :method POST (static 3)
    0x86, // :scheme http (static 6)
    ...literal(4, path), // :path
    ...literal(1, authority), // :authority
    ...literal(31, 'application/grpc'), // content-type
    ...literal('te', 'trailers'),
    ...literal('a2a-version', '1.0'),
  ]);
}

/** RFC 7541 Appendix A. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  ['', ''],
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ...(
    'accept-charset accept-encoding accept-language accept-ranges accept access-control-allow-origin age allow authorization cache-control ' +
    'content-disposition content-encoding content-language content-length content-location content-range content-type cookie date etag expect expires ' +
    'from host if-match if-modified-since if-none-match if-range if-unmodified-since last-modified link location max-forwards proxy-authenticate ' +
    'proxy-authorization range referer refresh retry-after server set-cookie strict-transport-security transfer-encoding user-agent vary via www-authenticate'
  )
    .split(' ')
    .map((name): [string, string] => [name, name === 'accept-encoding' ? 'gzip, deflate' : '']),
];

/**
 * RFC 7541 Appendix B as code lengths of symbols 0..256 (256 = EOS). The code is canonical
 * (codes ordered by length, then symbol), so the lengths are all a decoder needs.
 */
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5,
  5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7,
  6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23,
  23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27,
  26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27,
  27, 27, 27, 26, 30,
];
const EOS = 256;

/** Canonical decoding tables: per length, its first code and where its symbols start in SYMBOLS. */
const SYMBOLS = Array.from({ length: 257 }, (_, s) => s).sort((a, b) => (HUFFMAN_LENGTHS[a] as number) - (HUFFMAN_LENGTHS[b] as number) || a - b);
const FIRST_CODE: number[] = [];
const FIRST_INDEX: number[] = [];
const COUNT: number[] = [];
{
  for (const l of HUFFMAN_LENGTHS) COUNT[l] = (COUNT[l] ?? 0) + 1;
  let code = 0;
  let index = 0;
  for (let len = 1; len <= 30; len++) {
    FIRST_CODE[len] = code;
    FIRST_INDEX[len] = index;
    code = (code + (COUNT[len] ?? 0)) * 2;
    index += COUNT[len] ?? 0;
  }
}

function huffmanDecode(buf: Buffer, start: number, end: number): string {
  const out: number[] = [];
  let code = 0;
  let len = 0;
  for (let i = start; i < end; i++) {
    const byte = buf[i] as number;
    for (let bit = 7; bit >= 0; bit--) {
      code = code * 2 + ((byte >> bit) & 1);
      len++;
      const offset = code - (FIRST_CODE[len] as number);
      if (offset < (COUNT[len] ?? 0)) {
        const symbol = SYMBOLS[(FIRST_INDEX[len] as number) + offset] as number;
        if (symbol === EOS) throw new Error('HPACK: EOS in a string');
        out.push(symbol);
        code = 0;
        len = 0;
      } else if (len > 30) {
        throw new Error('HPACK: bad Huffman code');
      }
    }
  }
  // What is left is padding: at most 7 bits, all ones (a prefix of EOS).
  if (len > 7 || code !== 2 ** len - 1) throw new Error('HPACK: bad Huffman padding');
  return String.fromCharCode(...out);
}

/** Receives the decoded header fields of one header block. */
export interface HeaderSink {
  header(name: string, value: string): void;
}

/** The decoding side of HPACK, with its dynamic table (header names/values as latin1 strings). */
export class HpackDecoder {
  private readonly table: [string, string][] = [];
  private size = 0;
  private max = 4096;
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;

  decode(block: Buffer, sink: HeaderSink | undefined): void {
    this.buf = block;
    this.pos = 0;
    this.end = block.length;
    while (this.pos < this.end) {
      const b = block[this.pos] as number;
      if (b & 0x80) {
        const [name, value] = this.entry(this.integer(7));
        sink?.header(name, value);
      } else if (b & 0x40) {
        const index = this.integer(6);
        const name = index === 0 ? this.string() : this.entry(index)[0];
        const value = this.string();
        this.add(name, value);
        sink?.header(name, value);
      } else if (b & 0x20) {
        this.max = this.integer(5);
        if (this.max > 4096) throw new Error('HPACK: table size above our SETTINGS');
        this.evict();
      } else {
        const index = this.integer(4);
        const name = index === 0 ? this.string() : this.entry(index)[0];
        sink?.header(name, this.string());
      }
    }
  }

  private entry(index: number): readonly [string, string] {
    const e = index <= 61 ? STATIC_TABLE[index] : this.table[index - 62];
    if (!e || index === 0) throw new Error(`HPACK: no table entry ${index}`);
    return e;
  }

  private add(name: string, value: string): void {
    this.table.unshift([name, value]);
    this.size += name.length + value.length + 32;
    this.evict();
  }

  private evict(): void {
    while (this.size > this.max) {
      const [name, value] = this.table.pop() as [string, string];
      this.size -= name.length + value.length + 32;
    }
  }

  private integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = (this.byte() as number) & max;
    if (value < max) return value;
    let scale = 1;
    let b: number;
    do {
      b = this.byte();
      value += (b & 127) * scale;
      scale *= 128;
    } while (b & 128);
    return value;
  }

  private byte(): number {
    if (this.pos >= this.end) throw new Error('HPACK: truncated block');
    return this.buf[this.pos++] as number;
  }

  private string(): string {
    const huffman = ((this.buf[this.pos] as number) & 0x80) !== 0;
    const len = this.integer(7);
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('HPACK: truncated string');
    return huffman ? huffmanDecode(this.buf, start, this.pos) : this.buf.toString('latin1', start, this.pos);
  }
}

// ---- HTTP/2 (RFC 9113) ----------------------------------------------------------------------

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const SETTINGS = 4;
const PING = 6;
const GOAWAY = 7;
const WINDOW_UPDATE = 8;
const CONTINUATION = 9;
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
const SETTINGS_ENABLE_PUSH = 2;
const SETTINGS_INITIAL_WINDOW_SIZE = 4;
/** Our receive window, per stream and for the connection: large, so flow control rarely speaks. */
const RECEIVE_WINDOW = 2 ** 30;
const DEFAULT_WINDOW = 65_535;
const OUT_CHUNK = 64 * 1024;

function frameHeader(out: Buffer, at: number, frame: { length: number; type: number; flags: number; id: number }): void {
  out[at] = frame.length >>> 16;
  out[at + 1] = (frame.length >>> 8) & 0xff;
  out[at + 2] = frame.length & 0xff;
  out[at + 3] = frame.type;
  out[at + 4] = frame.flags;
  out.writeUInt32BE(frame.id, at + 5);
}

function frame(type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.allocUnsafe(9 + payload.length);
  frameHeader(out, 0, { length: payload.length, type, flags, id });
  payload.copy(out, 9);
  return out;
}

/** One call in flight: what its answer has shown so far. */
class Call implements HeaderSink {
  status = '';
  grpcStatus: string | undefined;
  messages = 0;
  /** Empty or compressed messages (neither is a valid answer here). */
  odd = 0;
  private head = 0;
  private length = 0;
  private body = 0;

  constructor(
    readonly expected: number,
    readonly resolve: (outcome: CallOutcome) => void,
    readonly reject: (error: Error) => void,
  ) {}

  header(name: string, value: string): void {
    if (name === ':status') this.status = value;
    else if (name === 'grpc-status') this.grpcStatus = value;
  }

  /** Counts the gRPC messages in DATA as it arrives (a message may span frames). */
  data(buf: Buffer, start: number, end: number): void {
    let i = start;
    while (i < end) {
      if (this.body > 0) {
        const take = Math.min(this.body, end - i);
        this.body -= take;
        i += take;
        continue;
      }
      const b = buf[i++] as number;
      if (this.head === 0) {
        if (b !== 0) this.odd++;
        this.length = 0;
      } else {
        this.length = this.length * 256 + b;
      }
      if (++this.head === 5) {
        this.head = 0;
        this.messages++;
        if (this.length === 0) this.odd++;
        this.body = this.length;
      }
    }
  }

  finish(): void {
    const ok = this.status === '200' && this.grpcStatus === '0' && this.head === 0 && this.body === 0 && this.odd === 0 && this.messages === this.expected;
    this.resolve({ events: this.messages, non2xx: this.status !== '200', bad: !ok && this.status === '200' });
  }
}

export class H2GrpcClient {
  private readonly socket: net.Socket;
  private readonly authority: string;
  private readonly calls = new Map<number, Call>();
  private readonly blocks = new Map<string, Buffer>();
  private readonly decoder = new HpackDecoder();
  private nextId = 1;
  private failure: Error | undefined;
  /** Input not yet parsed (a frame cut by the TCP read). */
  private pending: Buffer | undefined;
  /** A header block waiting for its CONTINUATION frames. */
  private continued: { id: number; flags: number; parts: Buffer[] } | undefined;
  private out = Buffer.allocUnsafe(OUT_CHUNK);
  private outPos = 0;
  private flushScheduled = false;
  private readonly flushNow = (): void => this.flush();
  /** The peer's connection window for our DATA, and calls waiting for it. */
  private sendWindow = DEFAULT_WINDOW;
  private peerStreamWindow = DEFAULT_WINDOW;
  private readonly waiting: [Call, RequestTemplate][] = [];
  /** DATA bytes received since our last connection WINDOW_UPDATE. */
  private received = 0;

  constructor(address: string) {
    const colon = address.lastIndexOf(':');
    this.authority = address;
    this.socket = net.connect({ host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(RECEIVE_WINDOW, 8);
    const increment = Buffer.alloc(4);
    increment.writeUInt32BE(RECEIVE_WINDOW - DEFAULT_WINDOW);
    this.socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, settings), frame(WINDOW_UPDATE, 0, 0, increment)]));
  }

  /** One call; resolves with its outcome (a wrong answer is an outcome), rejects when the stream or connection fails. */
  call(request: RequestTemplate, expected: number): Promise<CallOutcome> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const call = new Call(expected, resolve, reject);
      if (this.waiting.length > 0 || this.sendWindow < request.frame.length) this.waiting.push([call, request]);
      else this.send(call, request);
    });
  }

  close(): void {
    this.failure ??= new Error('client closed');
    this.socket.end();
  }

  private send(call: Call, request: RequestTemplate): void {
    const id = this.nextId;
    this.nextId += 2;
    this.calls.set(id, call);
    const size = request.frame.length;
    if (size > this.peerStreamWindow) throw new Error('request larger than the peer stream window');
    this.sendWindow -= size;
    let block = this.blocks.get(request.path);
    if (!block) {
      block = requestHeaderBlock(request.path, this.authority);
      this.blocks.set(request.path, block);
    }
    const need = 18 + block.length + size;
    if (this.outPos + need > this.out.length) {
      this.flush();
      if (need > this.out.length) this.out = Buffer.allocUnsafe(need);
    }
    const out = this.out;
    let at = this.outPos;
    frameHeader(out, at, { length: block.length, type: HEADERS, flags: END_HEADERS, id });
    block.copy(out, at + 9);
    at += 9 + block.length;
    frameHeader(out, at, { length: size, type: DATA, flags: END_STREAM, id });
    request.writeNext(out, at + 9);
    this.outPos = at + 9 + size;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushNow);
    }
  }

  /** Writes what the calls of this turn queued, in one socket write. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.outPos === 0) return;
    this.socket.write(this.out.subarray(0, this.outPos));
    this.out = Buffer.allocUnsafe(OUT_CHUNK);
    this.outPos = 0;
  }

  private read(chunk: Buffer): void {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    let pos = 0;
    try {
      while (buf.length - pos >= 9) {
        const length = ((buf[pos] as number) << 16) | ((buf[pos + 1] as number) << 8) | (buf[pos + 2] as number);
        if (buf.length - pos - 9 < length) break;
        const start = pos + 9;
        this.frame(buf, { type: buf[pos + 3] as number, flags: buf[pos + 4] as number, id: buf.readUInt32BE(pos + 5) & 0x7fffffff, start, end: start + length });
        pos = start + length;
      }
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.pending = pos < buf.length ? buf.subarray(pos) : undefined;
    if (this.received >= RECEIVE_WINDOW / 2) {
      const increment = Buffer.allocUnsafe(4);
      increment.writeUInt32BE(this.received);
      this.received = 0;
      this.socket.write(frame(WINDOW_UPDATE, 0, 0, increment));
    }
  }

  private frame(buf: Buffer, f: { type: number; flags: number; id: number; start: number; end: number }): void {
    let { start, end } = f;
    if (this.continued && f.type !== CONTINUATION) throw new Error('HTTP/2: expected CONTINUATION');
    switch (f.type) {
      case DATA: {
        this.received += end - start;
        const call = this.calls.get(f.id);
        if (f.flags & PADDED) end -= buf[start++] as number;
        if (!call) return;
        call.data(buf, start, end);
        if (f.flags & END_STREAM) this.finish(f.id, call);
        return;
      }
      case HEADERS:
        if (f.flags & PADDED) end -= buf[start++] as number;
        if (f.flags & PRIORITY) start += 5;
        if (f.flags & END_HEADERS) this.headers(f.id, f.flags, buf.subarray(start, end));
        else this.continued = { id: f.id, flags: f.flags, parts: [Buffer.from(buf.subarray(start, end))] };
        return;
      case CONTINUATION: {
        const c = this.continued;
        if (!c || c.id !== f.id) throw new Error('HTTP/2: unexpected CONTINUATION');
        c.parts.push(Buffer.from(buf.subarray(start, end)));
        if (f.flags & END_HEADERS) {
          this.continued = undefined;
          this.headers(c.id, c.flags, Buffer.concat(c.parts));
        }
        return;
      }
      case RST_STREAM: {
        const call = this.calls.get(f.id);
        if (!call) return;
        this.calls.delete(f.id);
        call.reject(new Error(`stream reset by the server (code ${buf.readUInt32BE(start)})`));
        return;
      }
      case SETTINGS:
        if (f.flags & ACK) return;
        for (let i = start; i + 6 <= end; i += 6) {
          if (buf.readUInt16BE(i) === SETTINGS_INITIAL_WINDOW_SIZE) this.peerStreamWindow = buf.readUInt32BE(i + 2);
        }
        this.socket.write(frame(SETTINGS, ACK, 0));
        return;
      case PING:
        if (!(f.flags & ACK)) this.socket.write(frame(PING, ACK, 0, Buffer.from(buf.subarray(start, end))));
        return;
      case GOAWAY:
        throw new Error(`GOAWAY from the server (code ${buf.readUInt32BE(start + 4)})`);
      case WINDOW_UPDATE:
        if (f.id === 0) {
          this.sendWindow += buf.readUInt32BE(start) & 0x7fffffff;
          this.sendWaiting();
        }
        return;
      default:
      // PRIORITY and unknown frame types are ignored.
    }
  }

  private headers(id: number, flags: number, block: Buffer): void {
    const call = this.calls.get(id);
    // Decoded even without a call: the dynamic table must follow every block.
    this.decoder.decode(block, call);
    if (call && flags & END_STREAM) this.finish(id, call);
  }

  private finish(id: number, call: Call): void {
    this.calls.delete(id);
    call.finish();
  }

  private sendWaiting(): void {
    while (this.waiting.length > 0 && this.sendWindow >= (this.waiting[0] as [Call, RequestTemplate])[1].frame.length) {
      const [call, request] = this.waiting.shift() as [Call, RequestTemplate];
      this.send(call, request);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
    for (const [call] of this.waiting.splice(0)) call.reject(error);
    if (!this.socket.destroyed) this.socket.destroy();
  }
}
