import { A2A_ERROR_DOMAIN, type A2AError, type A2AErrorReason } from './errors.js';
import { ERROR_REASONS, type ErrorReason } from './errorReasons.js';

export { errorFromDetails, isKnownReason, reasonForJsonRpcCode } from './errorReasons.js';

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

export interface ErrorRow extends ErrorReason {
  httpStatus: number;
  grpcStatus: GrpcStatusName;
  /** A2A errors (the spec's table) carry ErrorInfo with domain a2a-protocol.org. */
  a2a: boolean;
}

/** The statuses and domain of each reason, joined with its JSON-RPC code and class (errorReasons.ts) into ERROR_TABLE. */
const SERVER_COLUMNS: Record<A2AErrorReason, Omit<ErrorRow, keyof ErrorReason>> = {
  TASK_NOT_FOUND: { httpStatus: 404, grpcStatus: 'NOT_FOUND', a2a: true },
  TASK_NOT_CANCELABLE: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  UNSUPPORTED_OPERATION: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  CONTENT_TYPE_NOT_SUPPORTED: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: true },
  INVALID_AGENT_RESPONSE: { httpStatus: 500, grpcStatus: 'INTERNAL', a2a: true },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  EXTENSION_SUPPORT_REQUIRED: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  VERSION_NOT_SUPPORTED: { httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION', a2a: true },
  PARSE_ERROR: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false },
  INVALID_REQUEST: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false },
  METHOD_NOT_FOUND: { httpStatus: 404, grpcStatus: 'UNIMPLEMENTED', a2a: false },
  INVALID_PARAMS: { httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT', a2a: false },
  INTERNAL: { httpStatus: 500, grpcStatus: 'INTERNAL', a2a: false },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, grpcStatus: 'RESOURCE_EXHAUSTED', a2a: false },
  UNAUTHENTICATED: { httpStatus: 401, grpcStatus: 'UNAUTHENTICATED', a2a: false },
  PERMISSION_DENIED: { httpStatus: 403, grpcStatus: 'PERMISSION_DENIED', a2a: false },
  RESOURCE_EXHAUSTED: { httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED', a2a: false },
  UNAVAILABLE: { httpStatus: 503, grpcStatus: 'UNAVAILABLE', a2a: false },
};

function joinColumns(): Record<A2AErrorReason, ErrorRow> {
  const table = {} as Record<A2AErrorReason, ErrorRow>;
  for (const [reason, row] of Object.entries(ERROR_REASONS) as [A2AErrorReason, ErrorReason][]) table[reason] = { ...row, ...SERVER_COLUMNS[reason] };
  return table;
}

/**
 * The A2A 1.0.1 mapping (spec §5.4 / digest §3.1) plus the standard JSON-RPC errors and the
 * transport conditions. docs/errors.md is generated from, and tested against, this table.
 */
export const ERROR_TABLE: Record<A2AErrorReason, ErrorRow> = /* @__PURE__ */ joinColumns();

/** The domain used in ErrorInfo for conditions that are not A2A errors. */
export const KIT_ERROR_DOMAIN = 'a2a-kit';

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
