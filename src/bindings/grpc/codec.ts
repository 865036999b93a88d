/**
 * The gRPC codec: the eleven rpcs as they appear on the wire (derived from the generated
 * service descriptor, so names and paths cannot drift from proto/a2a.proto), and the
 * conversions between protobuf binary and the wire JSON (ProtoJSON) that the request handler
 * and the public types speak: the one-pass wireCodec (checked against protobuf-es), with
 * protobuf-es itself for any message it does not cover. Nothing here knows a field name.
 */
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { A2AService } from '../../gen/a2a_pb.js';
import { InvalidRequestError, ParseError, invalidField } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/types.js';
import { WireCodecError, supported } from './wireCodec.js';
import { decodeToJson, type DecodeOptions } from './wireDecode.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../server/http/jsonBody.js';
import { encodeJson } from './wireEncode.js';

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

/**
 * A received request → the ProtoJSON the request handler validates (implicit defaults omitted,
 * as protobuf-es `toJson` writes it). Bytes that are not the message are a ParseError; values
 * protobuf can carry but JSON cannot (a Timestamp out of range, a NaN in a Value) are a
 * validation error naming the field (OPS-03); nesting deeper than the JSON bindings allow
 * (32, R16) is an InvalidRequestError.
 */
export function requestToJson(desc: DescMessage, bytes: Uint8Array): JsonValue {
  return toWireJson(desc, bytes, { fillDefaults: false, maxDepth: DEFAULT_MAX_JSON_DEPTH });
}

/**
 * A received response → wire JSON as the HTTP bindings write it: ProtoJSON plus, at their
 * default value (which protobuf cannot tell from absent), the REQUIRED fields and every field of
 * a `…Response` message (A10: a ListTasksResponse has `tasks: []`, `nextPageToken: ""`,
 * `totalSize: 0` even when empty; a ListTaskPushNotificationConfigsResponse `configs: []` and
 * `nextPageToken: ""`).
 */
export function responseToJson(desc: DescMessage, bytes: Uint8Array): JsonValue {
  return toWireJson(desc, bytes, { fillDefaults: true, maxDepth: 1000 });
}

function toWireJson(desc: DescMessage, bytes: Uint8Array, options: DecodeOptions): JsonValue {
  if (!supported(desc)) {
    let message;
    try {
      message = fromBinary(desc, bytes);
    } catch {
      throw new ParseError(`Not a valid ${desc.typeName} protobuf message`);
    }
    try {
      return toJson(desc, message);
    } catch (error) {
      throw invalidField('(root)', `has no valid JSON form: ${error instanceof Error ? error.message.slice(0, 200) : 'invalid value'}`);
    }
  }
  try {
    return decodeToJson(desc, bytes, options) as JsonValue;
  } catch (error) {
    if (!(error instanceof WireCodecError)) throw error;
    if (error.kind === 'malformed') throw new ParseError(`Not a valid ${desc.typeName} protobuf message`);
    if (error.kind === 'depth') throw new InvalidRequestError(`Request ${error.message}`);
    throw invalidField(error.path || '(root)', error.message.slice(error.path.length).trim() || 'is invalid');
  }
}

/** Wire JSON → binary; throws WireCodecError (or a protobuf-es error) for JSON that does not fit. */
export function jsonToBinary(desc: DescMessage, json: unknown): Buffer {
  if (supported(desc)) return encodeJson(desc, json);
  return asBuffer(toBinary(desc, fromJson(desc, json as JsonValue, { ignoreUnknownFields: true })));
}

/** A Buffer view of `bytes` without copying (grpc-js frames Buffers). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** PEM text or bytes (certificates, keys) as the Buffer grpc-js credentials take, without copying bytes. */
export function pemBuffer(value: string | Uint8Array): Buffer {
  return typeof value === 'string' ? Buffer.from(value) : asBuffer(value);
}
