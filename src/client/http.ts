/**
 * What the HTTP transports share: sending with fetch, reading JSON, turning a failed
 * response into a typed error (status and Retry-After recorded for retries), and reading an
 * event stream into StreamItems; for HTTP+JSON (1.0 and A2A 0.3 REST), sending a request below
 * the interface URL and reading its body or event stream.
 */
import { ERROR_REASONS } from '../protocol/errorReasons.js';
import type { A2AErrorReason } from '../protocol/errors.js';
import { echoedExtensions } from '../protocol/serviceParams.js';
import type { StreamResponse } from '../protocol/types.js';
import { A2AClientError, withResponse } from './errors.js';
import { abortError } from './signals.js';
import { readSse, SseParser, type SseEvent, type SseParserOptions } from './sse.js';
import type { FetchLike, StreamItem, TransportCall } from './transport.js';

export async function send(fetch: FetchLike, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    // An aborted signal is not a network failure: TIMEOUT for AbortSignal.timeout(), else ABORTED.
    if (init.signal?.aborted) throw abortError(init.signal.reason, error);
    throw new A2AClientError('NETWORK', `Could not reach ${url}`, { cause: error });
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
  const res = await send(fetch, withQuery(url, call.query), { method, headers, ...(body === undefined ? {} : { body }), signal: call.signal });
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

export async function readJson(res: Response): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    throw new A2AClientError('NETWORK', 'The response was interrupted', { cause: error });
  }
  return parseJson(text, 'a response');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Conditions that commonly arrive without an A2A body (B7, B13). */
const REASON_BY_STATUS: Record<number, A2AErrorReason> = { 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED' };

/**
 * A non-2xx response as an error: the binding's error body when it has one (`decode`), else a
 * typed error for 401/403/429, else A2AClientError HTTP. Status and Retry-After are recorded.
 */
export async function errorFromResponse(res: Response, decode: (body: unknown) => Error | undefined): Promise<Error> {
  let body: unknown;
  try {
    body = JSON.parse(await res.text());
  } catch {
    body = undefined;
  }
  const reason = REASON_BY_STATUS[res.status];
  const error: Error =
    decode(body) ??
    (reason
      ? ERROR_REASONS[reason].create(undefined, {})
      : new A2AClientError('HTTP', `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, { status: res.status }));
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
 * its error; `limits` bound the size of an event (TransportContext.maxEventSize).
 */
export async function* streamItems(res: Response, decode: (event: SseEvent) => StreamResponse, limits?: SseParserOptions): AsyncGenerator<StreamItem> {
  if (!res.body) throw new A2AClientError('INVALID_RESPONSE', 'The event stream has no body');
  for await (const sse of readSse(res.body, new SseParser(limits))) {
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

/** The JSON body of a unary response (undefined for 204 No Content), or its error thrown. */
export async function restBody(res: Response, errorOf: ErrorDecoder): Promise<unknown> {
  if (!res.ok) throw await errorFromResponse(res, errorOf);
  return res.status === 204 ? undefined : readJson(res);
}

/**
 * Checks that a streaming call got an event stream: a non-2xx response is thrown as the
 * binding's error; a JSON response in place of the stream is given to `bodyError`, which throws
 * the error it carries (JSON-RPC, STREAM-12); anything else is INVALID_RESPONSE.
 */
export async function openEventStream(res: Response, errorOf: ErrorDecoder, bodyError?: (body: unknown) => void): Promise<void> {
  if (!res.ok) throw await errorFromResponse(res, errorOf);
  if (isEventStream(res)) return;
  bodyError?.(await readJson(res));
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
