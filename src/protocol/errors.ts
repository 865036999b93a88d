/**
 * Errors are data: one class per condition the specification names, each with its ErrorInfo
 * `reason`. How a condition looks on each binding (JSON-RPC code, HTTP status, gRPC status) is
 * one row of `ERROR_TABLE` (errorTable.ts); no class knows about bindings.
 */

export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
const BRAND = Symbol.for('a2a-kit.A2AError');

export type A2AErrorReason =
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'EXTENSION_SUPPORT_REQUIRED'
  | 'VERSION_NOT_SUPPORTED'
  // The standard JSON-RPC conditions, which every binding also needs a name for.
  | 'PARSE_ERROR'
  | 'INVALID_REQUEST'
  | 'METHOD_NOT_FOUND'
  | 'INVALID_PARAMS'
  | 'INTERNAL'
  // Transport-level conditions a server must report in the binding's format.
  | 'PAYLOAD_TOO_LARGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNAVAILABLE';

/** One `google.rpc.BadRequest.FieldViolation`. */
export interface FieldViolation {
  field: string;
  description: string;
}

export interface A2AErrorOptions {
  metadata?: Record<string, string>;
  fieldViolations?: FieldViolation[];
  cause?: unknown;
}

/** Base class of every error the protocol can carry. */
export class A2AError extends Error {
  readonly reason: A2AErrorReason;
  /** ErrorInfo.metadata: a string-to-string map. */
  readonly metadata: Record<string, string>;
  readonly fieldViolations: FieldViolation[];

  constructor(reason: A2AErrorReason, message: string, options: A2AErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.metadata = options.metadata ?? {};
    this.fieldViolations = options.fieldViolations ?? [];
    Object.defineProperty(this, BRAND, { value: true });
  }

  override get name(): string {
    return this.constructor.name;
  }

  /** True for A2AError instances, also across copies of this package. */
  static is(value: unknown): value is A2AError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export class TaskNotFoundError extends A2AError {
  constructor(message = 'Task not found', options?: A2AErrorOptions) {
    super('TASK_NOT_FOUND', message, options);
  }
}
export class TaskNotCancelableError extends A2AError {
  constructor(message = 'Task cannot be canceled', options?: A2AErrorOptions) {
    super('TASK_NOT_CANCELABLE', message, options);
  }
}
export class PushNotificationNotSupportedError extends A2AError {
  constructor(message = 'Push notifications are not supported by this agent', options?: A2AErrorOptions) {
    super('PUSH_NOTIFICATION_NOT_SUPPORTED', message, options);
  }
}
export class UnsupportedOperationError extends A2AError {
  constructor(message = 'This operation is not supported', options?: A2AErrorOptions) {
    super('UNSUPPORTED_OPERATION', message, options);
  }
}
export class ContentTypeNotSupportedError extends A2AError {
  constructor(message = 'Content type not supported', options?: A2AErrorOptions) {
    super('CONTENT_TYPE_NOT_SUPPORTED', message, options);
  }
}
export class InvalidAgentResponseError extends A2AError {
  constructor(message = 'Invalid agent response', options?: A2AErrorOptions) {
    super('INVALID_AGENT_RESPONSE', message, options);
  }
}
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  constructor(message = 'Extended agent card is not configured', options?: A2AErrorOptions) {
    super('EXTENDED_AGENT_CARD_NOT_CONFIGURED', message, options);
  }
}
export class ExtensionSupportRequiredError extends A2AError {
  constructor(message = 'A required extension was not activated', options?: A2AErrorOptions) {
    super('EXTENSION_SUPPORT_REQUIRED', message, options);
  }
}
export class VersionNotSupportedError extends A2AError {
  constructor(message = 'Protocol version not supported', options?: A2AErrorOptions) {
    super('VERSION_NOT_SUPPORTED', message, options);
  }
}
export class ParseError extends A2AError {
  constructor(message = 'Invalid JSON payload', options?: A2AErrorOptions) {
    super('PARSE_ERROR', message, options);
  }
}
export class InvalidRequestError extends A2AError {
  constructor(message = 'Request payload validation error', options?: A2AErrorOptions) {
    super('INVALID_REQUEST', message, options);
  }
}
export class MethodNotFoundError extends A2AError {
  constructor(message = 'Method not found', options?: A2AErrorOptions) {
    super('METHOD_NOT_FOUND', message, options);
  }
}
export class InvalidParamsError extends A2AError {
  constructor(message = 'Invalid parameters', options?: A2AErrorOptions) {
    super('INVALID_PARAMS', message, options);
  }
}
export class InternalError extends A2AError {
  constructor(message = 'Internal error', options?: A2AErrorOptions) {
    super('INTERNAL', message, options);
  }
}
export class PayloadTooLargeError extends A2AError {
  constructor(message = 'Request body too large', options?: A2AErrorOptions) {
    super('PAYLOAD_TOO_LARGE', message, options);
  }
}

/** How long a client is asked to wait before retrying a call refused as UNAVAILABLE (ErrorInfo `retryAfterMs`). */
export const UNAVAILABLE_RETRY_AFTER_MS = 1000;

/**
 * The task store cannot be reached (a PostgreSQL restart or failover, a lost connection, SQLite
 * locked by another process past its busy timeout): nothing was written, and the same call may
 * succeed in a moment. UNAVAILABLE on every binding (HTTP 503 with Retry-After, gRPC
 * UNAVAILABLE), never INTERNAL (R19). Stores throw it for their connection-class failures, with
 * the driver's error as `cause`.
 */
export class StoreUnavailableError extends A2AError {
  constructor(message = 'The task store cannot be reached; retry later', options?: A2AErrorOptions) {
    super('UNAVAILABLE', message, options);
  }

  /** What a store throws for `cause` (the driver's error), asking clients to retry after UNAVAILABLE_RETRY_AFTER_MS. */
  static from(cause: unknown, message?: string): StoreUnavailableError {
    return new StoreUnavailableError(message, { cause, metadata: { retryAfterMs: String(UNAVAILABLE_RETRY_AFTER_MS) } });
  }
}

/** Turns anything thrown into an A2AError; unknown failures become InternalError without detail. */
export function toA2AError(error: unknown): A2AError {
  if (A2AError.is(error)) return error;
  return new InternalError('Internal error', { cause: error });
}

/** A validation failure naming one field. */
export function invalidField(field: string, description: string): InvalidParamsError {
  return new InvalidParamsError(`Invalid parameters: ${field} ${description}`, {
    fieldViolations: [{ field, description }],
  });
}
