/**
 * The one-pass decoder of wireCodec.ts: protobuf binary → wire JSON (ProtoJSON), as protobuf-es
 * `toJson(fromBinary(...))` would write it. Unknown fields are skipped; the JSON path of a value
 * is only assembled when it is reported in an error.
 */
import { isUtf8 } from 'node:buffer';
import type { DescEnum, DescMessage } from '@bufbuild/protobuf';
import { JsonPath, MAX_SECONDS, MIN_SECONDS, WireCodecError, enumMaps, isObject, planOf, type FieldPlan, type Json, type JsonObject, type Plan, type Wkt } from './wireCodec.js';

export interface DecodeOptions {
  /**
   * Add the fields the HTTP bindings always write, when absent on the wire, at their default
   * value: REQUIRED fields, and every field of a `…Response` message (Plan.response).
   */
  fillDefaults?: boolean;
  /** Most nested messages, Structs and lists (default 100). */
  maxDepth?: number;
}

/** Binary → ProtoJSON of `desc` (implicit defaults omitted). Throws WireCodecError. */
export function decodeToJson(desc: DescMessage, bytes: Uint8Array, options: DecodeOptions = {}): JsonObject {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r = new Reader(buf, { fill: options.fillDefaults === true, maxDepth: options.maxDepth ?? 100 });
  return r.message(planOf(desc), buf.length) as JsonObject;
}

