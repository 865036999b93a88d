import {
  A2A_ERROR_DOMAIN,
  A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  PayloadTooLargeError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  type A2AErrorOptions,
  type A2AErrorReason,
} from './errors.js';

export type GrpcStatusName =
  | 'OK'
  | 'CANCELLED'
  | 'UNKNOWN'
  | 'INVALID_ARGUMENT'
  | 'DEADLINE_EXCEEDED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'FAILED_PRECONDITION'
  | 'ABORTED'
  | 'OUT_OF_RANGE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DATA_LOSS'
  | 'UNAUTHENTICATED';

export const GRPC_STATUS_CODES: Record<GrpcStatusName, number> = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

export interface ErrorRow {
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: GrpcStatusName;
  /** A2A errors (the spec's table) carry ErrorInfo with domain a2a-protocol.org. */
  a2a: boolean;
  create: (message: string | undefined, options: A2AErrorOptions) => A2AError;
}

/**
 * The A2A 1.0.1 mapping (spec §5.4 / digest §3.1) plus the standard JSON-RPC errors and the
 * transport conditions. docs/errors.md is generated from, and tested against, this table.
 */
export const ERROR_TABLE: Record<A2AErrorReason, ErrorRow> = {
  TASK_NOT_FOUND: { jsonRpcCode: -32001, httpStatus: 404, grpcStatus: 'NOT_FOUND', a2a: true, create: (m, o) => new TaskNotFoundError(m, o) },
  TASK_NOT_CANCELABLE: { jsonRpcCode: -32002, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new TaskNotCancelableError(m, o) },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { jsonRpcCode: -32003, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new PushNotificationNotSupportedError(m, o) },
  UNSUPPORTED_OPERATION: { jsonRpcCode: -32004, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new UnsupportedOperationError(m, o) },
  CONTENT_TYPE_NOT_SUPPORTED: { jsonRpcCode: -32005, httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: true, create: (m, o) => new ContentTypeNotSupportedError(m, o) },
  INVALID_AGENT_RESPONSE: { jsonRpcCode: -32006, httpStatus: 500, grpcStatus: 'INTERNAL', a2a: true, create: (m, o) => new InvalidAgentResponseError(m, o) },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { jsonRpcCode: -32007, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new ExtendedAgentCardNotConfiguredError(m, o) },
  EXTENSION_SUPPORT_REQUIRED: { jsonRpcCode: -32008, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new ExtensionSupportRequiredError(m, o) },
  VERSION_NOT_SUPPORTED: { jsonRpcCode: -32009, httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true, create: (m, o) => new VersionNotSupportedError(m, o) },
  PARSE_ERROR: { jsonRpcCode: -32700, httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false, create: (m, o) => new ParseError(m, o) },
  INVALID_REQUEST: { jsonRpcCode: -32600, httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false, create: (m, o) => new InvalidRequestError(m, o) },
  METHOD_NOT_FOUND: { jsonRpcCode: -32601, httpStatus: 404, grpcStatus: 'UNIMPLEMENTED', a2a: false, create: (m, o) => new MethodNotFoundError(m, o) },
  INVALID_PARAMS: { jsonRpcCode: -32602, httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false, create: (m, o) => new InvalidParamsError(m, o) },
  INTERNAL: { jsonRpcCode: -32603, httpStatus: 500, grpcStatus: 'INTERNAL', a2a: false, create: (m, o) => new InternalError(m, o) },
  PAYLOAD_TOO_LARGE: { jsonRpcCode: -32600, httpStatus: 413, grpcStatus: 'RESOURCE_EXHAUSTED', a2a: false, create: (m, o) => new PayloadTooLargeError(m, o) },
  UNAUTHENTICATED: { jsonRpcCode: -32000, httpStatus: 401, grpcStatus: 'UNAUTHENTICATED', a2a: false, create: (m, o) => new A2AError('UNAUTHENTICATED', m ?? 'Unauthenticated', o) },
  PERMISSION_DENIED: { jsonRpcCode: -32000, httpStatus: 403, grpcStatus: 'PERMISSION_DENIED', a2a: false, create: (m, o) => new A2AError('PERMISSION_DENIED', m ?? 'Permission denied', o) },
  RESOURCE_EXHAUSTED: { jsonRpcCode: -32000, httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED', a2a: false, create: (m, o) => new A2AError('RESOURCE_EXHAUSTED', m ?? 'Resource exhausted', o) },
  UNAVAILABLE: { jsonRpcCode: -32000, httpStatus: 503, grpcStatus: 'UNAVAILABLE', a2a: false, create: (m, o) => new A2AError('UNAVAILABLE', m ?? 'Unavailable', o) },
};

/** The domain used in ErrorInfo for conditions that are not A2A errors. */
export const KIT_ERROR_DOMAIN = 'a2a-kit';

const REASON_BY_JSON_RPC_CODE = new Map<number, A2AErrorReason>();
for (const [reason, row] of Object.entries(ERROR_TABLE) as [A2AErrorReason, ErrorRow][]) {
  // First row wins, so -32600 maps back to INVALID_REQUEST and -32000 to UNAUTHENTICATED.
  if (!REASON_BY_JSON_RPC_CODE.has(row.jsonRpcCode)) REASON_BY_JSON_RPC_CODE.set(row.jsonRpcCode, reason);
}

export function reasonForJsonRpcCode(code: number): A2AErrorReason | undefined {
  return REASON_BY_JSON_RPC_CODE.get(code);
}

export function isKnownReason(reason: string): reason is A2AErrorReason {
  return Object.prototype.hasOwnProperty.call(ERROR_TABLE, reason);
}

/** The google.rpc detail objects (`@type`d, ProtoJSON Any form) describing an error. */
export function errorDetails(error: A2AError): Record<string, unknown>[] {
  const row = ERROR_TABLE[error.reason];
  const details: Record<string, unknown>[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.reason,
      domain: row.a2a ? A2A_ERROR_DOMAIN : KIT_ERROR_DOMAIN,
      ...(Object.keys(error.metadata).length > 0 ? { metadata: error.metadata } : {}),
    },
  ];
  if (error.fieldViolations.length > 0) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: error.fieldViolations });
  }
  return details;
}

/** Rebuilds a typed error from a reason, message and the wire details (client side). */
export function errorFromDetails(
  fallback: A2AErrorReason,
  message: string | undefined,
  details: unknown,
): A2AError {
  let reason = fallback;
  let metadata: Record<string, string> | undefined;
  let fieldViolations: { field: string; description: string }[] | undefined;
  if (Array.isArray(details)) {
    for (const d of details) {
      if (typeof d !== 'object' || d === null) continue;
      const detail = d as Record<string, unknown>;
      const type = detail['@type'];
      if (type === 'type.googleapis.com/google.rpc.ErrorInfo' && typeof detail.reason === 'string') {
        if (isKnownReason(detail.reason)) reason = detail.reason;
        if (typeof detail.metadata === 'object' && detail.metadata !== null) metadata = detail.metadata as Record<string, string>;
      } else if (type === 'type.googleapis.com/google.rpc.BadRequest' && Array.isArray(detail.fieldViolations)) {
        fieldViolations = detail.fieldViolations as { field: string; description: string }[];
      }
    }
  }
  const options: A2AErrorOptions = {};
  if (metadata) options.metadata = metadata;
  if (fieldViolations) options.fieldViolations = fieldViolations;
  return ERROR_TABLE[reason].create(message, options);
}
