/**
 * A validating decoder driven by the descriptors generated from proto/a2a.proto.
 *
 * It takes untrusted JSON (already parsed) and returns a clean copy in the public wire shape:
 * camelCase names (snake_case accepted on input, JSON-02), enum names (integers accepted,
 * JSON-03), unknown members dropped (OPS-05), implicit-presence defaults dropped, and no
 * `__proto__` keys anywhere (R17): as a key of a map, metadata or `data` object it is refused
 * (data is never dropped silently); as a message member it is unknown, and dropped. Strings and keys must be well-formed (no lone UTF-16
 * surrogate, ./wellFormed.ts): what JSON accepts and gRPC could not answer is refused on entry. Every problem becomes one `google.rpc.BadRequest` field
 * violation; all violations of a request are reported together as one InvalidParamsError.
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { standardBase64 } from './base64.js';
import { InvalidParamsError, type FieldViolation } from './errors.js';
import { isCleanId, planFor } from './messagePlan.js';
import { protoInt32 } from './protoNumber.js';
import { parseTimestamp, utcTimestamp } from './timestamp.js';
import { KEY_NOT_UTF8, NOT_UTF8, isWellFormed } from './wellFormed.js';

export interface DecodeLimits {
  /** Most elements in any repeated field (parts, history, extensions...). */
  maxListLength: number;
  /** Most keys in any map or Struct object. */
  maxObjectKeys: number;
  /** Longest string value, in UTF-16 code units. */
  maxStringLength: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxListLength: 1000,
  maxObjectKeys: 1000,
  maxStringLength: 4 * 1024 * 1024,
};

/**
 * What to do with members a message does not define: drop them (OPS-05, the default for
 * requests), or refuse them (objects an agent wrote: a misspelt or 0.3-style member is a bug).
 */
export type UnknownFields = 'drop' | 'reject';

class Decoder {
  readonly violations: FieldViolation[] = [];
  /** The path of the value being decoded, as a stack: rendered only when something fails. */
  private readonly path: (string | number)[] = [];
  /**
   * The JSON objects and arrays being copied (a value found among them is a cycle). Only objects
   * built in process (`unknownFields: 'reject'`, an agent's writes) can hold cycles; parsed JSON
   * and protobuf cannot, so requests do without the bookkeeping.
   */
  private readonly enclosing: Set<object> | undefined;

  constructor(
    private readonly limits: DecodeLimits,
    private readonly root: string,
    private readonly unknownFields: UnknownFields = 'drop',
  ) {
    if (unknownFields === 'reject') this.enclosing = new Set();
  }

  private where(): string {
    let out = this.root;
    for (const key of this.path) out = typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key;
    return out || '(root)';
  }

  fail(description: string): undefined {
    if (this.violations.length < 100) this.violations.push({ field: this.where(), description });
    return undefined;
  }

  /** A violation at a given field (semantic checks after decoding). */
  failAt(field: string, description: string): void {
    if (this.violations.length < 100) this.violations.push({ field, description });
  }

  private at<T>(key: string | number, fn: () => T): T {
    this.path.push(key);
    try {
      return fn();
    } finally {
      this.path.pop();
    }
  }

  message(desc: DescMessage, value: unknown): Record<string, unknown> | undefined {
    if (!isPlainObject(value)) return this.fail('must be a JSON object');
    const plan = planFor(desc);
    const out: Record<string, unknown> = {};
    // Most fields of a message are absent: they cost a lookup, not a path entry. Nothing below
    // throws (failures are recorded), so a plain push/pop keeps the path.
    for (const f of plan.fields) {
      let raw = value[f.jsonName];
      if (raw === undefined && f.protoName !== f.jsonName) raw = value[f.protoName];
      if (raw === undefined || (raw === null && !f.isValue)) {
        if (f.required) this.at(f.jsonName, () => this.fail('is required'));
        continue;
      }
      this.path.push(f.jsonName);
      const decoded = this.field(f.field, raw, f.isId);
      if (decoded !== undefined) {
        if (!f.explicit && !f.oneof && isDefault(decoded)) {
          if (f.required) this.fail(Array.isArray(decoded) ? 'must not be empty' : 'is required');
        } else {
          out[f.jsonName] = decoded;
        }
      }
      this.path.pop();
    }
    if (this.unknownFields === 'reject') {
      for (const key of Object.keys(value)) {
        if (!plan.names.has(key) && value[key] !== undefined) this.at(key, () => this.fail(`is not a field of ${desc.name}`));
      }
    }
    for (const oneof of plan.oneofs) {
      let count = 0;
      let given = false;
      for (const m of oneof.members) {
        if (m in out) count++;
        else if (value[m] !== undefined && value[m] !== null) given = true;
      }
      // A member given but invalid has its own violation: "must set one of" would only repeat it.
      if (count > 1 || (count === 0 && !given)) {
        this.fail(count === 0 ? `must set one of ${oneof.members.join(', ')}` : `must set only one of ${oneof.members.join(', ')}`);
      }
    }
    return out;
  }

