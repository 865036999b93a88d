/**
 * REST_ROUTES (src/bindings/rest/routes.ts) against the google.api.http options of the proto
 * (REST-02, digest §1.1), and matchRoute's edge cases: tenant prefixes (TENANT-04, TENANT-08),
 * `:verb` suffixes, and ids that contain reserved characters once percent-decoded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getOption } from '@bufbuild/protobuf';
import { A2AService } from '../src/gen/a2a_pb.js';
import { http } from '../src/gen/google/api/annotations_pb.js';
import { FieldBehavior, field_behavior } from '../src/gen/google/api/field_behavior_pb.js';
import type { HttpRule } from '../src/gen/google/api/http_pb.js';
import { REST_ROUTES, matchRoute, type RestRoute } from '../src/bindings/rest/routes.js';
import { createA2AHandler } from '../src/server/createA2AHandler.js';
import { RESERVED_TENANT_NAMES, isReservedTenantName } from '../src/protocol/tenantNames.js';
import type { OperationName } from '../src/protocol/types.js';

interface ProtoBinding {
  op: OperationName;
  method: 'GET' | 'POST' | 'DELETE';
  /** As written in the proto. */
  raw: string;
  /** Normalized to REST_ROUTES syntax: `{id=*}` → `{id}`, `{task_id=*}` → `{taskId}`. */
  pattern: string;
  body: string;
}

function normalize(pattern: string): string {
  return pattern.replace(/\{(\w+)=\*\}/g, (_m, name: string) => `{${name.replace(/_([a-z])/g, (_x, c: string) => c.toUpperCase())}}`);
}

function bindingsOf(op: OperationName, rule: HttpRule): ProtoBinding[] {
  const out: ProtoBinding[] = [];
  const { pattern } = rule;
  if (pattern.case === 'get' || pattern.case === 'post' || pattern.case === 'delete') {
    const method = pattern.case.toUpperCase() as ProtoBinding['method'];
    out.push({ op, method, raw: pattern.value, pattern: normalize(pattern.value), body: rule.body });
  } else {
    assert.fail(`${op}: unexpected http pattern ${String(pattern.case)}`);
  }
  for (const extra of rule.additionalBindings) out.push(...bindingsOf(op, extra));
  return out;
}

const PROTO_BINDINGS: ProtoBinding[] = A2AService.methods.flatMap((m) => bindingsOf(m.localName as OperationName, getOption(m, http)));
const TENANT_PREFIX = '/{tenant}';
const plain = PROTO_BINDINGS.filter((b) => !b.pattern.startsWith(TENANT_PREFIX));
const tenanted = PROTO_BINDINGS.filter((b) => b.pattern.startsWith(TENANT_PREFIX));

/** Sample values for path variables; chosen so that a swapped field shows up. */
const SAMPLE: Record<string, string> = { tenant: 'acme', id: 'id-1', taskId: 'task-7' };

function concrete(pattern: string): { segments: string[]; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  const path = pattern.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = SAMPLE[name];
    assert.ok(value, `no sample value for {${name}}`);
    fields[name] = value;
    return value;
  });
  return { segments: path.split('/').filter((s) => s !== ''), fields };
}

function routeKey(r: { method: string; pattern: string }): string {
  return `${r.method} ${r.pattern}`;
}

function expectRoute(method: string, segments: string[], op: OperationName, fields: Record<string, string>): RestRoute {
  const match = matchRoute(method, segments);
  assert.equal(match.kind, 'route', `${method} /${segments.join('/')} should route to ${op}, got ${JSON.stringify(match)}`);
  if (match.kind !== 'route') throw new Error('unreachable');
  assert.equal(match.route.op, op, `${method} /${segments.join('/')}`);
  assert.deepEqual(match.fields, fields, `${method} /${segments.join('/')} fields`);
  return match.route;
}

test('the proto has one plain and one /{tenant} binding per rpc (digest §1.1)', () => {
  assert.equal(A2AService.methods.length, 11);
  for (const m of A2AService.methods) {
    const mine = PROTO_BINDINGS.filter((b) => b.op === m.localName);
    assert.equal(mine.length, 2, `${m.name}: ${mine.map((b) => b.raw).join(', ')}`);
    const [main, extra] = mine as [ProtoBinding, ProtoBinding];
    assert.equal(extra.pattern, TENANT_PREFIX + main.pattern, `${m.name}: the additional binding is the tenant-prefixed main one`);
    assert.equal(extra.method, main.method);
    assert.equal(extra.body, main.body);
  }
});

