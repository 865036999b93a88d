/** HTTP+JSON errors (§11.6): `{"error":{code,status,message,details}}`, code = HTTP status. */
import { toA2AError, type A2AError } from '../../protocol/errors.js';
import { ERROR_TABLE, errorDetails, errorFromDetails, type GrpcStatusName } from '../../protocol/errorTable.js';

export interface RestErrorBody {
  error: { code: number; status: string; message: string; details?: unknown[] };
}

/**
 * `httpStatus` replaces the table's HTTP status (and so `error.code`) for the transport refusals
 * that have their own: 405 for a wrong method (InvalidRequestError, docs/errors.md).
 */
export function toRestError(error: unknown, httpStatus?: number): { status: number; body: RestErrorBody } {
  const e = toA2AError(error);
  const row = ERROR_TABLE[e.reason];
  const status = httpStatus ?? row.httpStatus;
  return {
    status,
    body: { error: { code: status, status: row.grpcStatus, message: e.message, details: errorDetails(e) } },
  };
}

/**
 * Fallbacks for a body without ErrorInfo. A2A errors always carry one over HTTP+JSON (REST-07;
 * the @a2a-js/sdk REST server sends TASK_NOT_FOUND with it too), so a bare NOT_FOUND is a path
 * the server does not serve (digest B11, a wrong base URL), never a missing task.
 */
const REASON_BY_STATUS: Partial<Record<GrpcStatusName, A2AError['reason']>> = {
  INVALID_ARGUMENT: 'INVALID_PARAMS',
  NOT_FOUND: 'METHOD_NOT_FOUND',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  UNIMPLEMENTED: 'UNSUPPORTED_OPERATION',
};

/** Client side: a REST error body back to a typed A2AError (ErrorInfo.reason decides). */
export function fromRestError(body: RestErrorBody): A2AError {
  const fallback = REASON_BY_STATUS[body.error.status as GrpcStatusName] ?? 'INTERNAL';
  return errorFromDetails(fallback, body.error.message, body.error.details);
}
