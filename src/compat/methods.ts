/**
 * The A2A 0.3 method and route tables, as data (digest §5.2, §5.5): which 1.0 operation each
 * 0.3 JSON-RPC method and each 0.3 REST route stands for, and where a REST route's parameters
 * come from. The bindings route with these; `requests.ts` / `results.ts` translate the payloads.
 */
import type { OperationName } from '../protocol/types.js';
import type { V03Method } from './v03Types.js';

export interface V03MethodInfo {
  method: V03Method;
  operation: OperationName;
  /** The 0.3 result is an SSE stream of V03StreamEvent. */
  streaming: boolean;
}

export const V03_METHODS: Readonly<Record<V03Method, V03MethodInfo>> = {
  'message/send': { method: 'message/send', operation: 'sendMessage', streaming: false },
  'message/stream': { method: 'message/stream', operation: 'sendStreamingMessage', streaming: true },
  'tasks/get': { method: 'tasks/get', operation: 'getTask', streaming: false },
  'tasks/cancel': { method: 'tasks/cancel', operation: 'cancelTask', streaming: false },
  'tasks/resubscribe': { method: 'tasks/resubscribe', operation: 'subscribeToTask', streaming: true },
  'tasks/pushNotificationConfig/set': { method: 'tasks/pushNotificationConfig/set', operation: 'createTaskPushNotificationConfig', streaming: false },
  'tasks/pushNotificationConfig/get': { method: 'tasks/pushNotificationConfig/get', operation: 'getTaskPushNotificationConfig', streaming: false },
  'tasks/pushNotificationConfig/list': { method: 'tasks/pushNotificationConfig/list', operation: 'listTaskPushNotificationConfigs', streaming: false },
  'tasks/pushNotificationConfig/delete': { method: 'tasks/pushNotificationConfig/delete', operation: 'deleteTaskPushNotificationConfig', streaming: false },
  'agent/getAuthenticatedExtendedCard': { method: 'agent/getAuthenticatedExtendedCard', operation: 'getExtendedAgentCard', streaming: false },
};

export function isV03Method(method: string): method is V03Method {
  return Object.prototype.hasOwnProperty.call(V03_METHODS, method);
}

const BY_OPERATION = new Map<OperationName, V03Method>(Object.values(V03_METHODS).map((info) => [info.operation, info.method]));

/** The 0.3 method for a 1.0 operation; undefined for ListTasks, which 0.3 JSON-RPC lacks. */
export function v03MethodFor(operation: OperationName): V03Method | undefined {
  return BY_OPERATION.get(operation);
}

// ---- REST (HTTP+JSON) ----

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** Where the 0.3 JSON-RPC-shaped params of a REST route come from. */
export type V03RestParamSource =
  /** The body is the params (MessageSendParams; for push config create, see below). */
  | 'body'
  /** `{id}` from the path; `historyLength` (or `history_length`) from the query. */
  | 'task-query'
  /** `{id}` from the path. */
  | 'task-id'
  /** `{taskId: id}` from the path plus the config from the body (see `v03RestParams`). */
  | 'push-create'
  /** `{id, pushNotificationConfigId: configId}` from the path. */
  | 'push-config-id'
  /** No params. */
  | 'none';

export interface V03RestRoute {
  httpMethod: HttpMethod;
  /** The path as the 0.3 spec writes it; `{id}` and `{configId}` are one path segment each. */
  pattern: string;
  /** Anchored; named groups `id` and `configId` (still percent-encoded). */
  regex: RegExp;
  method: V03Method;
  operation: OperationName;
  params: V03RestParamSource;
  streaming: boolean;
  /** HTTP status of a successful response in the official 0.3 JS SDK (Python uses 200 throughout). */
  successStatus: number;
}

const SEGMENT = '([^/:?#]+)';

function route(spec: { httpMethod: HttpMethod; pattern: string; method: V03Method; params: V03RestParamSource; successStatus?: number }): V03RestRoute {
  const { httpMethod, pattern, method } = spec;
  const source = pattern
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace('{id}', SEGMENT.replace('(', '(?<id>'))
    .replace('{configId}', SEGMENT.replace('(', '(?<configId>'));
  const info = V03_METHODS[method];
  return {
    httpMethod,
    pattern,
    regex: new RegExp(`^${source}$`),
    method,
    operation: info.operation,
    params: spec.params,
    streaming: info.streaming,
    successStatus: spec.successStatus ?? 200,
  };
}

/**
 * The 0.3 REST routes (0.3 spec §3.5.3 / the 0.3 proto http rules, as served by the official 0.3
 * JS SDK). `GET /v1/tasks` is in the 0.3 spec text but in no 0.3 proto or SDK, so it is absent.
 * `:subscribe` is served for both GET (proto) and POST (spec).
 */
