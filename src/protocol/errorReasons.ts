import {
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
  type FieldViolation,
} from './errors.js';

/**
 * What a client needs to rebuild a typed error from any binding's wire form: per reason, its
 * JSON-RPC code and its class. ERROR_TABLE (errorTable.ts) adds the HTTP and gRPC statuses and
 * the ErrorInfo domain that servers answer with, which a client never reads (and, bundled, does
 * not download).
 */
export interface ErrorReason {
  jsonRpcCode: number;
  create: (message: string | undefined, options: A2AErrorOptions) => A2AError;
}

export const ERROR_REASONS: Record<A2AErrorReason, ErrorReason> = {
  TASK_NOT_FOUND: { jsonRpcCode: -32001, create: (m, o) => new TaskNotFoundError(m, o) },
  TASK_NOT_CANCELABLE: { jsonRpcCode: -32002, create: (m, o) => new TaskNotCancelableError(m, o) },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { jsonRpcCode: -32003, create: (m, o) => new PushNotificationNotSupportedError(m, o) },
  UNSUPPORTED_OPERATION: { jsonRpcCode: -32004, create: (m, o) => new UnsupportedOperationError(m, o) },
  CONTENT_TYPE_NOT_SUPPORTED: { jsonRpcCode: -32005, create: (m, o) => new ContentTypeNotSupportedError(m, o) },
  INVALID_AGENT_RESPONSE: { jsonRpcCode: -32006, create: (m, o) => new InvalidAgentResponseError(m, o) },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { jsonRpcCode: -32007, create: (m, o) => new ExtendedAgentCardNotConfiguredError(m, o) },
  EXTENSION_SUPPORT_REQUIRED: { jsonRpcCode: -32008, create: (m, o) => new ExtensionSupportRequiredError(m, o) },
  VERSION_NOT_SUPPORTED: { jsonRpcCode: -32009, create: (m, o) => new VersionNotSupportedError(m, o) },
  PARSE_ERROR: { jsonRpcCode: -32700, create: (m, o) => new ParseError(m, o) },
  INVALID_REQUEST: { jsonRpcCode: -32600, create: (m, o) => new InvalidRequestError(m, o) },
  METHOD_NOT_FOUND: { jsonRpcCode: -32601, create: (m, o) => new MethodNotFoundError(m, o) },
  INVALID_PARAMS: { jsonRpcCode: -32602, create: (m, o) => new InvalidParamsError(m, o) },
  INTERNAL: { jsonRpcCode: -32603, create: (m, o) => new InternalError(m, o) },
  PAYLOAD_TOO_LARGE: { jsonRpcCode: -32600, create: (m, o) => new PayloadTooLargeError(m, o) },
  UNAUTHENTICATED: { jsonRpcCode: -32000, create: (m, o) => new A2AError('UNAUTHENTICATED', m ?? 'Unauthenticated', o) },
  PERMISSION_DENIED: { jsonRpcCode: -32000, create: (m, o) => new A2AError('PERMISSION_DENIED', m ?? 'Permission denied', o) },
  RESOURCE_EXHAUSTED: { jsonRpcCode: -32000, create: (m, o) => new A2AError('RESOURCE_EXHAUSTED', m ?? 'Resource exhausted', o) },
  UNAVAILABLE: { jsonRpcCode: -32000, create: (m, o) => new A2AError('UNAVAILABLE', m ?? 'Unavailable', o) },
};

const REASON_BY_JSON_RPC_CODE = new Map<number, A2AErrorReason>();
for (const [reason, row] of Object.entries(ERROR_REASONS) as [A2AErrorReason, ErrorReason][]) {
  // First row wins, so -32600 maps back to INVALID_REQUEST and -32000 to UNAUTHENTICATED.
  if (!REASON_BY_JSON_RPC_CODE.has(row.jsonRpcCode)) REASON_BY_JSON_RPC_CODE.set(row.jsonRpcCode, reason);
}

export function reasonForJsonRpcCode(code: number): A2AErrorReason | undefined {
  return REASON_BY_JSON_RPC_CODE.get(code);
}

export function isKnownReason(reason: string): reason is A2AErrorReason {
  return Object.prototype.hasOwnProperty.call(ERROR_REASONS, reason);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * BadRequest `fieldViolations` as received: the objects among them (anything else dropped),
 * with `field` and `description` as strings ('' when absent, as ProtoJSON leaves empty ones out).
 */
export function readFieldViolations(value: unknown): FieldViolation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return value.filter(isRecord).map((v) => ({ field: text(v.field), description: text(v.description) }));
}

/** Rebuilds a typed error from a reason, message and the wire details (client side). */
export function errorFromDetails(
  fallback: A2AErrorReason,
  message: string | undefined,
  details: unknown,
): A2AError {
  let reason = fallback;
  let metadata: Record<string, string> | undefined;
  let fieldViolations: FieldViolation[] | undefined;
  if (Array.isArray(details)) {
    for (const detail of details) {
      if (!isRecord(detail)) continue;
      const type = detail['@type'];
      if (type === 'type.googleapis.com/google.rpc.ErrorInfo' && typeof detail.reason === 'string') {
        if (isKnownReason(detail.reason)) reason = detail.reason;
        if (isRecord(detail.metadata)) metadata = detail.metadata as Record<string, string>;
      } else if (type === 'type.googleapis.com/google.rpc.BadRequest') {
        fieldViolations = readFieldViolations(detail.fieldViolations) ?? fieldViolations;
      }
    }
  }
  const options: A2AErrorOptions = {};
  if (metadata) options.metadata = metadata;
  if (fieldViolations) options.fieldViolations = fieldViolations;
  return ERROR_REASONS[reason].create(message, options);
}
