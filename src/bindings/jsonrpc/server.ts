/**
 * JSON-RPC 2.0 binding (§9): envelope checks with exact codes (RPC-06, R19), method dispatch
 * to the request handler, SSE for the streaming methods with a full JSON-RPC response in each
 * `data:` (RPC-07). Every JSON-RPC answer is HTTP 200 except transport refusals (B6) and
 * authentication failures: HTTP 401/403 with WWW-Authenticate and a JSON-RPC error body (B7).
 */
import { httpAuthFailure } from '../../auth/authErrors.js';
import { A2AError, InvalidRequestError, MethodNotFoundError } from '../../protocol/errors.js';
import { operationByRpc } from '../../protocol/operations.js';
import type { StreamingOperationName, UnaryOperationName } from '../../protocol/types.js';
import type { HttpRequest, HttpResponse } from '../../server/http/httpTypes.js';
import { parseJson } from '../../server/http/jsonBody.js';
import { SSE_HEADERS, sseBody } from '../../server/http/sse.js';
import type { BindingContext } from '../bindingContext.js';
import { jsonRpcErrorResponse, toJsonRpcError, type JsonRpcId } from './errors.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

function reply(status: number, body: string, extra?: Record<string, string>): HttpResponse {
  return { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, body };
}

export async function handleJsonRpc(req: HttpRequest, binding: BindingContext): Promise<HttpResponse> {
  if (req.method !== 'POST') {
    return reply(405, jsonRpcErrorResponse(null, new InvalidRequestError('JSON-RPC requests must use POST')), { allow: 'POST' });
  }
  let id: JsonRpcId = null;
  try {
    const body = parseJson(await req.text(binding.limits.maxBodyBytes), binding.limits.maxJsonDepth);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new InvalidRequestError(Array.isArray(body) ? 'Batch requests are not supported' : 'The request must be a JSON object');
    }
    const envelope = body as Record<string, unknown>;
    if (typeof envelope.id === 'string' || (typeof envelope.id === 'number' && Number.isFinite(envelope.id))) id = envelope.id;
    else throw new InvalidRequestError('The request needs an "id" that is a string or a number');
    if (envelope.jsonrpc !== '2.0') throw new InvalidRequestError('"jsonrpc" must be "2.0"');
    if (typeof envelope.method !== 'string') throw new InvalidRequestError('"method" must be a string');
    const params = envelope.params;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      throw new InvalidRequestError('"params" must be an object');
    }
    // VER-05/06: the version is negotiated before the method is looked up, so a 0.3 request
    // (no header) for a 0.3 method name gets VersionNotSupported rather than MethodNotFound.
    const ctx = binding.callContext(req);
    const op = operationByRpc(envelope.method);
    if (!op) throw new MethodNotFoundError(`Method ${JSON.stringify(envelope.method.slice(0, 100))} not found`);
    await binding.authenticate(req, ctx, op.name);
    const requestId = id;
    if (op.streaming) {
      const items = await binding.handler.stream(op.name as StreamingOperationName, params, ctx);
      return {
        status: 200,
        headers: { ...SSE_HEADERS, ...binding.responseHeaders(ctx) },
        body: sseBody(items, {
          data: (item) => `{"jsonrpc":"2.0","id":${JSON.stringify(requestId)},"result":${JSON.stringify(item.event)}}`,
          error: (error) => jsonRpcErrorResponse(requestId, binding.report(error)),
          heartbeatMs: binding.limits.heartbeatMs,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        }),
      };
    }
    const result = await binding.handler.unary(op.name as UnaryOperationName, params, ctx);
    return reply(200, `{"jsonrpc":"2.0","id":${JSON.stringify(requestId)},"result":${JSON.stringify(result)}}`, binding.responseHeaders(ctx));
  } catch (error) {
    const e = binding.report(error);
    const auth = httpAuthFailure(e);
    if (auth) return reply(auth.status, JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(e) }), auth.headers);
    const status = A2AError.is(e) && e.reason === 'PAYLOAD_TOO_LARGE' ? 413 : 200;
    return reply(status, JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(e) }));
  }
}
