/**
 * The one-pass encoder of wireCodec.ts: wire JSON → protobuf binary, into one growing Buffer.
 * Sub-messages are written in place behind a one-byte length that is widened afterwards when
 * needed; the JSON path of a value is only assembled when it is reported in an error.
 */
import type { DescEnum, DescMessage } from '@bufbuild/protobuf';
import { parseTimestamp } from '../../protocol/timestamp.js';
import { protoInt32 } from '../../protocol/protoNumber.js';
import { isWellFormed } from '../../protocol/wellFormed.js';
import { JsonPath, MAX_SECONDS, MIN_SECONDS, enumMaps, isObject, planOf, type FieldPlan, type Json, type JsonObject, type Plan, type Wkt } from './wireCodec.js';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;


/** A map field as the `value` field (number 2) of its map entry. */
const entryValues = new WeakMap<FieldPlan, FieldPlan>();
function entryValue(f: FieldPlan): FieldPlan {
  let v = entryValues.get(f);
  if (!v) {
    v = { ...f, no: 2 };
    entryValues.set(f, v);
  }
  return v;
}

/** The plan of a message-typed field, looked up once. */
const subPlans = new WeakMap<FieldPlan, Plan>();
function subPlan(f: FieldPlan): Plan {
  let plan = subPlans.get(f);
  if (!plan) {
    plan = planOf(f.message as DescMessage);
    subPlans.set(f, plan);
  }
  return plan;
}

/**
 * Whether a oneof member other than `name` is set. A function of its own: a closure over the
 * loop's field in message() made every field iteration allocate a context (~2 KB per response).
 */
function otherMemberSet(oneof: readonly string[], name: string, json: JsonObject): boolean {
  for (const o of oneof) if (o !== name && json[o] !== undefined && json[o] !== null) return true;
  return false;
}

class Writer {
  buf = Buffer.allocUnsafe(512);
  pos = 0;
  /** Down to the value being written. */
  private readonly segments = new JsonPath();

