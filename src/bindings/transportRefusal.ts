/**
 * Errors answered before any binding reads the request: by the host (a request Node cannot
 * parse, headers or URL too large, a body that does not arrive in time) and by the CORS
 * preflight. They keep their own HTTP status, as the transport refusals of the bindings do (B6:
 * 405, 413), and carry ErrorInfo like every other error: on the JSON-RPC endpoint as a JSON-RPC
 * error response with `id: null` (the request was never read), elsewhere as an HTTP+JSON error.
 */
import { A2AError, InvalidRequestError, PayloadTooLargeError } from '../protocol/errors.js';
import type { GrpcStatusName } from '../protocol/errorTable.js';
import type { HostRefusal, HttpResponse } from '../server/http/httpTypes.js';
import { jsonRpcErrorResponse } from './jsonrpc/errors.js';
import { toRestError } from './rest/errors.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** `refusal` as an answer: the JSON-RPC shape when `jsonRpc` (the request's path is the JSON-RPC endpoint), else HTTP+JSON. */
export function transportRefusal(refusal: HostRefusal, jsonRpc: boolean): HttpResponse {
  const body = jsonRpc ? jsonRpcErrorResponse(null, refusal.error) : JSON.stringify(toRestError(refusal.error, refusal.status, refusal.grpcStatus).body);
  return { status: refusal.status, headers: JSON_HEADERS, body };
}

const HOST_REFUSALS: Record<string, () => { status: number; error: A2AError; grpcStatus?: GrpcStatusName }> = {
  HPE_HEADER_OVERFLOW: () => ({ status: 431, error: new PayloadTooLargeError('Request headers or URL too large') }),
  ERR_HTTP_REQUEST_TIMEOUT: () => ({ status: 408, error: new InvalidRequestError('Request not received in time'), grpcStatus: 'DEADLINE_EXCEEDED' }),
};

/** What the Node host answers for a client error of node:http (its `code`): 431, 408, else 400 malformed HTTP. */
export function hostRefusal(code: string | undefined, path: string | undefined): HostRefusal {
  const refusal = HOST_REFUSALS[code ?? '']?.() ?? { status: 400, error: new InvalidRequestError('Malformed HTTP request') };
  return path === undefined ? refusal : { ...refusal, path };
}

/** The CORS preflight of an origin that is not allowed. */
export function crossOriginRefusal(path: string): HostRefusal {
  return { status: 403, error: new A2AError('PERMISSION_DENIED', 'Cross-origin requests are not allowed'), path };
}
