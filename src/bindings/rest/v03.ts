/**
 * A2A 0.3 HTTP+JSON (issue 9): the 0.3 routes (`/v1/message:send`, `/v1/tasks/{id}`, …,
 * V03_REST_ROUTES) under the REST base, for requests without A2A-Version (or with `0.3`) when
 * 0.3 compat is on. Bodies are read in the 0.3 proto-JSON dialect the 0.3 SDKs send over REST
 * (or the JSON-RPC dialect), answered in the proto-JSON dialect, and run through the same
 * handler calls as JSON-RPC 0.3 (../compat03.ts). Errors: the JSON-RPC error object as the body
 * (`{code, message, data}`, what the 0.3 JS SDK reads) with our HTTP status.
 */
import { httpAuthFailure } from '../../auth/authErrors.js';
import { restErrorToV03 } from '../../compat/errors.js';
import { matchV03RestRoute, v03RestParams, type V03RestMatch } from '../../compat/methods.js';
import { pushCreateBodyFromProto03, sendParamsFromProto03, streamEventToProto03, unaryResultToProto03 } from '../../compat/protoJson03.js';
import { InvalidRequestError, MethodNotFoundError } from '../../protocol/errors.js';
import type { HttpRequest, HttpResponse } from '../../server/http/httpTypes.js';
import { observed } from '../../server/callObserver.js';
import type { CallContext } from '../../server/requestHandler.js';
import { parseJson } from '../../server/http/jsonBody.js';
import { SSE_HEADERS, sseBody } from '../../server/http/sse.js';
import type { BindingContext } from '../bindingContext.js';
import { streamItemToV03, streamV03, unaryV03, type V03Request } from '../compat03.js';
import { matchRoute } from './routes.js';
import { pathSegments, restQuery } from './percentDecoding.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

function errorReply(error: unknown, binding: BindingContext, ctx?: CallContext): HttpResponse {
  const e = binding.report(error, undefined, ctx);
  const { status, body } = restErrorToV03(e);
  const auth = httpAuthFailure(e);
  return { status, headers: auth ? { ...JSON_HEADERS, ...auth.headers } : JSON_HEADERS, body: JSON.stringify(body) };
}

/** Where no 0.3 route matches: 405, a 1.0 route asked as 0.3 (→ the 1.0 binding's refusal), or 404. */
export function isV10RestPath(method: string, path: string): boolean {
  try {
    return matchRoute(method, pathSegments(path)).kind !== 'notFound';
  } catch {
    return false;
  }
}

/** With no version, everything under `/v1` is a 0.3 path (not tenant `v1`, docs/compat.md). */
const V03_PATH = /^\/v1(?:[/:]|$)/;

/** Whether `path` (relative to the REST base) is under `/v1`, so answered as 0.3 without a version. */
export function isV03RestPath(path: string): boolean {
  return V03_PATH.test(path);
}

/**
 * `path` is relative to the REST base URL. Undefined when the path is not a 0.3 path (not under
 * `/v1`: the caller decides); a `/v1` path no 0.3 route has is 404 METHOD_NOT_FOUND, one that
 * a 0.3 route has with another HTTP method 405, both in the 0.3 error shape.
 */
export async function handleRestV03(req: HttpRequest, path: string, binding: BindingContext): Promise<HttpResponse | undefined> {
  const { match, pathMatched } = matchV03RestRoute(req.method, path);
  if (!match) {
    if (!pathMatched) {
      return isV03RestPath(path) ? errorReply(new MethodNotFoundError(`No A2A 0.3 operation at ${req.method} ${path.slice(0, 200)}`), binding) : undefined;
    }
    const allow = ['GET', 'HEAD', 'POST', 'DELETE'].filter((m) => matchV03RestRoute(m, path).match).join(', ');
    return { status: 405, headers: { ...JSON_HEADERS, allow }, body: JSON.stringify({ code: -32600, message: `Use ${allow} for this path` }) };
  }
  let ctx: CallContext | undefined;
  try {
    ctx = binding.callContext(req, {}, 'HTTP+JSON');
    await binding.authenticate(req, ctx, match.route.operation);
    const params = v03RestParams(match, { query: restQuery(req), body: await requestBody(req, match, binding) });
    const call = { method: match.route.method, params };
    if (match.route.streaming) {
      const items = await streamV03(binding, call, ctx);
      return {
        status: 200,
        headers: binding.headersFor(SSE_HEADERS, ctx),
        body: sseBody(
          items,
          {
            data: (item) => JSON.stringify(streamEventToProto03(streamItemToV03(item.event))),
            error: (error) => JSON.stringify(restErrorToV03(binding.report(error)).body),
          },
          binding.limits.heartbeatMs,
        ).abortWhen(ctx),
      };
    }
    const status = match.route.successStatus;
    const body = await unaryAnswer(binding, { match, request: call }, ctx);
    if (body === undefined) return { status, headers: binding.responseHeaders(ctx) };
    return { status, headers: binding.headersFor(JSON_HEADERS, ctx), body };
  } catch (error) {
    return errorReply(error, binding, ctx);
  }
}

async function requestBody(req: HttpRequest, match: V03RestMatch, binding: BindingContext): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const text = await req.text(binding.limits.maxBodyBytes);
  if (text.trim() === '') {
    if (match.route.params === 'body' || match.route.params === 'push-create') throw new InvalidRequestError('The request body must be a JSON object');
    return undefined;
  }
  const body = parseJson(text, binding.limits.maxJsonDepth);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError('The request body must be a JSON object');
  if (match.route.params === 'body') return sendParamsFromProto03(body);
  if (match.route.params === 'push-create') return { pushNotificationConfig: pushCreateBodyFromProto03(body) };
  return body;
}

/**
 * The body of a unary answer (none for a 204), encoded inside the call's observation: an answer
 * that cannot be written is reported to onCall as the error the client receives.
 */
function unaryAnswer(binding: BindingContext, call: { match: V03RestMatch; request: V03Request }, ctx: CallContext): Promise<string | undefined> {
  const { match } = call;
  return observed(binding.handler, { operation: match.route.operation, ctx }, async () => {
    const result = await unaryV03(binding, call.request, ctx);
    return match.route.successStatus === 204 ? undefined : JSON.stringify(resultToProto(match, result));
  });
}

function resultToProto(match: V03RestMatch, result: unknown): unknown {
  return unaryResultToProto03(match.route.method, result) ?? result;
}