  fail(what: string): never {
    throw this.segments.error(what);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Unsigned varint of a non-negative integer up to 2^53. */
  varint(v: number): void {
    this.ensure(10);
    while (v > 0x7f) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** int32/int64 varint: negative values take ten bytes (two's complement). */
  signed(v: number): void {
    if (v >= 0) return this.varint(v);
    let big = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    while (big > 0x7fn) {
      this.buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.buf[this.pos++] = Number(big);
  }

  tag(no: number, wire: number): void {
    this.varint(no * 8 + wire);
  }

  string(s: string): void {
    if (this.ascii(s)) return;
    const len = Buffer.byteLength(s);
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }

  /** A string that must be well-formed UTF-16 (a value, not a key): fails before writing otherwise. */
  checkedString(s: string): void {
    if (this.ascii(s)) return;
    if (!isWellFormed(s)) this.fail('must be a well-formed string');
    this.string(s);
  }

  /**
   * Writes a short ASCII string (length prefix and bytes) byte by byte, cheaper than a call
   * into Buffer.write for the ids, texts and names messages are made of; false (nothing
   * written) for anything else.
   */
  private ascii(s: string): boolean {
    const n = s.length;
    if (n > 127) return false;
    this.ensure(n + 1);
    const buf = this.buf;
    const start = this.pos + 1;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return false;
      buf[start + i] = c;
    }
    buf[this.pos] = n;
    this.pos = start + n;
    return true;
  }

  /** Starts a length-delimited value; `end(mark)` writes its length. */
  begin(no: number): number {
    this.tag(no, 2);
    this.ensure(1);
    return this.pos++;
  }

  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    let size = 1;
    for (let v = len; v > 0x7f; v = Math.floor(v / 0x80)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(mark + size, mark + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = mark;
    this.varint(len);
    this.pos = end;
  }

  message(plan: Plan, json: Json): void {
    if (plan.wkt) return this.wkt(plan.wkt, json);
    if (!isObject(json)) this.fail('must be a JSON object');
    const segments = this.segments;
    for (const f of plan.fields) {
      let v = json[f.json];
      if (v === undefined && f.proto !== f.json) v = json[f.proto];
      if (v === undefined || (v === null && !(f.type === 'message' && subPlan(f).wkt === 'Value'))) continue;
      if (f.oneof && otherMemberSet(f.oneof, f.json, json)) this.fail(`must set only one of ${f.oneof.join(', ')}`);
      segments.push(f.json);
      if (f.repeated) {
        if (!Array.isArray(v)) this.fail('must be an array');
        for (let i = 0; i < v.length; i++) {
          segments.push(i);
          this.value(f, v[i], true);
          segments.pop();
        }
      } else if (f.map) {
        if (!isObject(v)) this.fail('must be a JSON object');
        for (const key of Object.keys(v)) {
          const entry = this.begin(f.no);
          this.tag(1, 2);
          this.string(key);
          segments.push(key);
          this.value(entryValue(f), v[key], true);
          segments.pop();
          this.end(entry);
        }
      } else {
        this.value(f, v, f.presence);
      }
      segments.pop();
    }
  }

  /** One value of field `f`; defaults are skipped unless `force` (presence, list element, map value). */
  value(f: FieldPlan, v: Json, force: boolean): void {
    const no = f.no;
    switch (f.type) {
      case 'string':
        if (typeof v !== 'string') this.fail('must be a well-formed string');
        if (v === '' && !force) return;
        this.tag(no, 2);
        return this.checkedString(v);
      case 'bool':
        if (typeof v !== 'boolean') this.fail('must be true or false');
        if (!v && !force) return;
        this.tag(no, 0);
        return this.varint(v ? 1 : 0);
      case 'int32': {
        const n = protoInt32(v);
        if (n === undefined) this.fail('must be a 32-bit integer');
        if (n === 0 && !force) return;
        this.tag(no, 0);
        return this.signed(n);
      }
      case 'bytes': {
        if (typeof v !== 'string' || !BASE64.test(v)) this.fail('must be a base64 string');
        if (v === '' && !force) return;
        const bytes = Buffer.from(v, 'base64');
        this.tag(no, 2);
        this.varint(bytes.length);
        this.ensure(bytes.length);
        this.pos += bytes.copy(this.buf, this.pos);
        return;
      }
      case 'enum': {
        const n = typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' ? enumMaps(f.enumDesc as DescEnum).byName.get(v) : undefined;
        if (n === undefined) this.fail(`unknown ${f.enumDesc?.name} value ${JSON.stringify(v)}`);
        if (n === 0 && !force) return;
        this.tag(no, 0);
        return this.signed(n);
      }
      case 'message': {
        const mark = this.begin(no);
        this.message(subPlan(f), v);
        return this.end(mark);
      }
    }
  }

  wkt(wkt: Wkt, v: Json): void {
    switch (wkt) {
      case 'Empty':
        if (!isObject(v)) this.fail('must be a JSON object');
        return;
      case 'Timestamp':
        return this.timestamp(v);
      case 'Struct':
        if (!isObject(v)) this.fail('must be a JSON object');
        return this.structFields(v);
      case 'ListValue':
        if (!Array.isArray(v)) this.fail('must be an array');
        return this.listValues(v);
      case 'Value':
        return this.valueKind(v);
    }
  }

  timestamp(v: Json): void {
    const t = typeof v === 'string' ? parseTimestamp(v) : undefined;
    if (t === undefined) this.fail('must be an RFC 3339 timestamp');
    if (t.seconds < MIN_SECONDS || t.seconds > MAX_SECONDS) this.fail('is out of range');
    if (t.seconds !== 0) {
      this.tag(1, 0);
      this.signed(t.seconds);
    }
    if (t.nanos !== 0) {
      this.tag(2, 0);
      this.varint(t.nanos);
    }
  }

  structFields(obj: JsonObject): void {
    for (const key of Object.keys(obj)) {
      const entry = this.begin(1);
      this.tag(1, 2);
      this.string(key);
      const value = this.begin(2);
      this.segments.push(key);
      this.valueKind(obj[key]);
      this.segments.pop();
      this.end(value);
      this.end(entry);
    }
  }

  listValues(list: Json[]): void {
    for (let i = 0; i < list.length; i++) {
      const mark = this.begin(1);
      this.segments.push(i);
      this.valueKind(list[i]);
      this.segments.pop();
      this.end(mark);
    }
  }

  /** google.protobuf.Value: exactly one of null/number/string/bool/struct/list. */
  valueKind(v: Json): void {
    if (v === null) {
      this.tag(1, 0);
      return this.varint(0);
    }
    switch (typeof v) {
      case 'number':
        if (!Number.isFinite(v)) this.fail('must be a finite number');
        this.tag(2, 1);
        this.ensure(8);
        this.pos = this.buf.writeDoubleLE(v, this.pos);
        return;
      case 'string':
        this.tag(3, 2);
        return this.checkedString(v);
      case 'boolean':
        this.tag(4, 0);
        return this.varint(v ? 1 : 0);
      case 'object': {
        const mark = this.begin(Array.isArray(v) ? 6 : 5);
        if (Array.isArray(v)) this.listValues(v);
        else this.structFields(v as JsonObject);
        return this.end(mark);
      }
      default:
        this.fail('must be JSON');
    }
  }
}

/** JSON → the binary encoding of `desc`; unknown members are ignored (OPS-05). */
export function encodeJson(desc: DescMessage, json: unknown): Buffer {
  const w = new Writer();
  w.message(planOf(desc), json);
  return w.buf.subarray(0, w.pos);
}
