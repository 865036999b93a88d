/**
 * A binding-neutral test transport: scenarios call `call(op, params)` / `stream(op, params)`
 * with camelCase operation names and the request message JSON, and get back either the
 * response message or a normalized error that still carries the binding's own codes
 * (JSON-RPC code, HTTP status + google.rpc status name, gRPC status). Everything goes over
 * real sockets. The gRPC binding lives in test/grpc/grpcTestBinding.ts.
 */
import assert from 'node:assert/strict';
import type { OperationName } from '../../src/protocol/types.js';
import { grpcBindingFactory } from '../grpc/grpcTestBinding.js';
import { readSse, SseParser } from './sse.js';
import type { TestServer } from './server.js';

/** Untyped wire JSON: the suites assert its shape instead of trusting a type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export type BindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

export interface CallOptions {
  /** Extra request headers; `null` removes a default one (e.g. 'A2A-Version': null). */
  headers?: Record<string, string | null>;
  /** Extra query parameters (e.g. A2A-Version). */
  query?: Record<string, string>;
  /** HTTP+JSON: `tenant` stays a request field (POST body or query string) instead of the /{tenant} prefix. */
  tenantAsField?: boolean;
}

export interface StreamOptions extends CallOptions {
  /** Cut the connection after this many events (R7 tests). */
  maxEvents?: number;
  /** Called as each event arrives. */
  onEvent?: (event: StreamEvent, index: number) => void;
  /** Give up after this long (default 10 s): throws, or returns timedOut with allowTimeout. */
  timeoutMs?: number;
  allowTimeout?: boolean;
}

export interface WireError {
  /** ErrorInfo.reason ('' when the error carries no ErrorInfo). */
  reason: string;
  message: string;
  /** JSON-RPC error.data / REST error.details / gRPC status details. */
  details: Record<string, unknown>[];
  fieldViolations: { field: string; description: string }[];
  /** ErrorInfo.metadata. */
  metadata: Record<string, string>;
  domain?: string;
  jsonRpcCode?: number;
  /** REST: the HTTP status (JSON-RPC errors travel on HTTP 200, so it is left unset there). */
  httpStatus?: number;
  /** REST: error.code in the body (must equal httpStatus). */
  bodyCode?: number;
  /** REST error.status / gRPC status name. */
  grpcStatus?: string;
  raw: unknown;
}

export interface StreamEvent {
  /** The StreamResponse, when the SSE event carried one. */
  event?: Json;
  /** A mid-stream error (B9). */
  error?: WireError;
  /** The SSE `id:` of this event. */
  id?: string;
}

interface Transport {
  headers: Headers;
  status: number;
  contentType: string;
}

export type CallResult = ({ ok: true; result: Json } | { ok: false; error: WireError }) & Transport;
export type StreamResult = (
  | { ok: true; events: StreamEvent[]; ended: boolean; cut: boolean; timedOut: boolean; comments: string[] }
  | { ok: false; error: WireError }
) &
  Transport;

export interface TestBinding {
  readonly name: BindingName;
  call(op: OperationName, params: object, opts?: CallOptions): Promise<CallResult>;
  stream(op: OperationName, params: object, opts?: StreamOptions): Promise<StreamResult>;
}

export interface BindingFactory {
  name: BindingName;
  create(server: TestServer): TestBinding;
}

function pascal(op: string): string {
  return op.charAt(0).toUpperCase() + op.slice(1);
}

function buildHeaders(defaults: Record<string, string>, extra: Record<string, string | null> = {}): Headers {
  const headers = new Headers({ 'a2a-version': '1.0', ...defaults });
  for (const [k, v] of Object.entries(extra)) {
    if (v === null) headers.delete(k);
    else headers.set(k, v);
  }
  return headers;
}

function withQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query || Object.keys(query).length === 0) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) u.searchParams.append(k, v);
  return u.toString();
}

/** Reads ErrorInfo and BadRequest out of a details array. */
function fromDetails(details: unknown): Pick<WireError, 'reason' | 'details' | 'fieldViolations' | 'metadata' | 'domain'> {
  const list = Array.isArray(details) ? (details as Record<string, unknown>[]) : [];
  const out: Pick<WireError, 'reason' | 'details' | 'fieldViolations' | 'metadata' | 'domain'> = {
    reason: '',
    details: list,
    fieldViolations: [],
    metadata: {},
  };
  for (const d of list) {
    if (d?.['@type'] === ERROR_INFO_TYPE) {
      out.reason = String(d.reason ?? '');
      if (typeof d.domain === 'string') out.domain = d.domain;
      if (d.metadata && typeof d.metadata === 'object') out.metadata = d.metadata as Record<string, string>;
    } else if (d?.['@type'] === BAD_REQUEST_TYPE && Array.isArray(d.fieldViolations)) {
      out.fieldViolations.push(...(d.fieldViolations as WireError['fieldViolations']));
    }
  }
  return out;
}

