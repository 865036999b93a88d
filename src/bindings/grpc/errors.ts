/**
 * gRPC errors (§10.6, GRPC-03): the status code from ERROR_TABLE, the message as grpc-message,
 * and a `google.rpc.Status` {code, message, details} in the `grpc-status-details-bin` trailer
 * whose details are the same ErrorInfo / BadRequest objects the other bindings carry, packed
 * as google.protobuf.Any. The client side turns them back into the typed A2AError classes.
 */
import { createRegistry, fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { BadRequestSchema, ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import { A2AError, toA2AError, type A2AErrorReason } from '../../protocol/errors.js';
import { ERROR_TABLE, GRPC_STATUS_CODES, errorDetails, errorFromDetails, type GrpcStatusName } from '../../protocol/errorTable.js';
import { A2AClientError, responseInfo, withResponse } from '../../client/errors.js';
import { statusError } from '../../client/http.js';
import { asBuffer } from './codec.js';

/** Trailing metadata key of the binary google.rpc.Status. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** Resolves the `@type` of the details (ProtoJSON Any form) to the generated schemas. */
const DETAILS_REGISTRY = createRegistry(ErrorInfoSchema, BadRequestSchema);

const STATUS_NAMES = new Map<number, GrpcStatusName>(
  (Object.entries(GRPC_STATUS_CODES) as [GrpcStatusName, number][]).map(([name, code]) => [code, name]),
);

export function grpcStatusName(code: number): GrpcStatusName {
  return STATUS_NAMES.get(code) ?? 'UNKNOWN';
}

/** What a grpc-js handler passes to its callback (or emits on a stream) to fail a call. */
export interface GrpcErrorStatus {
  code: number;
  details: string;
  metadata: Metadata;
}

/** Status codes that differ from ERROR_TABLE for some reasons (a service of another protocol version). */
export type GrpcStatusOverrides = Partial<Record<A2AErrorReason, GrpcStatusName>>;

function statusCodeOf(error: A2AError, overrides: GrpcStatusOverrides | undefined): number {
  return GRPC_STATUS_CODES[overrides?.[error.reason] ?? ERROR_TABLE[error.reason].grpcStatus];
}

/** The binary google.rpc.Status for an error: code, message, ErrorInfo (+ BadRequest). */
export function encodeStatus(error: A2AError, overrides?: GrpcStatusOverrides): Uint8Array {
  const code = statusCodeOf(error, overrides);
  const json = { code, message: error.message, details: errorDetails(error) as JsonValue[] };
  return toBinary(StatusSchema, fromJson(StatusSchema, json, { registry: DETAILS_REGISTRY }));
}

/** Server side: anything thrown → the status a grpc-js handler reports. */
export function toGrpcError(error: unknown, overrides?: GrpcStatusOverrides): GrpcErrorStatus {
  const e = toA2AError(error);
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, asBuffer(encodeStatus(e, overrides)));
  return { code: statusCodeOf(e, overrides), details: e.message, metadata };
}

export interface DecodedStatus {
  code: number;
  message: string;
  /** ProtoJSON Any objects, each with `@type` (unknown detail types keep only `@type`). */
  details: Record<string, unknown>[];
}

/** Decodes a `grpc-status-details-bin` value; undefined when it is not a google.rpc.Status. */
export function decodeStatus(bytes: Uint8Array): DecodedStatus | undefined {
  let status;
  try {
    status = fromBinary(StatusSchema, bytes);
  } catch {
    return undefined;
  }
  const details = status.details.map((any) => {
    try {
      return toJson(AnySchema, any, { registry: DETAILS_REGISTRY }) as Record<string, unknown>;
    } catch {
      // A detail type we do not know (DebugInfo, RetryInfo...): keep its identity only.
      return { '@type': any.typeUrl };
    }
  });
  return { code: status.code, message: status.message, details };
}

/** Statuses that still mean something in A2A terms when a server sends no ErrorInfo. */
const REASON_BY_STATUS: Partial<Record<GrpcStatusName, A2AErrorReason>> = {
  INVALID_ARGUMENT: 'INVALID_PARAMS',
  NOT_FOUND: 'TASK_NOT_FOUND',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  // grpc-js answers UNIMPLEMENTED for an rpc the server does not have.
  UNIMPLEMENTED: 'METHOD_NOT_FOUND',
  INTERNAL: 'INTERNAL',
  UNKNOWN: 'INTERNAL',
};

export function hasKnownErrorInfo(details: readonly Record<string, unknown>[]): boolean {
  return details.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' && typeof d.reason === 'string' && d.reason in ERROR_TABLE);
}

/** The status details of a failed call, decoded from its trailers (empty when absent or unreadable). */
export function statusDetailsOf(metadata: Metadata | undefined): DecodedStatus | undefined {
  const raw = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (raw === undefined || typeof raw === 'string') return undefined;
  return decodeStatus(raw);
}

/**
 * What an error read from a gRPC status stands for in HTTP terms, recorded for `responseInfo`
 * (src/client/errors.ts) as the HTTP transports record their response's: an A2AError gets the
 * HTTP status HTTP+JSON answers it with (ERROR_TABLE: UNAUTHENTICATED 401, PERMISSION_DENIED
 * 403, RESOURCE_EXHAUSTED 429, UNAVAILABLE 503, …) and, as Retry-After, its ErrorInfo
 * `retryAfterMs`. So the client renews a credential after UNAUTHENTICATED and retries a rate
 * limit or an unavailable store after the time asked for, as over HTTP. Other errors, and one
 * already recorded, are left as they are.
 */
export function withGrpcResponse<E extends Error>(error: E): E {
  if (!A2AError.is(error) || responseInfo(error) !== undefined) return error;
  const status = ERROR_TABLE[error.reason]?.httpStatus;
  if (status === undefined) return error;
  const retryAfterMs = Number(error.metadata.retryAfterMs ?? Number.NaN);
  return withResponse(error, Number.isFinite(retryAfterMs) && retryAfterMs >= 0 ? { status, retryAfterMs } : { status });
}

/** `error` with the grpc-js ServiceError as its cause (not enumerable: logs of the error stay short). */
function causedBy<E extends Error>(error: E, cause: ServiceError): E {
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return error;
}

/** grpc-js's words for an answer that had no gRPC status, only an HTTP one (a proxy's page, a wrong port). */
const HTTP_ANSWER = /^Received HTTP status code (\d{3})$/;

/** grpc-js's words for a stream reset before its status (a proxy's idle timeout, a dropped connection). */
const STREAM_RESET = /^Received RST_STREAM with code \d+/;

/**
 * A failure below gRPC, which grpc-js reports as a status of its own (no status details): an
 * HTTP answer that was not gRPC is what HTTP+JSON makes of the same answer (statusError: 401,
 * 403 and 429 typed, else HTTP with that status, recorded for responseInfo; a 2xx without a
 * gRPC status is INVALID_RESPONSE); a stream reset before its status is NETWORK, as a dropped
 * connection is, so streams are resumed and idempotent calls retried.
 */
function belowGrpc(error: ServiceError, message: string): A2AError | A2AClientError | undefined {
  const http = HTTP_ANSWER.exec(message);
  if (http) {
    const status = Number(http[1]);
    if (status < 300) return new A2AClientError('INVALID_RESPONSE', `The agent answered HTTP ${status} without a gRPC status`, { status });
    // No ServiceError as the cause: its gRPC code is grpc-js's guess from the HTTP status.
    return withResponse(statusError(status, '(not a gRPC answer: a wrong address or port, or a proxy in the way)'), { status });
  }
  if (error.code === GRPC_STATUS_CODES.INTERNAL && STREAM_RESET.test(message)) {
    return new A2AClientError('NETWORK', `The gRPC stream was cut before its status: ${message}`, { cause: error, status: error.code });
  }
  return undefined;
}

/**
 * Client side: a failed call → the typed A2AError its ErrorInfo.reason names (ERR-08), else the
 * A2AError its status implies (no ErrorInfo: a non-A2A server or a proxy), else a local
 * A2AClientError: NETWORK (UNAVAILABLE, CANCELLED by the peer, a stream reset before its
 * status), TIMEOUT (DEADLINE_EXCEEDED), HTTP with the HTTP status of an answer that was not
 * gRPC, or HTTP carrying the gRPC status code. A2AErrors carry their HTTP equivalent for
 * responseInfo (withGrpcResponse).
 */
export function fromGrpcError(error: ServiceError): A2AError | A2AClientError {
  const status = statusDetailsOf(error.metadata);
  const details = status?.details ?? [];
  const name = grpcStatusName(error.code);
  const message = error.details || status?.message || name;
  const below = status === undefined ? belowGrpc(error, message) : undefined;
  if (below) return below;
  // grpc-js, C-core and Go say "message larger than max", Java "exceeds maximum size" (R15).
  const tooLarge = name === 'RESOURCE_EXHAUSTED' && /larger than max|exceeds maximum size/i.test(message);
  const fallback = tooLarge ? 'PAYLOAD_TOO_LARGE' : REASON_BY_STATUS[name];
  if (hasKnownErrorInfo(details) || fallback !== undefined) {
    return withGrpcResponse(causedBy(errorFromDetails(fallback ?? 'INTERNAL', message, details), error));
  }
  switch (name) {
    case 'UNAVAILABLE':
    case 'CANCELLED':
      return new A2AClientError('NETWORK', `gRPC ${name}: ${message}`, { cause: error, status: error.code });
    case 'DEADLINE_EXCEEDED':
      return new A2AClientError('TIMEOUT', `gRPC ${name}: ${message}`, { cause: error, status: error.code });
    default:
      return new A2AClientError('HTTP', `gRPC ${name}: ${message}`, { cause: error, status: error.code });
  }
}