function setKey(obj: JsonObject, key: string, value: unknown): void {
  // Map and Struct keys are data: "__proto__" must stay an own property (R17).
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function defaultOf(f: FieldPlan): Json {
  switch (f.type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int32':
      return 0;
    case 'enum':
      return enumMaps(f.enumDesc as DescEnum).byNo.get(0) ?? 0;
    case 'message':
      return planOf(f.message as DescMessage).wkt === 'Value' ? null : {};
  }
}

class Reader {
  pos = 0;
  private depth = 0;
  /** Down to the value being read. */
  private readonly segments = new JsonPath();

  constructor(
    readonly buf: Buffer,
    private readonly options: { fill: boolean; maxDepth: number },
  ) {}

  fail(what: string): never {
    throw this.segments.error(what);
  }

  malformed(): never {
    throw new WireCodecError('malformed protobuf', '', 'malformed');
  }

  /** Entering a nested object or list (R16: recursion is bounded, like JSON nesting over HTTP). */
  private enter(): void {
    if (++this.depth > this.options.maxDepth) {
      throw new WireCodecError(`nesting deeper than ${this.options.maxDepth} levels`, this.segments.toString(), 'depth');
    }
  }

  /** A varint as a number; values beyond 2^53 lose precision (only Timestamp seconds are 64-bit). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.buf[this.pos++];
      if (b === undefined) this.malformed();
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 0x80;
    }
    return this.malformed();
  }

  /** int32 (and int64 within ±2^53): ten-byte varints are negative. */
  signed(): number {
    const start = this.pos;
    const v = this.varint();
    if (this.pos - start < 10) return v > 0x7fffffff && v <= 0xffffffff ? v - 0x100000000 : v;
    let big = 0n;
    for (let i = this.pos - 1; i >= start; i--) big = (big << 7n) | BigInt((this.buf[i] as number) & 0x7f);
    return Number(BigInt.asIntN(64, big));
  }

  /** The end of a length-delimited value whose length prefix is next. */
  end(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.buf.length) this.malformed();
    return end;
  }

  /**
   * A proto3 string, which must be UTF-8: Buffer.toString would turn bad bytes into U+FFFD
   * silently, so a decoded U+FFFD (rare) has its bytes checked.
   */
  string(): string {
    const end = this.end();
    const s = this.buf.toString('utf8', this.pos, end);
    if (s.includes('\uFFFD') && !isUtf8(this.buf.subarray(this.pos, end))) this.fail('must be valid UTF-8');
    this.pos = end;
    return s;
  }

  skip(wire: number): void {
    switch (wire) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.end();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        this.malformed();
    }
    if (this.pos > this.buf.length) this.malformed();
  }

  /** A message up to `end`; a repeated singular message field is merged `into` the earlier one. */
  message(plan: Plan, end: number, into?: JsonObject): Json {
    this.enter();
    const out = plan.wkt ? this.wkt(plan.wkt, end) : this.fields(plan, end, into ?? {});
    this.depth--;
    return out;
  }

  private fields(plan: Plan, end: number, out: JsonObject): JsonObject {
    const segments = this.segments;
    while (this.pos < end) {
      const tag = this.varint();
      const wire = tag & 7;
      const f = plan.byNo[Math.floor(tag / 8)];
      if (!f) {
        this.skip(wire);
        continue;
      }
      segments.push(f.json);
      if (f.map) {
        if (wire !== 2) this.malformed();
        const entryEnd = this.end();
        let key = '';
        let value: Json;
        while (this.pos < entryEnd) {
          const t = this.varint();
          if (t === 10) key = this.string();
          else if (t >>> 3 === 2) {
            segments.push(key);
            value = this.field(f, t & 7);
            segments.pop();
          } else this.skip(t & 7);
        }
        if (this.pos !== entryEnd) this.malformed();
        setKey((out[f.json] ??= {}) as JsonObject, key, value === undefined ? defaultOf(f) : value);
      } else if (f.repeated) {
        const list = (out[f.json] ??= []) as Json[];
        segments.push(list.length);
        list.push(this.field(f, wire));
        segments.pop();
      } else {
        const prior = out[f.json];
        const v = this.field(f, wire, f.type === 'message' && isObject(prior) ? prior : undefined);
        if (f.oneof) for (const other of f.oneof) if (other !== f.json) delete out[other];
        if (!f.presence && f.type !== 'message' && v === defaultOf(f)) delete out[f.json];
        else out[f.json] = v;
      }
      segments.pop();
    }
    if (this.pos !== end) this.malformed();
    if (this.options.fill) {
      for (const f of plan.fields) {
        if (!(f.required || plan.response) || f.oneof || out[f.json] !== undefined) continue;
        if (f.repeated) out[f.json] = [];
        else if (f.map) out[f.json] = {};
        // A missing message has no default to show (a missing REQUIRED one is the sender's bug).
        else if (f.type !== 'message') out[f.json] = defaultOf(f);
      }
    }
    return out;
  }

  private field(f: FieldPlan, wire: number, into?: JsonObject): Json {
    if (wire !== (f.type === 'string' || f.type === 'bytes' || f.type === 'message' ? 2 : 0)) this.malformed();
    switch (f.type) {
      case 'string':
        return this.string();
      case 'bytes': {
        const end = this.end();
        const s = this.buf.toString('base64', this.pos, end);
        this.pos = end;
        return s;
      }
      case 'bool':
        return this.varint() !== 0;
      case 'int32':
        return this.signed() | 0;
      case 'enum': {
        const n = this.signed() | 0;
        return enumMaps(f.enumDesc as DescEnum).byNo.get(n) ?? n;
      }
      case 'message': {
        const plan = planOf(f.message as DescMessage);
        // Merging applies to plain messages; a well-known type is replaced.
        return this.message(plan, this.end(), plan.wkt ? undefined : into);
      }
    }
  }

  private wkt(wkt: Wkt, end: number): Json {
    switch (wkt) {
      case 'Empty':
        this.pos = end;
        return {};
      case 'Timestamp': {
        let seconds = 0;
        let nanos = 0;
        while (this.pos < end) {
          const tag = this.varint();
          if (tag === 8) seconds = this.signed();
          else if (tag === 16) nanos = this.signed() | 0;
          else this.skip(tag & 7);
        }
        if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999) this.fail('is out of range');
        return formatTimestamp(seconds, nanos);
      }
      case 'Struct':
        return this.struct(end);
      case 'ListValue':
        return this.list(end);
      case 'Value':
        return this.valueKind(end);
    }
  }

  private struct(end: number): JsonObject {
    this.enter();
    const out: JsonObject = {};
    while (this.pos < end) {
      const tag = this.varint();
      if (tag !== 10) {
        this.skip(tag & 7);
        continue;
      }
      const entryEnd = this.end();
      let key = '';
      let value: Json = null;
      let seen = false;
      while (this.pos < entryEnd) {
        const t = this.varint();
        if (t === 10) key = this.string();
        else if (t === 18) {
          const valueEnd = this.end();
          this.segments.push(key);
          value = this.valueKind(valueEnd);
          this.segments.pop();
          seen = true;
        } else this.skip(t & 7);
      }
      if (!seen) {
        this.segments.push(key);
        this.fail('must have a value');
      }
      setKey(out, key, value);
    }
    this.depth--;
    return out;
  }

  private list(end: number): Json[] {
    this.enter();
    const out: Json[] = [];
    while (this.pos < end) {
      const tag = this.varint();
      if (tag !== 10) {
        this.skip(tag & 7);
        continue;
      }
      const valueEnd = this.end();
      this.segments.push(out.length);
      out.push(this.valueKind(valueEnd));
      this.segments.pop();
    }
    this.depth--;
    return out;
  }

  /** google.protobuf.Value: exactly one kind must be set; the last one wins. */
  private valueKind(end: number): Json {
    let value: Json;
    let set = false;
    while (this.pos < end) {
      const tag = this.varint();
      switch (tag) {
        case 8:
          this.varint();
          value = null;
          break;
        case 17: {
          if (this.pos + 8 > end) this.malformed();
          const n = this.buf.readDoubleLE(this.pos);
          this.pos += 8;
          if (!Number.isFinite(n)) this.fail('must be a finite number');
          value = n;
          break;
        }
        case 26:
          value = this.string();
          break;
        case 32:
          value = this.varint() !== 0;
          break;
        case 42:
          value = this.struct(this.end());
          break;
        case 50:
          value = this.list(this.end());
          break;
        default:
          this.skip(tag & 7);
          continue;
      }
      set = true;
    }
    if (!set) this.fail('must have a value');
    return value;
  }
}

/** RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as protobuf-es writes it. */
function formatTimestamp(seconds: number, nanos: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  const base = iso.slice(0, iso.indexOf('.'));
  if (nanos === 0) return `${base}Z`;
  const digits = String(nanos).padStart(9, '0');
  const frac = nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits;
  return `${base}.${frac}Z`;
}
