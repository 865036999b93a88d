/**
 * What a failed PostgreSQL call means for the caller. A value PostgreSQL cannot hold in text is
 * the client's input (InvalidParamsError); a lost or refused connection — the server restarting
 * or failing over — is StoreUnavailableError, which the bindings answer as a retryable
 * UNAVAILABLE (HTTP 503, gRPC UNAVAILABLE, R19) and a run's writes retry until their lease
 * deadline (R2, R24). Everything else is thrown as it is.
 */
import { InvalidParamsError, StoreUnavailableError } from '../../protocol/errors.js';

/** Socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * SQLSTATE 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
 * shutting down); class 08 is connection exceptions.
 */
const SERVER_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);

/** node-postgres says these without a code when the socket closes under a query or a connect. */
const DRIVER_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Connection terminated unexpectedly)/;

/** True for a failure of the connection to PostgreSQL, not of the statement: nothing can be assumed written or not. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  // A pool connect that failed for several addresses (localhost: ::1 and 127.0.0.1).
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(isConnectionFailure);
  return DRIVER_MESSAGES.test(error.message);
}

/**
 * Rethrows a failed call as what it means: SQLSTATE 22021 "invalid byte sequence" and 22P05
 * "untranslatable character" (a value such as U+0000, which the decoder already refuses in
 * identifiers) as invalid params, not a store failure; a connection failure as
 * StoreUnavailableError; anything else unchanged.
 */
export function storeFailure(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '22021' || code === '22P05') {
    throw new InvalidParamsError('Invalid parameters: a value contains a character that cannot be stored (such as U+0000)', { cause: error });
  }
  if (isConnectionFailure(error)) throw StoreUnavailableError.from(error);
  throw error;
}
