/**
 * The HTTP+JSON error body (§11.6) read back into a typed A2AError: the client side of
 * errors.ts, apart so that a client does not load the server's status columns (ERROR_TABLE).
 */
import type { A2AError } from '../../protocol/errors.js';
import { errorFromDetails } from '../../protocol/errorReasons.js';
import type { GrpcStatusName } from '../../protocol/errorTable.js';

export interface RestErrorBody {
  error: { code: number; status: string; message: string; details?: unknown[] };
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