function jsonRpcError(error: Json): WireError {
  assert.equal(typeof error, 'object', `JSON-RPC error must be an object: ${JSON.stringify(error)}`);
  return { ...fromDetails(error.data), message: String(error.message), jsonRpcCode: error.code, raw: error };
}

function restError(status: number, body: Json): WireError {
  const e = body?.error;
  assert.equal(typeof e, 'object', `REST error body must be {"error":{...}}: ${JSON.stringify(body)}`);
  return { ...fromDetails(e.details), message: String(e.message), httpStatus: status, bodyCode: e.code, grpcStatus: e.status, raw: body };
}

function transport(res: Response): Transport {
  return { headers: res.headers, status: res.status, contentType: res.headers.get('content-type') ?? '' };
}

/**
 * Reads an SSE response into StreamEvents with `decode` turning each data payload into an
 * event or an error; honours maxEvents (cuts the connection) and the timeout.
 */
async function collectSse(
  res: Response,
  controller: AbortController,
  opts: StreamOptions,
  decode: (data: string) => StreamEvent,
): Promise<StreamResult> {
  const events: StreamEvent[] = [];
  const parser = new SseParser();
  let ended = false;
  let cut = false;
  let timedOut = false;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    for await (const sse of readSse(res.body as ReadableStream<Uint8Array>, parser)) {
      const item = decode(sse.data);
      if (sse.id !== undefined) item.id = sse.id;
      events.push(item);
      opts.onEvent?.(item, events.length - 1);
      if (opts.maxEvents !== undefined && events.length >= opts.maxEvents) {
        cut = true;
        break;
      }
    }
    ended = !cut;
  } catch (error) {
    if (!timedOut) throw error;
  } finally {
    clearTimeout(timer);
    if (!ended) controller.abort();
  }
  if (timedOut && !opts.allowTimeout) {
    throw new Error(`stream did not end within ${timeoutMs} ms; events so far: ${JSON.stringify(events).slice(0, 2000)}`);
  }
  return { ok: true, events, ended, cut, timedOut, comments: parser.comments, ...transport(res) };
}

export function jsonRpcBinding(url: string): TestBinding {
  let counter = 0;
  async function post(op: string, params: object, opts: CallOptions, accept: string, controller?: AbortController) {
    const id = `rpc-${++counter}`;
    const res = await fetch(withQuery(url, opts.query), {
      method: 'POST',
      headers: buildHeaders({ 'content-type': 'application/json', accept }, opts.headers),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: pascal(op), params }),
      ...(controller ? { signal: controller.signal } : {}),
    });
    return { id, res };
  }
  function envelope(body: Json, id: string): { ok: true; result: Json } | { ok: false; error: WireError } {
    assert.equal(body?.jsonrpc, '2.0', `jsonrpc must be "2.0": ${JSON.stringify(body)}`);
    assert.equal(body.id, id, `response id must echo the request id: ${JSON.stringify(body)}`);
    assert.ok(('result' in body) !== ('error' in body), `exactly one of result/error: ${JSON.stringify(body)}`);
    return 'error' in body ? { ok: false, error: jsonRpcError(body.error) } : { ok: true, result: body.result };
  }
  /** B6: HTTP 200, except an exceeded limit (RESOURCE_EXHAUSTED), which JSON-RPC answers with 429 too. */
  function assertB6(status: number, text: string): void {
    if (status === 429 && text.includes('"reason":"RESOURCE_EXHAUSTED"')) return;
    assert.equal(status, 200, `JSON-RPC answers HTTP 200 (B6), got ${status}: ${text}`);
  }
  return {
    name: 'JSONRPC',
    async call(op, params, opts = {}) {
      const { id, res } = await post(op, params, opts, 'application/json');
      const text = await res.text();
      assertB6(res.status, text);
      return { ...envelope(JSON.parse(text), id), ...transport(res) };
    },
    async stream(op, params, opts = {}) {
      const controller = new AbortController();
      const { id, res } = await post(op, params, opts, 'text/event-stream', controller);
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const text = await res.text();
        assertB6(res.status, text);
        const result = envelope(JSON.parse(text), id);
        assert.equal(result.ok, false, `a non-SSE answer to a streaming method must be an error: ${text}`);
        return { ...result, ...transport(res) } as StreamResult;
      }
      return collectSse(res, controller, opts, (data) => {
        const r = envelope(JSON.parse(data), id);
        return r.ok ? { event: r.result } : { error: r.error };
      });
    },
  };
}

interface RestRouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
}

