/**
 * JSON-RPC 2.0 binding (§9): envelope checks with exact codes (RPC-06, R19), method dispatch
 * to the request handler, SSE for the streaming methods with a full JSON-RPC response in each
 * `data:` (RPC-07). Every JSON-RPC answer is HTTP 200 except transport refusals (B6) and
 * authentication failures: HTTP 401/403 with WWW-Authenticate and a JSON-RPC error body (B7).
 *
 * A2A 0.3 (issue 9, `binding.compat03`): a request without A2A-Version (or with `0.3`) calling a
 * 0.3 method (`message/send`, …) is translated to the same handler call (../compat03.ts) and
 * answered in the 0.3 dialect: bare results with `kind`, `final` on status updates, errors with
 * a `data` object (errorToV03). Version and method name must agree (docs/compat.md). A 0.3
 * stream refused before its first event is one SSE error event (0.3 SDK practice), not STREAM-12.
 */
import { httpAuthFailure } from '../../auth/authErrors.js';
import { jsonRpcMethodDialect, responseDialect, type Dialect } from '../../compat/detect.js';
import { errorToV03 } from '../../compat/errors.js';
import { isV03Method } from '../../compat/methods.js';
import { InvalidRequestError, MethodNotFoundError, type A2AError } from '../../protocol/errors.js';
import { operationByRpc } from '../../protocol/operations.js';
import type { StreamingOperationName, UnaryOperationName } from '../../protocol/types.js';
import type { HttpRequest, HttpResponse } from '../../server/http/httpTypes.js';
import { parseJson } from '../../server/http/jsonBody.js';
import { SSE_HEADERS, sseBody, sseErrorEvent, type SseFormat } from '../../server/http/sse.js';
import { observed } from '../../server/callObserver.js';
import type { CallContext } from '../../server/requestHandler.js';
import type { StreamItem } from '../../server/taskStream.js';
import { versionSignals, type BindingContext } from '../bindingContext.js';
import { isV03Streaming, streamItemToV03, streamV03, unaryV03, v03Operation } from '../compat03.js';
import { jsonRpcErrorResponse, toJsonRpcError, type JsonRpcErrorObject, type JsonRpcId } from './errors.js';
import { httpLimitFailure } from '../../server/limits.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

function reply(status: number, body: string, extra?: Record<string, string>): HttpResponse {
  return { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, body };
}

export async function handleJsonRpc(req: HttpRequest, binding: BindingContext): Promise<HttpResponse> {
  if (req.method !== 'POST') {
    return reply(405, jsonRpcErrorResponse(null, new InvalidRequestError('JSON-RPC requests must use POST')), { allow: 'POST' });
  }
  let id: JsonRpcId = null;
  // The dialect errors are answered in: until the method is known, the version asked for (no
  // version = 0.3, when 0.3 is served), then the method's (digest §5.1 step 3).
  let dialect: Dialect = binding.compat03 ? responseDialect(versionSignals(req)) : '1.0';
  /** The operation, once known: it goes to onError with a failure. */
  let operation: string | undefined;
  /** The call's context, once made: an error then ends the call's observation (BindingContext.report). */
  let ctx: CallContext | undefined;
  try {
    const body = parseJson(await req.text(binding.limits.maxBodyBytes), binding.limits.maxJsonDepth);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new InvalidRequestError(Array.isArray(body) ? 'Batch requests are not supported' : 'The request must be a JSON object');
    }
    const envelope = body as Record<string, unknown>;
    if (typeof envelope.id === 'string' || (typeof envelope.id === 'number' && Number.isFinite(envelope.id))) id = envelope.id;
    else throw new InvalidRequestError('The request needs an "id" that is a string or a number');
    // An integer beyond 2^53 was rounded by JSON.parse: echoing it would answer another id (RPC-09).
    if (typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id)) {
      id = null;
      throw new InvalidRequestError('A numeric "id" must be an integer of at most 2^53 - 1 in magnitude; use a string for larger ids');
    }
    if (envelope.jsonrpc !== '2.0') throw new InvalidRequestError('"jsonrpc" must be "2.0"');
    if (typeof envelope.method !== 'string') throw new InvalidRequestError('"method" must be a string');
    const params = envelope.params;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      throw new InvalidRequestError('"params" must be an object');
    }
    // VER-05/06: the version is negotiated before the method is looked up, so a 0.3 request
    // (no header) gets VersionNotSupported rather than MethodNotFound when 0.3 is not served.
    // With 0.3 served, a 1.0 method name without A2A-Version (= 0.3) is refused the same way
    // (strict, docs/compat.md), and answered in the 1.0 shape; a 0.3 method name with an
    // explicit 1.x version is an unknown 1.0 method (-32601), as before.
    const v10Name = binding.compat03 && jsonRpcMethodDialect(envelope.method) === '1.0';
    if (v10Name) dialect = '1.0';
    ctx = binding.callContext(req, { structure: v10Name ? '1.0' : undefined }, 'JSONRPC');
    if (ctx.protocolVersion === '0.3') {
      dialect = '0.3';
      return await handleV03({ req, method: envelope.method, params, id, ctx }, binding);
    }
    dialect = '1.0';
    const op = operationByRpc(envelope.method);
    if (!op) {
      const hint = binding.compat03 && isV03Method(envelope.method) ? ' (an A2A 0.3 method: send it without A2A-Version, or with 0.3)' : '';
      throw new MethodNotFoundError(`Method ${JSON.stringify(envelope.method.slice(0, 100))} not found${hint}`);
    }
    operation = op.name;
    await binding.authenticate(req, ctx, op.name);
    const requestId = id;
    if (op.streaming) {
      const items = await binding.handler.stream(op.name as StreamingOperationName, params, ctx);
      return {
        status: 200,
        headers: binding.headersFor(SSE_HEADERS, ctx),
        body: sseBody(items, new JsonRpcFrames(requestId, binding, op.name), binding.limits.heartbeatMs).abortWhen(ctx),
      };
    }
    const answer = await unaryAnswer(binding, { op: op.name as UnaryOperationName, params, id: requestId }, ctx);
    return { status: 200, headers: binding.unaryHeaders(JSON_HEADERS, ctx, op.name), body: answer };
  } catch (error) {
    return errorReply(binding.report(error, operation ? { operation } : undefined, ctx), { id, dialect });
  }
}

