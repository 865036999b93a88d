/**
 * HTTP+JSON binding (§11): routes to operations, request fields from path, query and body
 * (REST-03..05), bare StreamResponse per SSE event (REST-08), google.rpc.Status errors
 * (REST-07). Responses use application/a2a+json; requests may use it or application/json.
 */
import { httpAuthFailure } from '../../auth/authErrors.js';
import { InvalidRequestError, MethodNotFoundError, invalidField } from '../../protocol/errors.js';
import { OPERATIONS, type OperationInfo } from '../../protocol/operations.js';
import type { StreamingOperationName, UnaryOperationName } from '../../protocol/types.js';
import type { HttpRequest, HttpResponse } from '../../server/http/httpTypes.js';
import { parseJson } from '../../server/http/jsonBody.js';
import { SSE_HEADERS, sseBody, type SseFormat } from '../../server/http/sse.js';
import { observed } from '../../server/callObserver.js';
import type { CallContext } from '../../server/requestHandler.js';
import type { StreamItem } from '../../server/taskStream.js';
import { asksForV03, type BindingContext } from '../bindingContext.js';
import { toRestError } from './errors.js';
import { matchRoute, type RestRoute } from './routes.js';
import { queryParams } from './queryParams.js';
import { pathSegments, restQuery } from './percentDecoding.js';
import { handleRestV03 } from './v03.js';
import { httpBackOff } from '../../server/limits.js';

export const REST_CONTENT_TYPE = 'application/a2a+json';
const JSON_HEADERS = { 'content-type': REST_CONTENT_TYPE };

/** `refusal`: a transport refusal's own HTTP status and headers (405 and its Allow). */
function errorResponse(error: unknown, refusal?: { status: number; headers: Record<string, string> }): HttpResponse {
  const { status, body } = toRestError(error, refusal?.status);
  // Authentication failures also carry their WWW-Authenticate challenges (ERR-05).
  // …and exceeded limits (R25) and an unreachable store (R19) their Retry-After.
  const extra = { ...(httpAuthFailure(error) ?? httpBackOff(error))?.headers, ...refusal?.headers };
  return { status, headers: { ...JSON_HEADERS, ...extra }, body: JSON.stringify(body) };
}

/** `path` is relative to the REST base URL. */
export async function handleRest(req: HttpRequest, path: string, binding: BindingContext): Promise<HttpResponse> {
  // A2A 0.3 (issue 9): no A2A-Version (or 0.3) on a 0.3 route (/v1/...) is served by ./v03.ts.
  // A 1.0 path without A2A-Version falls through and is refused by version negotiation below.
  if (binding.compat03 && asksForV03(req)) {
    const v03 = await handleRestV03(req, path, binding);
    if (v03) return v03;
  }
  let segments: string[];
  try {
    segments = pathSegments(path);
  } catch (error) {
    return errorResponse(error);
  }
  const match = matchRoute(req.method, segments);
  // B11, as docs/errors.md documents it: routing failures are errors with ErrorInfo like any other.
  if (match.kind === 'notFound') {
    return errorResponse(new MethodNotFoundError(`No A2A operation at ${req.method} ${path.slice(0, 200)}`));
  }
  if (match.kind === 'methodNotAllowed') {
    const allow = match.allow.join(', ');
    return errorResponse(new InvalidRequestError(`Use ${allow} for this path`), { status: 405, headers: { allow } });
  }
  let ctx: CallContext | undefined;
  try {
    // With 0.3 compat on, this is a 1.0-shaped request: it needs an explicit 1.x version.
    ctx = binding.callContext(req, { structure: '1.0' }, 'HTTP+JSON');
    await binding.authenticate(req, ctx, match.route.op);
    const params = await requestParams(req, match, binding);
    const op = OPERATIONS.get(match.route.op);
    if (op?.streaming) {
      const items = await binding.handler.stream(match.route.op as StreamingOperationName, params, ctx);
      return {
        status: 200,
        headers: binding.headersFor(SSE_HEADERS, ctx),
        body: sseBody(items, new RestFrames(binding, match.route.op), binding.limits.heartbeatMs).abortWhen(ctx),
      };
    }
    const body = await unaryAnswer(binding, { op: match.route.op as UnaryOperationName, params }, ctx);
    return { status: 200, headers: binding.unaryHeaders(JSON_HEADERS, ctx, match.route.op), body };
  } catch (error) {
    return errorResponse(binding.report(error, { operation: match.route.op }, ctx));
  }
}

/**
 * The body of a unary answer, encoded inside the call's observation: an answer that cannot be
 * written is reported to onCall as the error the client receives.
 */
function unaryAnswer(binding: BindingContext, call: { op: UnaryOperationName; params: unknown }, ctx: CallContext): Promise<string> {
  return observed(binding.handler, { operation: call.op, ctx }, async () => JSON.stringify(await binding.handler.unary(call.op, call.params, ctx)));
}

/** REST-08: each SSE `data:` is a bare StreamResponse; a mid-stream error is a google.rpc.Status body. */
class RestFrames implements SseFormat {
  constructor(
    private readonly binding: BindingContext,
    private readonly operation: string,
  ) {}

  data(item: StreamItem): string {
    return JSON.stringify(item.event);
  }

  error(error: unknown): string {
    return JSON.stringify(toRestError(this.binding.report(error, { operation: this.operation })).body);
  }
}

/** Builds the request message: body (POST), query (GET/DELETE), then path fields (B12). */
async function requestParams(
  req: HttpRequest,
  { route, fields }: { route: RestRoute; fields: Record<string, string> },
  binding: BindingContext,
): Promise<Record<string, unknown>> {
  let params: Record<string, unknown>;
  const query = restQuery(req);
  if (route.method === 'POST') {
    const text = await req.text(binding.limits.maxBodyBytes);
    if (text.trim() === '') {
      if (!route.emptyBodyOk) throw new InvalidRequestError('The request body must be a JSON object');
      params = {};
    } else {
      const body = parseJson(text, binding.limits.maxJsonDepth);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError('The request body must be a JSON object');
      params = body as Record<string, unknown>;
    }
  } else {
    params = queryParams(query, (OPERATIONS.get(route.op) as OperationInfo).request, binding.authenticator?.credentialQueryParams);
  }
  for (const [name, value] of Object.entries(fields)) {
    const given = params[name];
    // ProtoJSON (JSON-10): null, like an absent field or '', means unset, so it cannot differ.
    if (given !== undefined && given !== null && given !== '' && given !== value) {
      throw invalidField(name, `in the body (${JSON.stringify(String(given).slice(0, 64))}) differs from the path`);
    }
    params[name] = value;
  }
  return params;
}
