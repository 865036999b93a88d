/**
 * Errors between A2A 0.3 and 1.0 (digest §5.7). The JSON-RPC codes -32001…-32007 and the
 * standard ones mean the same in both; -32007 was called AuthenticatedExtendedCardNotConfigured
 * in 0.3. -32008 (ExtensionSupportRequired) and -32009 (VersionNotSupported) do not exist in
 * 0.3 and are sent anyway (the only sensible codes). 0.3 `data` is a free-form object, not the
 * 1.0 array of `@type`d details: we send `{reason, metadata?, fieldViolations?}` there, which
 * lets our own client restore the exact error, and read both forms back.
 */
import type { A2AError, A2AErrorReason } from '../protocol/errors.js';
import { ERROR_REASONS, errorFromDetails, isKnownReason, readFieldViolations, reasonForJsonRpcCode } from '../protocol/errorReasons.js';
import { ERROR_TABLE } from '../protocol/errorTable.js';
import { isObj } from './read.js';
import type { V03JsonRpcError } from './v03Types.js';

export function errorToV03(error: A2AError): V03JsonRpcError {
  const data: V03JsonRpcError['data'] = { reason: error.reason };
  if (Object.keys(error.metadata).length > 0) data.metadata = { ...error.metadata };
  if (error.fieldViolations.length > 0) data.fieldViolations = error.fieldViolations.map((v) => ({ field: v.field, description: v.description }));
  return { code: ERROR_TABLE[error.reason].jsonRpcCode, message: error.message, data };
}

/**
 * A 0.3 REST error response: the official 0.3 JS SDK sends the JSON-RPC error object as the
 * body (`{code, message, data?}`) and its client reads `code`; the status is our 1.0 table's.
 */
export function restErrorToV03(error: A2AError): { status: number; body: V03JsonRpcError } {
  return { status: ERROR_TABLE[error.reason].httpStatus, body: errorToV03(error) };
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isObj(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string' && k !== '__proto__') out[k] = v;
  return out;
}

/**
 * Client side: a 0.3 JSON-RPC error object (or 0.3 REST error body) as a typed error. The code
 * picks the class (unknown codes → InternalError); a `reason` in `data` (ours) refines it; a
 * 1.0-style `data` array of details is read too.
 */
export function errorFromV03(input: unknown): A2AError {
  const error = isObj(input) ? input : {};
  const code = typeof error.code === 'number' ? error.code : -32603;
  const message = typeof error.message === 'string' ? error.message : undefined;
  let reason: A2AErrorReason = reasonForJsonRpcCode(code) ?? 'INTERNAL';
  if (Array.isArray(error.data)) return errorFromDetails(reason, message, error.data);
  const data = isObj(error.data) ? error.data : {};
  if (typeof data.reason === 'string' && isKnownReason(data.reason) && ERROR_REASONS[data.reason].jsonRpcCode === code) reason = data.reason;
  const metadata = stringMap(data.metadata);
  const fieldViolations = readFieldViolations(data.fieldViolations);
  return ERROR_REASONS[reason].create(message, {
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(fieldViolations && fieldViolations.length > 0 ? { fieldViolations } : {}),
  });
}
