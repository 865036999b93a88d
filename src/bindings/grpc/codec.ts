/**
 * The gRPC codec: the eleven rpcs as they appear on the wire (derived from the generated
 * service descriptor, so names and paths cannot drift from proto/a2a.proto), and the
 * conversions between protobuf binary and the wire JSON (ProtoJSON) that the request handler
 * and the public types speak. protobuf-es does all encoding; nothing here knows a field name.
 */
import { ScalarType, fromBinary, fromJson, getOption, toBinary, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../../gen/google/api/field_behavior_pb.js';
import { A2AService } from '../../gen/a2a_pb.js';
import { ParseError, invalidField } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/types.js';

/** Request metadata carrying the last event a resuming client saw (as SSE Last-Event-ID, R7). */
export const LAST_EVENT_ID_KEY = 'last-event-id';
/**
 * Response metadata of a stream: the sequence number of its first event. Events of one stream
 * are consecutive, so event i has id first + i; a client resumes with `last-event-id`.
 */
export const FIRST_EVENT_ID_KEY = 'a2a-kit-first-event-id';

/** Default message size limit, both directions (R15). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface GrpcMethod {
  /** camelCase operation name (handler, client, CLI). */
  op: OperationName;
  /** The proto rpc name, e.g. SendMessage. */
  rpc: string;
  /** `/lf.a2a.v1.A2AService/SendMessage`. */
  path: string;
  input: DescMessage;
  output: DescMessage;
  streaming: boolean;
}

/** Fully qualified service name: lf.a2a.v1.A2AService. */
export const GRPC_SERVICE_NAME = A2AService.typeName;

export const GRPC_METHODS: readonly GrpcMethod[] = A2AService.methods.map((m) => ({
  op: m.localName as OperationName,
  rpc: m.name,
  path: `/${A2AService.typeName}/${m.name}`,
  input: m.input,
  output: m.output,
  streaming: m.methodKind === 'server_streaming',
}));

export const GRPC_METHOD_BY_OP: ReadonlyMap<OperationName, GrpcMethod> = new Map(GRPC_METHODS.map((m) => [m.op, m]));

/** Binary → protobuf-es message; bytes that are not a valid `desc` are the caller's fault. */
export function decodeBinary(desc: DescMessage, bytes: Uint8Array): Message {
  try {
    return fromBinary(desc, bytes);
  } catch {
    throw new ParseError(`The request is not a valid ${desc.typeName} protobuf message`);
  }
}

/**
 * Message → ProtoJSON (implicit defaults omitted). Values that have no JSON form (a Timestamp
 * out of range, a NaN in a Value) become a validation error naming the field (OPS-03).
 */
export function messageToJson(desc: DescMessage, message: Message): JsonValue {
  try {
    return toJson(desc, message, { alwaysEmitImplicit: false });
  } catch (error) {
    const field = unencodableField(desc, message, '') ?? '(root)';
    throw invalidField(field, `has no valid JSON form: ${error instanceof Error ? error.message.slice(0, 200) : 'invalid value'}`);
  }
}

/**
 * A received message → wire JSON as the HTTP bindings write it: ProtoJSON, plus REQUIRED fields
 * at their default value, which protobuf cannot tell from absent (A10: a ListTasksResponse has
 * `tasks: []`, `nextPageToken: ""`, `totalSize: 0` even when empty).
 */
export function responseToJson(desc: DescMessage, message: Message): JsonValue {
  const json = messageToJson(desc, message);
  fillRequired(desc, json as Record<string, unknown>);
  return json;
}

interface RequiredPlan {
  /** REQUIRED scalar, enum, list and map fields with their JSON default. */
  defaults: [string, unknown][];
  /** Message-typed fields to descend into (not the well-known types). */
  nested: DescField[];
}

const requiredPlans = new WeakMap<DescMessage, RequiredPlan>();

