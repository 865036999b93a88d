/**
 * What the HTTP transports share: sending with fetch (never following redirects), reading JSON
 * up to a size limit, turning a failed response into a typed error (status and Retry-After
 * recorded for retries), and reading an event stream into StreamItems; for HTTP+JSON (1.0 and
 * A2A 0.3 REST), sending a request below the interface URL and reading its body or event stream.
 */
import { readCappedResponse } from '../net/cappedRead.js';
import { ERROR_REASONS } from '../protocol/errorReasons.js';
import { invalidField, type A2AError, type A2AErrorReason } from '../protocol/errors.js';
import { echoedExtensions } from '../protocol/serviceParams.js';
import type { StreamResponse } from '../protocol/types.js';
import { A2AClientError, notSent, withResponse } from './errors.js';
import { isRedirect, redirectError } from './redirects.js';
import { abortError } from './signals.js';
import { readSse, SseParser, type SseEvent, type SseReadOptions } from './sse.js';
import type { FetchLike, StreamItem, TransportCall } from './transport.js';

/** A request URL, and the same URL as error messages show it (the credentials in its query masked). */
export interface Target {
  url: string;
  shown: string;
}

/**
 * One request. Redirects are never followed (`redirect: 'manual'`): a redirect comes back as the
 * response, so that credentials, caller headers and bodies never go where a server points
 * (redirects.ts). A failure to connect is NETWORK, naming `shown`.
 */
export async function send(fetch: FetchLike, target: string | Target, init: RequestInit): Promise<Response> {
  const { url, shown } = typeof target === 'string' ? { url: target, shown: target } : target;
  try {
    return await fetch(url, { ...init, redirect: 'manual' });
  } catch (error) {
    // An aborted signal is not a network failure: TIMEOUT for AbortSignal.timeout(), else ABORTED.
    if (init.signal?.aborted) throw abortError(init.signal.reason, error);
    throw new A2AClientError('NETWORK', `Could not reach ${shown}`, { cause: error });
  }
}

/** One call's HTTP request. */
export interface CallRequest {
  call: TransportCall;
  method: string;
  /** The transport's headers (content type, accept), under the call's own. */
  defaults: Record<string, string>;
  body?: string | undefined;
}

/**
 * Sends a call to `url` with its headers, extra query parameters and signal, and records on
 * the call the extensions the response echoes as activated (EXT-05). Every HTTP transport
 * (JSON-RPC and HTTP+JSON, A2A 1.0 and 0.3) sends its calls through here.
 */
export async function sendCall(fetch: FetchLike, url: string, { call, method, defaults, body }: CallRequest): Promise<Response> {
  const headers = new Headers(defaults);
  call.headers.forEach((value, name) => headers.set(name, value));
  // R23: the query parameters of the call are credentials (an API key): error messages show them as ***.
  const masked = new URLSearchParams([...call.query.keys()].map((name) => [name, '***']));
  const target = { url: withQuery(url, call.query), shown: withQuery(url, masked) };
  const res = await send(fetch, target, { method, headers, ...(body === undefined ? {} : { body }), signal: call.signal });
  call.activatedExtensions = echoedExtensions((name) => res.headers.get(name));
  return res;
}

/**
 * `path` below the interface URL, ahead of the URL's own query string, which is kept (an
 * Azure Functions `?code=KEY`: `…/api/a2a?code=KEY` + `/tasks/t1` → `…/api/a2a/tasks/t1?code=KEY`).
 * The fragment, never sent, is dropped.
 */
export function below(base: string, path: string): string {
  const url = base.split('#', 1)[0] as string;
  const q = url.indexOf('?');
  const [head, query] = q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q)];
  return head.replace(/\/+$/, '') + path + query;
}