  /** A field's value; `isId`: an identifier (or a list of them), see ID_FIELDS. */
  field(field: DescField, value: unknown, isId = false): unknown {
    switch (field.fieldKind) {
      case 'scalar':
        return isId ? this.identifier(this.scalar(field.scalar, value)) : this.scalar(field.scalar, value);
      case 'enum':
        return this.enumValue(field.enum, value);
      case 'message':
        return this.messageOrWkt(field.message, value);
      case 'list': {
        if (!Array.isArray(value)) return this.fail('must be an array');
        if (value.length > this.limits.maxListLength) return this.fail(`must have at most ${this.limits.maxListLength} elements`);
        // Sized up front: a decoded message is often kept (in a task's history) for its whole life.
        const out: unknown[] = new Array(value.length);
        let count = 0;
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          // Nothing below throws (failures are recorded), so a plain push/pop keeps the path.
          this.path.push(i);
          const v =
            field.listKind === 'scalar'
              ? isId
                ? this.identifier(this.scalar(field.scalar, item))
                : this.scalar(field.scalar, item)
              : field.listKind === 'enum'
                ? this.enumValue(field.enum, item)
                : this.messageOrWkt(field.message, item);
          this.path.pop();
          if (v !== undefined) out[count++] = v;
        }
        if (count < out.length) out.length = count;
        return out;
      }
      case 'map': {
        if (!isPlainObject(value)) return this.fail('must be a JSON object');
        const out: Record<string, unknown> = {};
        const keys = Object.keys(value);
        if (keys.length > this.limits.maxObjectKeys) return this.fail(`must have at most ${this.limits.maxObjectKeys} keys`);
        for (const key of keys) {
          if (!this.allowedKey(key)) continue;
          const item = value[key];
          const v = this.at(key, () =>
            field.mapKind === 'scalar'
              ? this.scalar(field.scalar, item)
              : field.mapKind === 'enum'
                ? this.enumValue(field.enum, item)
                : this.messageOrWkt(field.message, item),
          );
          if (v !== undefined) out[key] = v;
        }
        return out;
      }
    }
  }

  messageOrWkt(desc: DescMessage, value: unknown): unknown {
    switch (desc.typeName) {
      case 'google.protobuf.Struct':
        if (!isPlainObject(value)) return this.fail('must be a JSON object');
        return this.json(value);
      case 'google.protobuf.Value':
        return this.json(value);
      case 'google.protobuf.Timestamp':
        return this.timestamp(value);
      case 'google.protobuf.Empty':
        return isPlainObject(value) ? {} : this.fail('must be a JSON object');
      default:
        return this.message(desc, value);
    }
  }

  scalar(type: ScalarType, value: unknown): unknown {
    switch (type) {
      case ScalarType.STRING:
        if (typeof value !== 'string') return this.fail('must be a string');
        if (value.length > this.limits.maxStringLength) return this.fail(`must be at most ${this.limits.maxStringLength} characters`);
        return isWellFormed(value) ? value : this.fail(NOT_UTF8);
      case ScalarType.BOOL:
        if (typeof value !== 'boolean') return this.fail('must be true or false');
        return value;
      case ScalarType.INT32: {
        const n = protoInt32(value);
        return n === undefined ? this.fail('must be a 32-bit integer') : n;
      }
      case ScalarType.BYTES: {
        if (typeof value !== 'string') return this.fail('must be a base64 string');
        if (value.length > this.limits.maxStringLength) return this.fail(`must be at most ${this.limits.maxStringLength} characters`);
        return standardBase64(value) ?? this.fail('must be a base64 string');
      }
      default:
        return this.fail('has an unsupported type');
    }
  }

  /**
   * A key of a map or a JSON object that may be kept: not `__proto__` (a violation on it), and
   * one every binding can carry (no lone surrogate: gRPC could not answer it; a violation on the
   * object, since the key itself cannot be shown).
   */
  private allowedKey(key: string): boolean {
    if (key === '__proto__') {
      // R17: kept, it would be a prototype wherever the object is copied with `=`; dropped, data would be lost.
      this.at(key, () => this.fail('is not allowed as a key (R17: it names the prototype in JavaScript)'));
      return false;
    }
    if (isWellFormed(key)) return true;
    this.fail(KEY_NOT_UTF8);
    return false;
  }

  /** An identifier without control characters (see ID_FIELDS). */
  identifier(value: unknown): unknown {
    if (typeof value !== 'string' || isCleanId(value)) return value;
    return this.fail(value.includes('\u0000') ? 'must not contain U+0000 (NUL)' : 'must not contain control characters');
  }

  enumValue(desc: DescEnum, value: unknown): unknown {
    if (typeof value === 'string') {
      if (desc.values.some((v) => v.name === value)) return value;
      return this.fail(`unknown ${desc.name} value ${JSON.stringify(value.slice(0, 64))}`);
    }
    if (typeof value === 'number') {
      const found = desc.values.find((v) => v.number === value);
      if (found) return found.name;
      return this.fail(`unknown ${desc.name} value ${value}`);
    }
    return this.fail(`must be a ${desc.name} name`);
  }

  timestamp(value: unknown): string | undefined {
    const t = typeof value === 'string' ? parseTimestamp(value) : undefined;
    if (t === undefined) return this.fail('must be an RFC 3339 timestamp');
    const v = value as string;
    return v.endsWith('Z') || v.endsWith('z') ? v.toUpperCase() : utcTimestamp(t);
  }

  /**
   * Copies arbitrary JSON, refusing `__proto__` keys and enforcing size limits. Objects built in
   * process (an agent's metadata or data) are held to what JSON can carry: no bigint, function,
   * Date or other class instance, no cycle; an `undefined` member is left out, as JSON.stringify does.
   */
  json(value: unknown): unknown {
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : this.fail('must be a finite number');
    if (typeof value === 'string') {
      if (value.length > this.limits.maxStringLength) return this.fail('is too long');
      return isWellFormed(value) ? value : this.fail(NOT_UTF8);
    }
    if (typeof value !== 'object' || !(Array.isArray(value) || isJsonObject(value))) return this.fail(`must be JSON (got ${kindOf(value)})`);
    const enclosing = this.enclosing;
    if (!enclosing) return Array.isArray(value) ? this.jsonArray(value) : this.jsonObject(value);
    if (enclosing.has(value)) return this.fail('is circular (it contains itself)');
    enclosing.add(value);
    try {
      return Array.isArray(value) ? this.jsonArray(value) : this.jsonObject(value);
    } finally {
      enclosing.delete(value);
    }
  }

  private jsonArray(value: unknown[]): unknown {
    if (value.length > this.limits.maxListLength) return this.fail(`must have at most ${this.limits.maxListLength} elements`);
    return value.map((v: unknown, i) => this.at(i, () => this.json(v)));
  }

  private jsonObject(value: Record<string, unknown>): unknown {
    const keys = Object.keys(value);
    if (keys.length > this.limits.maxObjectKeys) return this.fail(`must have at most ${this.limits.maxObjectKeys} keys`);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (!this.allowedKey(key)) continue;
      const item = value[key];
      if (item !== undefined) out[key] = this.at(key, () => this.json(item));
    }
    return out;
  }
}

