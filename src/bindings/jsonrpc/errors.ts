/** JSON-RPC error objects (§9.5): code from ERROR_TABLE, `data` an array of google.rpc details. */
import { toA2AError } from '../../protocol/errors.js';
import { ERROR_TABLE, errorDetails } from '../../protocol/errorTable.js';
import type { JsonRpcErrorObject } from './errorObject.js';

export { fromJsonRpcError, type JsonRpcErrorObject } from './errorObject.js';

export type JsonRpcId = string | number | null;

export function toJsonRpcError(error: unknown): JsonRpcErrorObject {
  const e = toA2AError(error);
  return { code: ERROR_TABLE[e.reason].jsonRpcCode, message: e.message, data: errorDetails(e) };
}

export function jsonRpcErrorResponse(id: JsonRpcId, error: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(error) });
}
