/** JSON-RPC error objects (§9.5): code from ERROR_TABLE, `data` an array of google.rpc details. */
import { toA2AError, type A2AError } from '../../protocol/errors.js';
import { ERROR_TABLE, errorDetails, errorFromDetails, reasonForJsonRpcCode } from '../../protocol/errorTable.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export function toJsonRpcError(error: unknown): JsonRpcErrorObject {
  const e = toA2AError(error);
  return { code: ERROR_TABLE[e.reason].jsonRpcCode, message: e.message, data: errorDetails(e) };
}

export function jsonRpcErrorResponse(id: JsonRpcId, error: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(error) });
}

/** Client side: a JSON-RPC error object back to a typed A2AError. */
export function fromJsonRpcError(error: JsonRpcErrorObject): A2AError {
  const reason = reasonForJsonRpcCode(error.code) ?? 'INTERNAL';
  return errorFromDetails(reason, error.message, error.data);
}