/** `query` added to `url`, after the query string it may already have. */
export function withQuery(url: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${url}${url.includes('?') ? '&' : '?'}${q}` : url;
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new A2AClientError('INVALID_RESPONSE', `The agent sent ${what} that is not JSON`, { cause: error });
  }
}

/** Default ClientOptions.maxResponseBytes: the largest response body read (16 MiB, as maxEventSize). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The largest error body read (a non-2xx answer); a larger one is ignored and the status speaks. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The size limit of response bodies (TransportContext.maxResponseBytes). */
export interface ResponseLimits {
  maxResponseBytes?: number | undefined;
}

/** The body as text, or undefined past `maxBytes` (not downloaded further); read errors are thrown. */
export async function readCappedText(res: Response, maxBytes: number): Promise<string | undefined> {
  const bytes = await readCappedResponse(res, maxBytes);
  return bytes && new TextDecoder().decode(bytes);
}

/** The JSON body of a response, read up to `maxResponseBytes` (a larger one is INVALID_RESPONSE, which is not retried). */
export async function readJson(res: Response, limits: ResponseLimits = {}): Promise<unknown> {
  const maxBytes = limits.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let text: string | undefined;
  try {
    text = await readCappedText(res, maxBytes);
  } catch (error) {
    throw new A2AClientError('NETWORK', 'The response was interrupted', { cause: error });
  }
  if (text === undefined) {
    throw new A2AClientError('INVALID_RESPONSE', `The response is larger than maxResponseBytes (${maxBytes} bytes)`, { status: res.status });
  }
  return parseJson(text, 'a response');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Conditions that commonly arrive without an A2A body (B7, B13). */
const REASON_BY_STATUS: Record<number, A2AErrorReason> = { 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED' };

/**
 * What a non-2xx answer without an A2A error body is: a typed error for 401/403/429, else
 * A2AClientError HTTP, its message the status and `detail` (the status text). The gRPC
 * transport reads an answer that is not gRPC (a proxy's page) with it too.
 */
export function statusError(status: number, detail = ''): A2AError | A2AClientError {
  const reason = REASON_BY_STATUS[status];
  return reason ? ERROR_REASONS[reason].create(undefined, {}) : new A2AClientError('HTTP', `HTTP ${status}${detail ? ` ${detail}` : ''}`, { status });
}

/**
 * A non-2xx response as an error: a redirect as A2AClientError HTTP (never followed); else the
 * binding's error body when it has one (`decode`; bodies over 64 KiB are not read), else
 * statusError. Status and Retry-After are recorded.
 */
export async function errorFromResponse(res: Response, decode: (body: unknown) => Error | undefined): Promise<Error> {
  if (isRedirect(res)) return redirectError(res, { code: 'HTTP', what: 'The agent' });
  let body: unknown;
  try {
    body = JSON.parse((await readCappedText(res, MAX_ERROR_BODY_BYTES)) ?? '');
  } catch {
    body = undefined;
  }
  const error: Error = decode(body) ?? statusError(res.status, res.statusText);
  const retryAfterMs = retryAfter(res.headers.get('retry-after'));
  return withResponse(error, retryAfterMs === undefined ? { status: res.status } : { status: res.status, retryAfterMs });
}

/** Retry-After as delta-seconds or an HTTP date, in ms from now. */
export function retryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * The events of an SSE response; `decode` turns one SSE event into a StreamResponse or throws
 * its error; `limits` bound the size of an event and the silence of a heartbeating server
 * (TransportContext.maxEventSize, streamIdleMs).
 */
export async function* streamItems(res: Response, decode: (event: SseEvent) => StreamResponse, limits?: SseReadOptions): AsyncGenerator<StreamItem> {
  if (!res.body) throw new A2AClientError('INVALID_RESPONSE', 'The event stream has no body');
  for await (const sse of readSse(res.body, new SseParser(limits), limits?.streamIdleMs)) {
    const event = decode(sse);
    yield sse.id ? { event, id: sse.id } : { event };
  }
}

/** The HTTP+JSON media type (§11). */
export const A2A_JSON = 'application/a2a+json';

/** Decodes a binding's error body, or undefined when the body is not one. */
export type ErrorDecoder = (body: unknown) => Error | undefined;

/** One HTTP+JSON request below the interface URL. */
export interface RestRequest {
  method: string;
  /** Path below the interface URL, without the query. */
  path: string;
  query?: URLSearchParams;
  /** JSON body (POST). */
  body?: unknown;
  accept: string;
  /** Content type of the body (default application/a2a+json). */
  contentType?: string;
}

// ---- HTTP+JSON (1.0 and A2A 0.3 REST) ----

/** Sends `request` below `base` (`below`), as sendCall sends. */
export function sendRest(fetch: FetchLike, base: string, { call, request }: { call: TransportCall; request: RestRequest }): Promise<Response> {
  const hasBody = request.body !== undefined;
  return sendCall(fetch, withQuery(below(base, request.path), request.query ?? new URLSearchParams()), {
    call,
    method: request.method,
    defaults: hasBody ? { 'content-type': request.contentType ?? A2A_JSON, accept: request.accept } : { accept: request.accept },
    body: hasBody ? JSON.stringify(request.body) : undefined,
  });
}

/**
 * A path parameter as one URL path segment. `.` and `..` cannot be one: URL parsers (fetch's
 * among them) read them, and their escapes `%2E` / `%2E%2E`, as steps up the path, so the
 * request would reach another route. Such a value is refused before anything is sent.
 */
export function pathSegment(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw notSent(invalidField(field, 'is required'));
  if (value === '.' || value === '..') throw notSent(invalidField(field, `"${value}" cannot be sent in an HTTP+JSON URL path (it is a path step); use another binding`));
  return encodeURIComponent(value);
}

/** The JSON body of a unary response (undefined for 204 No Content), or its error thrown. */
export async function restBody(res: Response, errorOf: ErrorDecoder, limits: ResponseLimits): Promise<unknown> {
  if (!res.ok) throw await errorFromResponse(res, errorOf);
  return res.status === 204 ? undefined : readJson(res, limits);
}

/** How a streaming call's opening response is read (see openEventStream). */
export interface StreamOpening {
  errorOf: ErrorDecoder;
  /** Throws the error a JSON body in place of the stream carries (JSON-RPC, STREAM-12). */
  bodyError?: (body: unknown) => void;
  limits: ResponseLimits;
}

/**
 * Checks that a streaming call got an event stream: a non-2xx response is thrown as the
 * binding's error; a JSON response in place of the stream is given to `bodyError`, which throws
 * the error it carries (JSON-RPC, STREAM-12); anything else is INVALID_RESPONSE.
 */
export async function openEventStream(res: Response, { errorOf, bodyError, limits }: StreamOpening): Promise<void> {
  if (!res.ok) throw await errorFromResponse(res, errorOf);
  if (isEventStream(res)) return;
  bodyError?.(await readJson(res, limits));
  throw new A2AClientError('INVALID_RESPONSE', 'The agent answered a streaming call without an event stream');
}

/** One SSE event's JSON; B9: an error body (`event: error`) is thrown as the binding's error. */
export function restEventBody(sse: SseEvent, { errorOf, status }: { errorOf: ErrorDecoder; status: number }): unknown {
  const body = parseJson(sse.data, 'an event');
  const error = errorOf(body);
  if (error) throw withResponse(error, { status });
  if (sse.event === 'error') throw new A2AClientError('INVALID_RESPONSE', `The agent streamed an unreadable error: ${sse.data.slice(0, 200)}`);
  return body;
}

// ---- JSON-RPC (1.0 and A2A 0.3) ----

/** JSON-RPC request ids: unique within the process, so no two requests of a client share one. */
let nextRpcId = 1;

/** One JSON-RPC request: the call, its method and params (left out when undefined), and what it accepts. */
export interface JsonRpcPost {
  call: TransportCall;
  method: string;
  params: unknown;
  /** `application/json` for unary calls, `text/event-stream` for streams. */
  accept: string;
}

/** POSTs `method` to `url` as a JSON-RPC request (see sendCall): the response, and the id the request carried. */
export async function postJsonRpc(fetch: FetchLike, url: string, { call, method, params, accept }: JsonRpcPost): Promise<{ res: Response; id: number }> {
  const id = nextRpcId++;
  const res = await sendCall(fetch, url, {
    call,
    method: 'POST',
    defaults: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
  });
  return { res, id };
}

/**
 * RPC-09 (JSON-RPC 2.0 §5): a response carries the id of its request; an error response may
 * carry `null` (the server could not read the request's id). Anything else — another request's
 * id, or a result without an id — is INVALID_RESPONSE: it answers some other request. A body
 * that is no JSON-RPC response at all is left to the transport to refuse.
 */
export function checkResponseId(body: unknown, { id, status }: { id: number; status: number }): void {
  if (!isObject(body) || body.id === id) return;
  if ((body.id === null || body.id === undefined) && isObject(body.error)) return;
  const got = body.id === undefined ? 'no id' : `id ${JSON.stringify(body.id).slice(0, 100)}`;
  throw new A2AClientError('INVALID_RESPONSE', `The agent answered JSON-RPC request ${id} with ${got}`, { status });
}