/** A JSON object: a plain object (parsed JSON, a literal, or one without a prototype). */
export function isJsonObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a value that is not JSON is, for the violation ("a bigint", "a Date"). */
function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ? `a ${name}` : 'an object';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDefault(value: unknown): boolean {
  return (
    value === '' ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    value === 'TASK_STATE_UNSPECIFIED' ||
    value === 'ROLE_UNSPECIFIED'
  );
}

/**
 * Decodes `input` as the message `desc`, or throws InvalidParamsError listing every violation.
 * `extraChecks` may add semantic violations that the descriptor cannot express.
 */
export function decodeMessage<T>(
  desc: DescMessage,
  input: unknown,
  options: {
    limits?: DecodeLimits | undefined;
    path?: string;
    check?: ((value: T, fail: (field: string, description: string) => void) => void) | undefined;
    /** Default 'drop' (OPS-05). */
    unknownFields?: UnknownFields;
  } = {},
): T {
  const decoder = new Decoder(options.limits ?? DEFAULT_DECODE_LIMITS, options.path ?? '', options.unknownFields);
  // A well-known type at the root too (a google.protobuf.Struct: an agent's metadata).
  const out = decoder.messageOrWkt(desc, input);
  if (out !== undefined && options.check && decoder.violations.length === 0) {
    options.check(out as T, (field, description) => decoder.failAt(field, description));
  }
  if (decoder.violations.length > 0 || out === undefined) {
    const first = decoder.violations[0];
    const summary = first ? `${first.field} ${first.description}` : 'invalid';
    throw new InvalidParamsError(`Invalid parameters: ${summary}`, { fieldViolations: decoder.violations });
  }
  return out as T;
}