/** The spec's HTTP+JSON routes (§1.1 of the digest), written out independently of src/. */
export const REST_ROUTE_SPECS: Record<OperationName, RestRouteSpec> = {
  sendMessage: { method: 'POST', path: '/message:send' },
  sendStreamingMessage: { method: 'POST', path: '/message:stream' },
  getTask: { method: 'GET', path: '/tasks/{id}' },
  listTasks: { method: 'GET', path: '/tasks' },
  cancelTask: { method: 'POST', path: '/tasks/{id}:cancel' },
  subscribeToTask: { method: 'POST', path: '/tasks/{id}:subscribe' },
  createTaskPushNotificationConfig: { method: 'POST', path: '/tasks/{taskId}/pushNotificationConfigs' },
  getTaskPushNotificationConfig: { method: 'GET', path: '/tasks/{taskId}/pushNotificationConfigs/{id}' },
  listTaskPushNotificationConfigs: { method: 'GET', path: '/tasks/{taskId}/pushNotificationConfigs' },
  deleteTaskPushNotificationConfig: { method: 'DELETE', path: '/tasks/{taskId}/pushNotificationConfigs/{id}' },
  getExtendedAgentCard: { method: 'GET', path: '/extendedAgentCard' },
};

function queryValue(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`REST query parameter ${key} cannot carry ${JSON.stringify(value)}`);
}

/**
 * Maps an operation and its request message to a REST request: path fields (and a non-empty
 * `tenant` as the /{tenant} prefix, unless `tenantAsField`) from params, the rest as query string
 * (GET/DELETE) or body.
 */
export function restRequest(
  op: OperationName,
  params: Record<string, unknown>,
  options: { tenantAsField?: boolean } = {},
): { method: string; path: string; query: URLSearchParams; body?: string } {
  const spec = REST_ROUTE_SPECS[op];
  const rest: Record<string, unknown> = { ...params };
  let path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    if (typeof value !== 'string' || value === '') throw new Error(`REST ${op} needs a non-empty ${name} for the path`);
    delete rest[name];
    return encodeURIComponent(value);
  });
  if (typeof rest.tenant === 'string' && rest.tenant !== '' && !options.tenantAsField) {
    path = `/${encodeURIComponent(rest.tenant)}${path}`;
    delete rest.tenant;
  }
  const query = new URLSearchParams();
  if (spec.method !== 'POST') {
    for (const [k, v] of Object.entries(rest)) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) query.append(k, queryValue(k, item));
    }
    return { method: spec.method, path, query };
  }
  // REST-05: POSTs without remaining fields (cancel, subscribe) go without a body, like the TCK.
  const body = Object.keys(rest).length === 0 && op !== 'sendMessage' && op !== 'sendStreamingMessage' ? undefined : JSON.stringify(rest);
  return { method: spec.method, path, query, ...(body !== undefined ? { body } : {}) };
}

export function restBinding(baseUrl: string): TestBinding {
  async function send(op: OperationName, params: object, opts: CallOptions, accept: string, controller?: AbortController) {
    const r = restRequest(op, params as Record<string, unknown>, { tenantAsField: opts.tenantAsField === true });
    for (const [k, v] of Object.entries(opts.query ?? {})) r.query.append(k, v);
    const qs = r.query.toString();
    return fetch(`${baseUrl}${r.path}${qs ? `?${qs}` : ''}`, {
      method: r.method,
      headers: buildHeaders({ accept, ...(r.body !== undefined ? { 'content-type': 'application/a2a+json' } : {}) }, opts.headers),
      ...(r.body !== undefined ? { body: r.body } : {}),
      ...(controller ? { signal: controller.signal } : {}),
    });
  }
  async function unaryResult(res: Response): Promise<CallResult> {
    const text = await res.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (res.status === 200) return { ok: true, result: body, ...transport(res) };
    return { ok: false, error: restError(res.status, body), ...transport(res) };
  }
  return {
    name: 'HTTP+JSON',
    async call(op, params, opts = {}) {
      return unaryResult(await send(op, params, opts, 'application/a2a+json'));
    },
    async stream(op, params, opts = {}) {
      const controller = new AbortController();
      const res = await send(op, params, opts, 'text/event-stream', controller);
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const result = await unaryResult(res);
        assert.equal(result.ok, false, `a non-SSE answer to a streaming operation must be an error (status ${res.status})`);
        return result as StreamResult;
      }
      assert.equal(res.status, 200);
      return collectSse(res, controller, opts, (data) => {
        const body = JSON.parse(data);
        return body && typeof body === 'object' && 'error' in body ? { error: restError(body.error?.code ?? 0, body) } : { event: body };
      });
    },
  };
}

export const BINDINGS: readonly BindingFactory[] = [
  { name: 'JSONRPC', create: (server) => jsonRpcBinding(server.jsonRpcUrl) },
  { name: 'HTTP+JSON', create: (server) => restBinding(server.restUrl) },
  grpcBindingFactory,
];