function errorObject(error: A2AError, dialect: Dialect): JsonRpcErrorObject {
  return dialect === '0.3' ? errorToV03(error) : toJsonRpcError(error);
}

/** The HTTP status of an error answer: 401/403 and 429 with their headers, 413, else 200 (B6, B7). */
function httpStatusOf(e: A2AError): { status: number; headers?: Record<string, string> } {
  return httpAuthFailure(e) ?? httpLimitFailure(e) ?? { status: e.reason === 'PAYLOAD_TOO_LARGE' ? 413 : 200 };
}

function errorReply(e: A2AError, to: { id: JsonRpcId; dialect: Dialect }): HttpResponse {
  const body = JSON.stringify({ jsonrpc: '2.0', id: to.id, error: errorObject(e, to.dialect) });
  const { status, headers } = httpStatusOf(e);
  return reply(status, body, headers);
}

/** A 0.3 call (negotiated version 0.3): translated, run by the same handler, answered in 0.3. */
async function handleV03(
  call: { req: HttpRequest; method: string; params: unknown; id: JsonRpcId; ctx: CallContext },
  binding: BindingContext,
): Promise<HttpResponse> {
  const { req, method, params, id, ctx } = call;
  if (!isV03Method(method)) throw new MethodNotFoundError(`Method ${JSON.stringify(method.slice(0, 100))} not found`);
  await binding.authenticate(req, ctx, v03Operation(method));
  if (isV03Streaming(method)) {
    let items: AsyncIterable<StreamItem>;
    try {
      items = await streamV03(binding, { method, params }, ctx);
    } catch (error) {
      return v03StreamRefusal(binding.report(error, { operation: v03Operation(method) }, ctx), { id, ctx }, binding);
    }
    return {
      status: 200,
      headers: binding.headersFor(SSE_HEADERS, ctx),
      body: sseBody(items, new JsonRpcFramesV03(id, binding), binding.limits.heartbeatMs).abortWhen(ctx),
    };
  }
  const body = await observed(binding.handler, { operation: v03Operation(method), ctx }, async () => resultResponse(id, await unaryV03(binding, { method, params }, ctx)));
  return { status: 200, headers: binding.headersFor(JSON_HEADERS, ctx), body };
}

/** A JSON-RPC success response. */
function resultResponse(id: JsonRpcId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`;
}

/**
 * The response to a unary 1.0 call, encoded inside the call's observation: an answer that cannot
 * be written is reported to onCall as the error the client receives.
 */
function unaryAnswer(binding: BindingContext, call: { op: UnaryOperationName; params: unknown; id: JsonRpcId }, ctx: CallContext): Promise<string> {
  return observed(binding.handler, { operation: call.op, ctx }, async () => resultResponse(call.id, await binding.handler.unary(call.op, call.params, ctx)));
}

/**
 * A 0.3 stream refused before its first event (unknown task, resubscribe to a finished task, bad
 * params, …). A2A 0.3 has no STREAM-12: the 0.3 SDK server answers such a call as a stream, 200
 * `text/event-stream` with one `event: error` whose data is the JSON-RPC error response, and the
 * 0.3 SDK client reads only that (a plain JSON answer is an untyped "Invalid response
 * Content-Type" there). Errors with an HTTP status of their own (401/403, 413, 429) keep it and
 * their JSON body, like envelope errors (answered before the method is known).
 */
function v03StreamRefusal(e: A2AError, to: { id: JsonRpcId; ctx: CallContext }, binding: BindingContext): HttpResponse {
  if (httpStatusOf(e).status !== 200) return errorReply(e, { id: to.id, dialect: '0.3' });
  const frame = JSON.stringify({ jsonrpc: '2.0', id: to.id, error: errorToV03(e) });
  return { status: 200, headers: binding.headersFor(SSE_HEADERS, to.ctx), body: sseErrorEvent(frame) };
}

/** RPC-07: each SSE `data:` is a full JSON-RPC response carrying the request id (a class: no closures per stream). */
class JsonRpcFrames implements SseFormat {
  constructor(
    protected readonly id: JsonRpcId,
    protected readonly binding: BindingContext,
    protected readonly operation?: string,
  ) {}

  data(item: StreamItem): string {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":${JSON.stringify(item.event)}}`;
  }

  error(error: unknown): string {
    return jsonRpcErrorResponse(this.id, this.binding.report(error, this.operation ? { operation: this.operation } : undefined));
  }
}

/** The same in the 0.3 dialect: 0.3 stream results, 0.3 error objects. */
class JsonRpcFramesV03 extends JsonRpcFrames {
  override data(item: StreamItem): string {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":${JSON.stringify(streamItemToV03(item.event))}}`;
  }

  override error(error: unknown): string {
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, error: errorToV03(this.binding.report(error)) });
  }
}
