/** HTTP+JSON errors (§11.6): `{"error":{code,status,message,details}}`, code = HTTP status. */
import { toA2AError } from '../../protocol/errors.js';
import { ERROR_TABLE, errorDetails, type GrpcStatusName } from '../../protocol/errorTable.js';
import type { RestErrorBody } from './errorBody.js';

export { fromRestError, type RestErrorBody } from './errorBody.js';

/**
 * `httpStatus` replaces the table's HTTP status (and so `error.code`) for the transport refusals
 * that have their own: 405 for a wrong method (InvalidRequestError, docs/errors.md), and those of
 * the host (../transportRefusal.ts), which may also name their own `grpcStatus` (408:
 * DEADLINE_EXCEEDED).
 */
export function toRestError(error: unknown, httpStatus?: number, grpcStatus?: GrpcStatusName): { status: number; body: RestErrorBody } {
  const e = toA2AError(error);
  const row = ERROR_TABLE[e.reason];
  const status = httpStatus ?? row.httpStatus;
  return {
    status,
    body: { error: { code: status, status: grpcStatus ?? row.grpcStatus, message: e.message, details: errorDetails(e) } },
  };
}
