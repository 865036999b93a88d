/**
 * The JSON-RPC error object (§9.5) read back into a typed A2AError: the client side of
 * errors.ts, apart so that a client does not load the server's status columns (ERROR_TABLE).
 */
import type { A2AError } from '../../protocol/errors.js';
import { errorFromDetails, reasonForJsonRpcCode } from '../../protocol/errorReasons.js';

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Client side: a JSON-RPC error object back to a typed A2AError. */
export function fromJsonRpcError(error: JsonRpcErrorObject): A2AError {
  const reason = reasonForJsonRpcCode(error.code) ?? 'INTERNAL';
  return errorFromDetails(reason, error.message, error.data);
}
