/**
 * Protobuf binary ↔ wire JSON (ProtoJSON) in one pass, driven by the generated descriptors.
 * It produces exactly what protobuf-es `toJson(fromBinary(...))` and `toBinary(fromJson(...))`
 * produce (test/grpc/wireCodec.test.ts checks that against protobuf-es over a corpus and a
 * fuzz), without building protobuf-es message objects in between: on the gRPC hot path the
 * conversion through messages cost about as much as the operation itself.
 *
 * This file holds the per-message plans shared by the encoder (wireEncode.ts) and the decoder
 * (wireDecode.ts). Handles what A2A uses: string, bool, int32, bytes, enums, messages,
 * repeated and map fields, oneofs, proto3 `optional`, and the well-known Struct, Value,
 * ListValue, Timestamp and Empty.
 * A message using anything else reports `supported() === false` and callers use protobuf-es.
 */
import { ScalarType, getOption, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../../gen/google/api/field_behavior_pb.js';

/**
 * A conversion that failed: `value` (a field has no valid encoding; `path` names it),
 * `malformed` (the bytes are not protobuf at all) or `depth` (nested deeper than allowed, R16).
 */
export class WireCodecError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly kind: 'value' | 'malformed' | 'depth' = 'value',
  ) {
    super(message);
  }

  get malformed(): boolean {
    return this.kind === 'malformed';
  }
}

/**
 * Field names, list indexes and map keys down to the value being converted (by the encoder or
 * the decoder), kept only to name that value in an error: the path string is built only then.
 */
export class JsonPath {
  private readonly segments: (string | number)[] = [];
  private depth = 0;

  push(segment: string | number): void {
    this.segments[this.depth++] = segment;
  }

  pop(): void {
    this.depth--;
  }

  /** `a.b[2].c`: the path as written in error messages. */
  toString(): string {
    let path = '';
    for (let i = 0; i < this.depth; i++) {
      const s = this.segments[i] as string | number;
      path = typeof s === 'number' ? `${path}[${s}]` : path ? `${path}.${s}` : s;
    }
    return path;
  }

  /** A WireCodecError for the value at this path. */
  error(what: string): WireCodecError {
    const path = this.toString();
    return new WireCodecError(`${path || '(root)'} ${what}`, path);
  }
}

export type Wkt = 'Struct' | 'Value' | 'ListValue' | 'Timestamp' | 'Empty';
export type Json = unknown;
export type JsonObject = Record<string, unknown>;

export interface FieldPlan {
  field: DescField;
  no: number;
  json: string;
  proto: string;
  /** 'string' | 'bool' | 'int32' | 'bytes' | 'enum' | 'message' for the (element/value) type. */
  type: 'string' | 'bool' | 'int32' | 'bytes' | 'enum' | 'message';
  repeated: boolean;
  map: boolean;
  /** Keeps default values (proto3 optional, oneof members). */
  presence: boolean;
  oneof: string[] | undefined;
  enumDesc: DescEnum | undefined;
  message: DescMessage | undefined;
  required: boolean;
}

export interface Plan {
  wkt: Wkt | undefined;
  /**
   * A method's own `…Response` message (ListTasksResponse, ListTaskPushNotificationConfigsResponse,
   * …), not a resource like Task: the server builds it whole, so the HTTP bindings write each of
   * its fields, at its default value too (A10).
   */
  response: boolean;
  fields: FieldPlan[];
  byNo: (FieldPlan | undefined)[];
  supported: boolean;
}

const WKT: Record<string, Wkt> = {
  'google.protobuf.Struct': 'Struct',
  'google.protobuf.Value': 'Value',
  'google.protobuf.ListValue': 'ListValue',
  'google.protobuf.Timestamp': 'Timestamp',
  'google.protobuf.Empty': 'Empty',
};

const SCALARS: Partial<Record<ScalarType, FieldPlan['type']>> = {
  [ScalarType.STRING]: 'string',
  [ScalarType.BOOL]: 'bool',
  [ScalarType.INT32]: 'int32',
  [ScalarType.BYTES]: 'bytes',
};

const plans = new WeakMap<DescMessage, Plan>();
const enumNames = new WeakMap<DescEnum, { byName: Map<string, number>; byNo: Map<number, string> }>();

export function enumMaps(desc: DescEnum) {
  let maps = enumNames.get(desc);
  if (!maps) {
    maps = { byName: new Map(desc.values.map((v) => [v.name, v.number])), byNo: new Map(desc.values.map((v) => [v.number, v.name])) };
    enumNames.set(desc, maps);
  }
  return maps;
}

export function planOf(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (plan) return plan;
  plan = { wkt: WKT[desc.typeName], response: desc.name.endsWith('Response'), fields: [], byNo: [], supported: true };
  plans.set(desc, plan);
  if (plan.wkt) return plan;
  for (const field of desc.fields) {
    const scalar = field.fieldKind === 'scalar' || field.fieldKind === 'list' || field.fieldKind === 'map' ? field.scalar : undefined;
    const kind = field.fieldKind === 'list' ? field.listKind : field.fieldKind === 'map' ? field.mapKind : field.fieldKind;
    const type = kind === 'scalar' ? SCALARS[scalar as ScalarType] : kind;
    if (!type || (field.fieldKind === 'map' && field.mapKey !== ScalarType.STRING) || (field.fieldKind === 'list' && kind !== 'message' && type !== 'string')) {
      plan.supported = false;
      continue;
    }
    const fp: FieldPlan = {
      field,
      no: field.number,
      json: field.jsonName,
      proto: field.name,
      type,
      repeated: field.fieldKind === 'list',
      map: field.fieldKind === 'map',
      presence: field.proto.proto3Optional === true || field.oneof !== undefined,
      oneof: field.oneof?.fields.map((f) => f.jsonName),
      enumDesc: field.enum,
      message: field.message,
      required: getOption(field, field_behavior).includes(FieldBehavior.REQUIRED),
    };
    plan.fields.push(fp);
    plan.byNo[fp.no] = fp;
  }
  return plan;
}

const supportCache = new WeakMap<DescMessage, boolean>();

/** False when `desc` (or a message it contains) uses a type this codec does not handle. */
export function supported(desc: DescMessage): boolean {
  let ok = supportCache.get(desc);
  if (ok === undefined) {
    ok = supportedIn(desc, new Set());
    supportCache.set(desc, ok);
  }
  return ok;
}

function supportedIn(desc: DescMessage, seen: Set<DescMessage>): boolean {
  if (seen.has(desc)) return true;
  seen.add(desc);
  const plan = planOf(desc);
  return plan.supported && plan.fields.every((f) => !f.message || supportedIn(f.message, seen));
}


/** Timestamp range of ProtoJSON: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z. */
export const MIN_SECONDS = -62135596800;
export const MAX_SECONDS = 253402300799;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