test('every plain proto binding is in REST_ROUTES with the same method and pattern', () => {
  const routes = new Set(REST_ROUTES.map((r) => `${r.op} ${routeKey(r)}`));
  for (const b of plain) {
    assert.ok(routes.has(`${b.op} ${routeKey(b)}`), `REST_ROUTES lacks ${b.op}: ${routeKey(b)} (proto ${b.raw})`);
  }
});

test('REST_ROUTES has nothing beyond the proto except POST :subscribe (A1)', () => {
  const proto = new Set(plain.map((b) => `${b.op} ${routeKey(b)}`));
  const extra = REST_ROUTES.filter((r) => !proto.has(`${r.op} ${routeKey(r)}`)).map((r) => `${r.op} ${routeKey(r)}`);
  assert.deepEqual(extra, ['subscribeToTask POST /tasks/{id}:subscribe']);
  // And no pattern is listed twice for one method.
  assert.equal(new Set(REST_ROUTES.map(routeKey)).size, REST_ROUTES.length);
  // Routes never start with /{tenant}: the router adds the prefix itself.
  for (const r of REST_ROUTES) assert.ok(!r.pattern.startsWith(TENANT_PREFIX), r.pattern);
});

test('SubscribeToTask is served as GET (proto) and POST (spec §11.3 text), both routes', () => {
  expectRoute('GET', ['tasks', 'id-1:subscribe'], 'subscribeToTask', { id: 'id-1' });
  expectRoute('POST', ['tasks', 'id-1:subscribe'], 'subscribeToTask', { id: 'id-1' });
  expectRoute('GET', ['acme', 'tasks', 'id-1:subscribe'], 'subscribeToTask', { tenant: 'acme', id: 'id-1' });
  expectRoute('POST', ['acme', 'tasks', 'id-1:subscribe'], 'subscribeToTask', { tenant: 'acme', id: 'id-1' });
});

test('each plain binding routes, with its path fields', () => {
  for (const b of plain) {
    const { segments, fields } = concrete(b.pattern);
    expectRoute(b.method, segments, b.op, fields);
  }
});

test('each /{tenant} binding routes to the same operation with the tenant field (TENANT-04)', () => {
  for (const b of tenanted) {
    const { segments, fields } = concrete(b.pattern);
    assert.equal(fields.tenant, 'acme');
    expectRoute(b.method, segments, b.op, fields);
  }
});