export const V03_REST_ROUTES: readonly V03RestRoute[] = [
  route({ httpMethod: 'POST', pattern: '/v1/message:send', method: 'message/send', params: 'body', successStatus: 201 }),
  route({ httpMethod: 'POST', pattern: '/v1/message:stream', method: 'message/stream', params: 'body' }),
  route({ httpMethod: 'GET', pattern: '/v1/tasks/{id}:subscribe', method: 'tasks/resubscribe', params: 'task-id' }),
  route({ httpMethod: 'POST', pattern: '/v1/tasks/{id}:subscribe', method: 'tasks/resubscribe', params: 'task-id' }),
  route({ httpMethod: 'POST', pattern: '/v1/tasks/{id}:cancel', method: 'tasks/cancel', params: 'task-id', successStatus: 202 }),
  route({ httpMethod: 'GET', pattern: '/v1/tasks/{id}', method: 'tasks/get', params: 'task-query' }),
  route({ httpMethod: 'POST', pattern: '/v1/tasks/{id}/pushNotificationConfigs', method: 'tasks/pushNotificationConfig/set', params: 'push-create', successStatus: 201 }),
  route({ httpMethod: 'GET', pattern: '/v1/tasks/{id}/pushNotificationConfigs', method: 'tasks/pushNotificationConfig/list', params: 'task-id' }),
  route({ httpMethod: 'GET', pattern: '/v1/tasks/{id}/pushNotificationConfigs/{configId}', method: 'tasks/pushNotificationConfig/get', params: 'push-config-id' }),
  route({ httpMethod: 'DELETE', pattern: '/v1/tasks/{id}/pushNotificationConfigs/{configId}', method: 'tasks/pushNotificationConfig/delete', params: 'push-config-id', successStatus: 204 }),
  route({ httpMethod: 'GET', pattern: '/v1/card', method: 'agent/getAuthenticatedExtendedCard', params: 'none' }),
];

export interface V03RestMatch {
  route: V03RestRoute;
  /** Decoded path parameters. */
  id?: string;
  configId?: string;
}

function decode(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The 0.3 route for a request, or undefined. `pathMatched` tells a 405 (path known, method
 * not) from a 404. The path must not include the query string or the mount prefix.
 */
export function matchV03RestRoute(httpMethod: string, path: string): { match?: V03RestMatch; pathMatched: boolean } {
  let pathMatched = false;
  const upper = httpMethod.toUpperCase();
  // HEAD is served wherever GET is (RFC 9110 §9.3.2), as on the 1.0 routes.
  const wanted = upper === 'HEAD' ? 'GET' : upper;
  for (const r of V03_REST_ROUTES) {
    const m = r.regex.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.httpMethod !== wanted) continue;
    const id = decode(m.groups?.id);
    const configId = decode(m.groups?.configId);
    if ((m.groups?.id !== undefined && id === undefined) || (m.groups?.configId !== undefined && configId === undefined)) continue;
    const match: V03RestMatch = { route: r };
    if (id !== undefined) match.id = id;
    if (configId !== undefined) match.configId = configId;
    return { match, pathMatched };
  }
  return { pathMatched };
}

/**
 * The 0.3 JSON-RPC-shaped params of a REST call, from the path, the query and the (parsed)
 * body, ready for `requestToV10(route.method, params)`. Path values win over body values (B12).
 * The body must be in the 0.3 JSON-RPC dialect (`kind`, lowercase enums): read the 0.3
 * proto-JSON dialect that the 0.3.14 JS and the Python SDK send over REST with
 * `sendParamsFromProto03` / `pushCreateBodyFromProto03` (protoJson03.ts) first.
 */
export function v03RestParams(match: V03RestMatch, request: { query?: URLSearchParams; body?: unknown }): unknown {
  const body = typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};
  switch (match.route.params) {
    case 'body':
      return request.body;
    case 'task-query': {
      const raw = request.query?.get('historyLength') ?? request.query?.get('history_length');
      const out: Record<string, unknown> = { id: match.id };
      if (raw !== undefined && raw !== null && raw.trim() !== '') out.historyLength = /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
      return out;
    }
    case 'task-id':
      return { id: match.id };
    case 'push-create':
      // Either `{pushNotificationConfig: {...}}` (TaskPushNotificationConfig) or the bare config.
      return { taskId: match.id, pushNotificationConfig: 'pushNotificationConfig' in body ? body.pushNotificationConfig : body };
    case 'push-config-id':
      return { id: match.id, pushNotificationConfigId: match.configId };
    case 'none':
      return undefined;
  }
}
