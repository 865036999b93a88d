/**
 * HTTP+JSON routes (§11, proto google.api.http rules), each also under a /{tenant} prefix.
 * Literal first segments are matched before a tenant is assumed (TENANT-08).
 * test/restRoutes.test.ts checks this table against the http options in the generated descriptor.
 */
import { isReservedTenantName } from '../../protocol/tenantNames.js';
import type { OperationName } from '../../protocol/types.js';

export interface RestRoute {
  op: OperationName;
  method: 'GET' | 'POST' | 'DELETE';
  /** Pattern relative to the REST base; `{name}` binds one path segment to that request field. */
  pattern: string;
  /** POST routes whose body may be empty (REST-05). */
  emptyBodyOk?: boolean;
}

export const REST_ROUTES: readonly RestRoute[] = [
  { op: 'sendMessage', method: 'POST', pattern: '/message:send' },
  { op: 'sendStreamingMessage', method: 'POST', pattern: '/message:stream' },
  { op: 'getTask', method: 'GET', pattern: '/tasks/{id}' },
  { op: 'listTasks', method: 'GET', pattern: '/tasks' },
  { op: 'cancelTask', method: 'POST', pattern: '/tasks/{id}:cancel', emptyBodyOk: true },
  { op: 'subscribeToTask', method: 'GET', pattern: '/tasks/{id}:subscribe' },
  // A1: the spec text says POST, the proto says GET; serve both.
  { op: 'subscribeToTask', method: 'POST', pattern: '/tasks/{id}:subscribe', emptyBodyOk: true },
  { op: 'createTaskPushNotificationConfig', method: 'POST', pattern: '/tasks/{taskId}/pushNotificationConfigs' },
  { op: 'getTaskPushNotificationConfig', method: 'GET', pattern: '/tasks/{taskId}/pushNotificationConfigs/{id}' },
  { op: 'listTaskPushNotificationConfigs', method: 'GET', pattern: '/tasks/{taskId}/pushNotificationConfigs' },
  { op: 'deleteTaskPushNotificationConfig', method: 'DELETE', pattern: '/tasks/{taskId}/pushNotificationConfigs/{id}' },
  { op: 'getExtendedAgentCard', method: 'GET', pattern: '/extendedAgentCard' },
];

interface CompiledRoute extends RestRoute {
  /** Per segment: a literal, or a field name with an optional `:verb` suffix. */
  segments: { literal?: string; field?: string; suffix?: string }[];
}

let compiled: CompiledRoute[] | undefined;

/** The routes split into segments, on first use: the client imports REST_ROUTES only, and builds nothing at load. */
function compiledRoutes(): CompiledRoute[] {
  return (compiled ??= REST_ROUTES.map((route) => ({
    ...route,
    segments: route.pattern
      .slice(1)
      .split('/')
      .map((s) => {
        const m = /^\{(\w+)\}(:\w+)?$/.exec(s);
        return m ? { field: m[1] as string, ...(m[2] ? { suffix: m[2] } : {}) } : { literal: s };
      }),
  })));
}

export type RouteMatch =
  | { kind: 'route'; route: RestRoute; fields: Record<string, string> }
  | { kind: 'methodNotAllowed'; allow: string[] }
  | { kind: 'notFound' };

/** Matches path segments (already split, percent-decoded) and a method to a route. HEAD matches GET routes (RFC 9110 §9.3.2). */
export function matchRoute(method: string, segments: string[]): RouteMatch {
  const wanted = method === 'HEAD' ? 'GET' : method;
  const attempts: { tenant?: string; rest: string[] }[] = [{ rest: segments }];
  // The literal first segments are the reserved tenant names: a request cannot name such a tenant either.
  if (segments.length > 1 && !isReservedTenantName(segments[0] as string)) {
    attempts.unshift({ tenant: segments[0] as string, rest: segments.slice(1) });
  }
  const allow = new Set<string>();
  for (const attempt of attempts) {
    for (const route of compiledRoutes()) {
      const fields = matchSegments(route, attempt.rest);
      if (!fields) continue;
      if (route.method !== wanted) {
        allow.add(route.method);
        if (route.method === 'GET') allow.add('HEAD');
        continue;
      }
      if (attempt.tenant !== undefined) fields.tenant = attempt.tenant;
      return { kind: 'route', route, fields };
    }
    if (allow.size > 0) return { kind: 'methodNotAllowed', allow: [...allow] };
  }
  return { kind: 'notFound' };
}

function matchSegments(route: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const fields: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i] as CompiledRoute['segments'][number];
    const part = parts[i] as string;
    if (seg.literal !== undefined) {
      if (seg.literal !== part) return undefined;
      continue;
    }
    let value = part;
    if (seg.suffix) {
      if (!part.endsWith(seg.suffix)) return undefined;
      value = part.slice(0, -seg.suffix.length);
    } else if (route.op === 'getTask' && /:(cancel|subscribe)$/.test(part)) {
      // `GET /tasks/{id}:cancel` is the cancel route with the wrong verb, not a task id.
      return undefined;
    }
    if (value === '') return undefined;
    fields[seg.field as string] = value;
  }
  return fields;
}