test('POST routes allow an empty body exactly when the path carries every REQUIRED field (REST-05)', () => {
  const inputs = new Map(A2AService.methods.map((m) => [m.localName, m.input]));
  for (const r of REST_ROUTES.filter((route) => route.method === 'POST')) {
    const input = inputs.get(r.op);
    assert.ok(input);
    const required = input.fields.filter((f) => getOption(f, field_behavior).includes(FieldBehavior.REQUIRED)).map((f) => f.jsonName);
    const inPath = new Set([...r.pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    const bodyNeeded = required.some((name) => !inPath.has(name));
    assert.equal(r.emptyBodyOk === true, !bodyNeeded, `${routeKey(r)} (REQUIRED: ${required.join(', ')})`);
  }
});

test('TENANT-08: literal first segments are routes, not tenants', () => {
  expectRoute('GET', ['tasks'], 'listTasks', {});
  expectRoute('GET', ['acme', 'tasks'], 'listTasks', { tenant: 'acme' });
  // Same segment count as /{tenant}/tasks: the literal `tasks` wins, so this is GetTask.
  expectRoute('GET', ['tasks', 'abc'], 'getTask', { id: 'abc' });
  // A task whose id is "tasks" is still a task id, never a tenant named "tasks".
  expectRoute('GET', ['tasks', 'tasks'], 'getTask', { id: 'tasks' });
  expectRoute('GET', ['extendedAgentCard'], 'getExtendedAgentCard', {});
  expectRoute('GET', ['acme', 'extendedAgentCard'], 'getExtendedAgentCard', { tenant: 'acme' });
  expectRoute('POST', ['message:send'], 'sendMessage', {});
  expectRoute('POST', ['acme', 'message:send'], 'sendMessage', { tenant: 'acme' });
  expectRoute('POST', ['message:stream'], 'sendStreamingMessage', {});
  // A literal first segment is never taken as a tenant, so these lead nowhere.
  assert.equal(matchRoute('GET', ['extendedAgentCard', 'tasks']).kind, 'notFound');
  assert.equal(matchRoute('POST', ['message:send', 'message:send']).kind, 'notFound');
  // A tenant alone, or a tenant before an unknown path, is not a route.
  assert.equal(matchRoute('GET', ['acme']).kind, 'notFound');
  assert.equal(matchRoute('GET', ['acme', 'nothing']).kind, 'notFound');
  assert.equal(matchRoute('GET', []).kind, 'notFound');
});

test('TENANT-08: every literal first segment of a route is a reserved tenant name (one list for routing and for requests)', () => {
  const firsts = new Set(REST_ROUTES.map((r) => r.pattern.split('/')[1] as string).filter((s) => !s.startsWith('{')));
  assert.deepEqual([...firsts].sort(), ['extendedAgentCard', 'message:send', 'message:stream', 'tasks']);
  for (const literal of firsts) assert.ok(RESERVED_TENANT_NAMES.includes(literal), literal);
  for (const name of [...RESERVED_TENANT_NAMES, '.', '..']) assert.equal(isReservedTenantName(name), true, name);
  for (const name of ['acme', 'Tasks', 'tasks2', 'a.b', '']) assert.equal(isReservedTenantName(name), false, name);
  // A reserved name is never taken as a /{tenant} prefix.
  assert.equal(matchRoute('GET', ['.well-known', 'tasks']).kind, 'notFound');
});

test(':verb suffixes: tasks/abc:cancel, :subscribe, and ids that merely contain a colon', () => {
  expectRoute('POST', ['tasks', 'abc:cancel'], 'cancelTask', { id: 'abc' });
  expectRoute('POST', ['acme', 'tasks', 'abc:cancel'], 'cancelTask', { tenant: 'acme', id: 'abc' });
  // The suffix is split off the last occurrence only: the id may itself contain colons.
  expectRoute('POST', ['tasks', 'urn:x:1:cancel'], 'cancelTask', { id: 'urn:x:1' });
  expectRoute('GET', ['tasks', 'urn:x:1'], 'getTask', { id: 'urn:x:1' });
  // Wrong method on a verb route: 405 with the allowed method, never GetTask of "abc:cancel".
  assert.deepEqual(matchRoute('GET', ['tasks', 'abc:cancel']), { kind: 'methodNotAllowed', allow: ['POST'] });
  assert.deepEqual(matchRoute('DELETE', ['tasks', 'abc:subscribe']).kind, 'methodNotAllowed');
  // An empty id is not an id.
  assert.equal(matchRoute('POST', ['tasks', ':cancel']).kind, 'notFound');
  // An unknown verb is no route of its own: it is part of a GetTask id, so POST is a 405.
  expectRoute('GET', ['tasks', 'abc:archive'], 'getTask', { id: 'abc:archive' });
  assert.deepEqual(matchRoute('POST', ['tasks', 'abc:archive']), { kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] });
});

test('wrong methods give 405 with the allowed methods (HEAD wherever GET); unknown paths give notFound', () => {
  assert.deepEqual(matchRoute('PUT', ['tasks']), { kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] });
  assert.deepEqual(matchRoute('POST', ['acme', 'tasks']), { kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] });
  assert.deepEqual(matchRoute('GET', ['message:send']), { kind: 'methodNotAllowed', allow: ['POST'] });
  assert.deepEqual(matchRoute('HEAD', ['message:send']), { kind: 'methodNotAllowed', allow: ['POST'] });
  const configs = matchRoute('PATCH', ['tasks', 't', 'pushNotificationConfigs', 'c']);
  assert.equal(configs.kind, 'methodNotAllowed');
  if (configs.kind === 'methodNotAllowed') assert.deepEqual([...configs.allow].sort(), ['DELETE', 'GET', 'HEAD']);
  assert.equal(matchRoute('GET', ['v1', 'tasks', 'x', 'y']).kind, 'notFound');
  assert.equal(matchRoute('GET', ['tasks', 'a', 'b']).kind, 'notFound');
});