function requiredPlan(desc: DescMessage): RequiredPlan {
  let plan = requiredPlans.get(desc);
  if (plan) return plan;
  plan = { defaults: [], nested: [] };
  for (const field of desc.fields) {
    const message = field.fieldKind === 'message' ? field.message : field.fieldKind === 'list' || field.fieldKind === 'map' ? field.message : undefined;
    if (message && !message.typeName.startsWith('google.protobuf.')) plan.nested.push(field);
    if (field.oneof || !getOption(field, field_behavior).includes(FieldBehavior.REQUIRED)) continue;
    const value = jsonDefault(field);
    if (value !== undefined) plan.defaults.push([field.jsonName, value]);
  }
  requiredPlans.set(desc, plan);
  return plan;
}

function jsonDefault(field: DescField): unknown {
  switch (field.fieldKind) {
    case 'list':
      return [];
    case 'map':
      return {};
    case 'enum':
      return field.enum.values[0]?.name;
    case 'scalar':
      if (field.scalar === ScalarType.BOOL) return false;
      return field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES ? '' : 0;
    default:
      // A missing REQUIRED message is the sender's bug; nothing sensible to invent.
      return undefined;
  }
}

function fillRequired(desc: DescMessage, json: Record<string, unknown>): void {
  const plan = requiredPlan(desc);
  for (const [name, value] of plan.defaults) {
    if (json[name] === undefined) json[name] = Array.isArray(value) ? [] : typeof value === 'object' ? {} : value;
  }
  for (const field of plan.nested) {
    const value = json[field.jsonName];
    if (value === undefined || field.message === undefined) continue;
    if (field.fieldKind === 'list') for (const item of value as Record<string, unknown>[]) fillRequired(field.message, item);
    else if (field.fieldKind === 'map') for (const item of Object.values(value as Record<string, Record<string, unknown>>)) fillRequired(field.message, item);
    else fillRequired(field.message, value as Record<string, unknown>);
  }
}

/** ProtoJSON → binary; throws protobuf-es errors for JSON that does not fit `desc`. */
export function jsonToBinary(desc: DescMessage, json: unknown): Uint8Array {
  return toBinary(desc, fromJson(desc, json as JsonValue, { ignoreUnknownFields: true }));
}

/** A Buffer view of `bytes` without copying (grpc-js frames Buffers). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

type Fields = Record<string, unknown>;

/** The JSON path of the first field whose value toJson cannot encode (slow path, errors only). */
function unencodableField(desc: DescMessage, message: Message, path: string): string | undefined {
  for (const field of desc.fields) {
    const value = fieldValue(field, message as unknown as Fields);
    if (value === undefined) continue;
    const at = path ? `${path}.${field.jsonName}` : field.jsonName;
    switch (field.fieldKind) {
      case 'message': {
        const bad = unencodableValue(field.message, value as Message, at);
        if (bad) return bad;
        break;
      }
      case 'list':
        if (field.listKind !== 'message') break;
        for (const [i, item] of (value as Message[]).entries()) {
          const bad = unencodableValue(field.message, item, `${at}[${i}]`);
          if (bad) return bad;
        }
        break;
      case 'map':
        if (field.mapKind !== 'message') break;
        for (const [key, item] of Object.entries(value as Record<string, Message>)) {
          const bad = unencodableValue(field.message, item, `${at}.${key}`);
          if (bad) return bad;
        }
        break;
      default:
        break;
    }
  }
  return undefined;
}

function unencodableValue(desc: DescMessage, value: Message, path: string): string | undefined {
  if (desc.typeName.startsWith('google.protobuf.')) {
    try {
      toJson(desc, value);
      return undefined;
    } catch {
      return path;
    }
  }
  return unencodableField(desc, value, path);
}

function fieldValue(field: DescField, message: Fields): unknown {
  if (field.oneof) {
    const selected = message[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
    return selected?.case === field.localName ? selected.value : undefined;
  }
  return message[field.localName];
}