test('HEAD matches the GET routes, and only them (RFC 9110 §9.3.2)', () => {
  assert.equal(expectRoute('HEAD', ['tasks'], 'listTasks', {}).method, 'GET');
  expectRoute('HEAD', ['acme', 'tasks', 'abc'], 'getTask', { tenant: 'acme', id: 'abc' });
  expectRoute('HEAD', ['tasks', 'abc:subscribe'], 'subscribeToTask', { id: 'abc' });
  assert.deepEqual(matchRoute('HEAD', ['tasks', 'abc:cancel']), { kind: 'methodNotAllowed', allow: ['POST'] });
});

test('matchRoute takes decoded segments: ids with reserved characters stay one field', () => {
  expectRoute('GET', ['tasks', 'a/b'], 'getTask', { id: 'a/b' });
  expectRoute('GET', ['tasks', 'hello world'], 'getTask', { id: 'hello world' });
  expectRoute('GET', ['tasks', 'ünï?#%'], 'getTask', { id: 'ünï?#%' });
  expectRoute('GET', ['ten/ant', 'tasks', 'a/b'], 'getTask', { tenant: 'ten/ant', id: 'a/b' });
  expectRoute('DELETE', ['tasks', 't/1', 'pushNotificationConfigs', 'c 1'], 'deleteTaskPushNotificationConfig', { taskId: 't/1', id: 'c 1' });
});

// ---- the same through the binding: percent-decoding happens before matchRoute ------------

const handler = createA2AHandler({
  agentCard: {
    name: 'routes',
    description: 'route test agent',
    version: '1',
    supportedInterfaces: [{ url: 'http://localhost/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  },
  executor: {
    async execute(_ctx, task) {
      await task.complete('done');
    },
  },
});

async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await handler.fetch(
    new Request(`http://localhost/a2a/rest${path}`, {
      method,
      headers: { 'a2a-version': '1.0', 'content-type': 'application/a2a+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function errorInfo(json: Record<string, unknown>): Record<string, unknown> | undefined {
  const details = (json.error as { details?: Record<string, unknown>[] } | undefined)?.details ?? [];
  return details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
}

test('over HTTP: a percent-encoded slash in an id is part of the id', async () => {
  const res = await rest('GET', '/tasks/a%2Fb%20c');
  assert.equal(res.status, 404);
  assert.deepEqual(errorInfo(res.json)?.metadata, { taskId: 'a/b c' });
});

test('over HTTP: the tenant prefix scopes tasks (TENANT-06)', async () => {
  const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
  const sent = await rest('POST', '/acme/message:send', { message });
  assert.equal(sent.status, 200, JSON.stringify(sent.json));
  const id = (sent.json.task as { id: string }).id;
  assert.equal((await rest('GET', `/acme/tasks/${encodeURIComponent(id)}`)).status, 200);
  assert.equal((await rest('GET', `/tasks/${encodeURIComponent(id)}`)).status, 404);
  assert.equal((await rest('GET', `/other/tasks/${encodeURIComponent(id)}`)).status, 404);
  const listed = await rest('GET', '/acme/tasks');
  assert.deepEqual(
    (listed.json.tasks as { id: string }[]).map((t) => t.id),
    [id],
  );
  assert.deepEqual((await rest('GET', '/tasks')).json.tasks, []);
  // A percent-encoded tenant is decoded like any other segment.
  const encoded = await rest('POST', '/team%2F1/message:send', { message: { ...message, messageId: 'm-2' } });
  assert.equal(encoded.status, 200);
  const id2 = (encoded.json.task as { id: string }).id;
  assert.equal((await rest('GET', `/team%2F1/tasks/${id2}`)).status, 200);
});

test('over HTTP: a body tenant that differs from the path is refused (B12)', async () => {
  const res = await rest('POST', '/acme/message:send', { tenant: 'other', message: { messageId: 'm-3', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
  assert.equal(res.status, 400);
  assert.equal(errorInfo(res.json)?.reason, 'INVALID_PARAMS');
});

test('over HTTP: cancel accepts an empty body; malformed percent-encoding is a 400', async () => {
  const res = await handler.fetch(new Request('http://localhost/a2a/rest/tasks/nope:cancel', { method: 'POST', headers: { 'a2a-version': '1.0' } }));
  assert.equal(res.status, 404);
  const bad = await rest('GET', '/tasks/%E0%A4%A');
  assert.equal(bad.status, 400);
});
