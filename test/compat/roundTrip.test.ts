/**
 * Property tests (seeded): every object, request and result survives 1.0 → 0.3 → 1.0 and
 * 0.3 → 1.0 → 0.3 unchanged, up to the normalisations below, which are exactly the documented
 * lossy fields (docs/compat.md). Translated 1.0 requests pass the 1.0 decoder; translated 1.0
 * objects pass the protobuf-es JSON reader of the generated schemas (which rejects unknown
 * members such as a leftover `kind`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequest } from '../../src/protocol/operations.js';
import type { AgentCard, OperationName, OperationRequests, Part, SecurityScheme, StreamResponse, TaskPushNotificationConfig } from '../../src/protocol/types.js';
import {
  agentCardToV03,
  agentCardToV10,
  messageToV03,
  messageToV10,
  partToV03,
  partToV10,
  requestToV03,
  requestToV10,
  resultToV03,
  resultToV10,
  streamEventToV10,
  streamResponseToV03,
  taskPushConfigToV03,
  taskPushConfigToV10,
  taskToV03,
  taskToV10,
  V03_METHODS,
  type V03Method,
} from '../../src/compat/index.js';
import type { V03AgentCard, V03PushNotificationConfig, V03StreamEvent, V03TaskPushNotificationConfig } from '../../src/compat/v03Types.js';
import {
  card03,
  card10,
  clone,
  Gen,
  message03,
  message10,
  part03,
  part10,
  pushConfig03,
  pushConfig10,
  put,
  streamEvent03,
  streamResponse10,
  task03,
  task10,
} from './generators.js';
import { AgentCardSchema, assertProto, MessageSchema, StreamResponseSchema, TaskPushNotificationConfigSchema, TaskSchema } from './protoJson.js';

const SEEDS = Array.from({ length: 300 }, (_, i) => 0x5eed + i);

function forAll(name: string, body: (g: Gen, seed: number) => void): void {
  test(name, () => {
    for (const seed of SEEDS) {
      try {
        body(new Gen(seed), seed);
      } catch (error) {
        if (error instanceof Error) error.message = `seed ${seed}: ${error.message}`;
        throw error;
      }
    }
  });
}

// ---- normalisations: what each direction may lose ----

/**
 * 1.0 → 0.3 → 1.0 drops mediaType and filename of text and data parts, and an empty metadata
 * object of a non-object data part (indistinguishable from none once the compat flag is removed).
 */
function norm10Part(p: Part): Part {
  if ('raw' in p || 'url' in p) return p;
  const { mediaType: _m, filename: _f, ...rest } = p;
  if ('data' in rest && (typeof rest.data !== 'object' || rest.data === null || Array.isArray(rest.data)) && rest.metadata && Object.keys(rest.metadata).length === 0) {
    delete rest.metadata;
  }
  return rest as Part;
}
const norm10Parts = <T extends { parts: Part[] }>(x: T): T => ({ ...x, parts: x.parts.map(norm10Part) });
function norm10<T>(value: T): T {
  // Parts occur in messages and artifacts, nested anywhere: walk the JSON.
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'metadata' || k === 'data' ? x : walk(x)]));
    return 'parts' in o && Array.isArray(o.parts) ? norm10Parts(o as { parts: Part[] }) : o;
  };
  return walk(clone(value)) as T;
}

const TERMINAL_OR_INTERRUPTED = new Set(['completed', 'canceled', 'failed', 'rejected', 'input-required', 'auth-required']);

/** 0.3 → 1.0 → 0.3: `final` becomes "terminal or interrupted"; only the first auth scheme survives. */
function norm03Event(e: V03StreamEvent): V03StreamEvent {
  return e.kind === 'status-update' ? { ...e, final: TERMINAL_OR_INTERRUPTED.has(e.status.state) } : e;
}
function norm03Push(c: V03PushNotificationConfig): V03PushNotificationConfig {
  return c.authentication ? { ...c, authentication: { ...c.authentication, schemes: c.authentication.schemes.slice(0, 1) } } : c;
}

function norm10Scheme(s: SecurityScheme): SecurityScheme | undefined {
  if (!('oauth2SecurityScheme' in s)) return s;
  const flows = s.oauth2SecurityScheme.flows;
  if ('deviceCode' in flows) return undefined;
  if ('authorizationCode' in flows) {
    const { pkceRequired: _p, ...flow } = flows.authorizationCode;
    return { oauth2SecurityScheme: { ...s.oauth2SecurityScheme, flows: { authorizationCode: flow } } };
  }
  return s;
}

/** 1.0 → 0.3 → 1.0 card: the 0.3 interfaces only (all if none), version 0.3, no pkce/device code. */
function norm10Card(card: AgentCard): AgentCard {
  const v03 = card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  const chosen = (v03.length > 0 ? v03 : card.supportedInterfaces).map((i) => ({ url: i.url, protocolBinding: i.protocolBinding, protocolVersion: '0.3' }));
  const interfaces = chosen.filter((i, n) => chosen.findIndex((j) => j.url === i.url && j.protocolBinding === i.protocolBinding) === n);
  const out: AgentCard = { ...clone(card), supportedInterfaces: interfaces };
  if (card.securitySchemes) {
    out.securitySchemes = {};
    for (const [name, s] of Object.entries(card.securitySchemes)) {
      const n = norm10Scheme(s);
      if (n) out.securitySchemes[name] = n;
    }
  }
  return out;
}

/** 0.3 → 1.0 → 0.3 card: explicit preferredTransport, the main interface listed, one OAuth flow. */
function norm03Card(card: V03AgentCard): V03AgentCard {
  const out = clone(card);
  out.preferredTransport = card.preferredTransport ?? 'JSONRPC';
  const all = [{ url: card.url, transport: out.preferredTransport }, ...(card.additionalInterfaces ?? [])];
  out.additionalInterfaces = all.filter((i, n) => all.findIndex((j) => j.url === i.url && j.transport === i.transport) === n);
  delete out.capabilities.stateTransitionHistory;
  for (const scheme of Object.values(out.securitySchemes ?? {})) {
    if (scheme.type !== 'oauth2') continue;
    const name = (['authorizationCode', 'clientCredentials', 'implicit', 'password'] as const).find((f) => scheme.flows[f]);
    scheme.flows = name ? { [name]: scheme.flows[name] } : {};
  }
  return out;
}

// ---- objects ----

describe('compat round trips: objects', () => {
  forAll('part 1.0 → 0.3 → 1.0', (g) => {
    const p = part10(g);
    assert.deepEqual(partToV10(clone(partToV03(p))), norm10Part(p));
  });
  forAll('part 0.3 → 1.0 → 0.3 (exact)', (g) => {
    const p = part03(g);
    assert.deepEqual(partToV03(partToV10(clone(p))), p);
  });
  forAll('message both ways; the 1.0 form is valid ProtoJSON', (g) => {
    const m = message10(g);
    assert.deepEqual(messageToV10(clone(messageToV03(m))), norm10(m));
    const m03 = message03(g);
    const up = messageToV10(clone(m03));
    assertProto(MessageSchema, up);
    assert.deepEqual(messageToV03(up), m03);
  });
  forAll('task both ways; the 1.0 form is valid ProtoJSON', (g) => {
    const t = task10(g);
    assert.deepEqual(taskToV10(clone(taskToV03(t))), norm10(t));
    const t03 = task03(g);
    const up = taskToV10(clone(t03));
    assertProto(TaskSchema, up);
    assert.deepEqual(taskToV03(up), t03);
  });
  forAll('stream events both ways; the 1.0 form is valid ProtoJSON', (g) => {
    const e = streamResponse10(g);
    assert.deepEqual(streamEventToV10(clone(streamResponseToV03(e))), norm10(e));
    const e03 = streamEvent03(g);
    const up: StreamResponse = streamEventToV10(clone(e03));
    assertProto(StreamResponseSchema, up);
    assert.deepEqual(streamResponseToV03(up), norm03Event(e03));
  });
  forAll('push configs both ways; the 1.0 form is valid ProtoJSON', (g) => {
    const c = pushConfig10(g);
    assert.deepEqual(taskPushConfigToV10(clone(taskPushConfigToV03(c))), c);
    const c03: V03TaskPushNotificationConfig = { taskId: g.id('t'), pushNotificationConfig: pushConfig03(g) };
    const up = taskPushConfigToV10(clone(c03));
    assertProto(TaskPushNotificationConfigSchema, up);
    assert.deepEqual(taskPushConfigToV03(up), { ...c03, pushNotificationConfig: norm03Push(c03.pushNotificationConfig) });
  });
  forAll('agent card both ways; the 1.0 form is valid ProtoJSON', (g) => {
    const c = card10(g);
    assert.deepEqual(agentCardToV10(clone(agentCardToV03(c, { keepSignatures: true })), { keepSignatures: true }), norm10Card(c));
    const c03 = card03(g);
    const up = agentCardToV10(clone(c03), { keepSignatures: true });
    assertProto(AgentCardSchema, up);
    assert.deepEqual(agentCardToV03(up, { keepSignatures: true }), norm03Card(c03));
  });
});

// ---- requests ----

function params03(method: V03Method, g: Gen): unknown {
  const taskId = g.id('t');
  const metadata = g.maybe(() => g.object());
  switch (method) {
    case 'message/send':
    case 'message/stream': {
      const configuration = g.maybe(() => {
        const c = {};
        put(c as { acceptedOutputModes?: string[] }, 'acceptedOutputModes', g.maybe(() => g.list(2, () => 'text/plain')));
        put(c as { historyLength?: number }, 'historyLength', g.maybe(() => g.int(10)));
        put(c as { blocking?: boolean }, 'blocking', g.maybe(() => g.bool()));
        put(c as { pushNotificationConfig?: V03PushNotificationConfig }, 'pushNotificationConfig', g.maybe(() => pushConfig03(g)));
        return c;
      });
      return put(put({ message: message03(g, 'user') } as Record<string, unknown>, 'configuration', configuration), 'metadata', metadata);
    }
    case 'tasks/get':
      return put(put({ id: taskId } as Record<string, unknown>, 'historyLength', g.maybe(() => g.int(5))), 'metadata', metadata);
    case 'tasks/cancel':
    case 'tasks/resubscribe':
    case 'tasks/pushNotificationConfig/list':
      return put({ id: taskId } as Record<string, unknown>, 'metadata', metadata);
    case 'tasks/pushNotificationConfig/set':
      return { taskId, pushNotificationConfig: pushConfig03(g) };
    case 'tasks/pushNotificationConfig/get':
      return put(put({ id: taskId } as Record<string, unknown>, 'pushNotificationConfigId', g.maybe(() => g.id('cfg'))), 'metadata', metadata);
    case 'tasks/pushNotificationConfig/delete':
      return put({ id: taskId, pushNotificationConfigId: g.id('cfg') } as Record<string, unknown>, 'metadata', metadata);
    case 'agent/getAuthenticatedExtendedCard':
      return undefined;
  }
}

/** 0.3 → 1.0 → 0.3 of params: metadata has no 1.0 home except on cancel; 0.3 defaults made explicit. */
function norm03Params(method: V03Method, input: unknown): unknown {
  if (input === undefined) return undefined;
  const p = clone(input) as Record<string, unknown>;
  if (method !== 'tasks/cancel' && method !== 'message/send' && method !== 'message/stream') delete p.metadata;
  if (method === 'tasks/pushNotificationConfig/get') p.pushNotificationConfigId ??= p.id;
  if (method === 'tasks/pushNotificationConfig/set') {
    const c = p.pushNotificationConfig as V03PushNotificationConfig;
    p.pushNotificationConfig = norm03Push({ ...c, id: c.id ?? (p.taskId as string) });
  }
  const config = p.configuration as { pushNotificationConfig?: V03PushNotificationConfig } | undefined;
  if (config?.pushNotificationConfig) config.pushNotificationConfig = norm03Push(config.pushNotificationConfig);
  return p;
}

function request10(operation: OperationName, g: Gen): OperationRequests[OperationName] {
  const tenant = g.maybe(() => g.id('tenant'));
  const base = tenant === undefined ? {} : { tenant };
  switch (operation) {
    case 'sendMessage':
    case 'sendStreamingMessage': {
      const configuration = g.maybe(() => {
        const c = {};
        put(c as { acceptedOutputModes?: string[] }, 'acceptedOutputModes', g.maybe(() => ['text/plain']));
        put(c as { historyLength?: number }, 'historyLength', g.maybe(() => g.int(10)));
        put(c as { returnImmediately?: boolean }, 'returnImmediately', g.maybe(() => g.bool()));
        put(c as { taskPushNotificationConfig?: TaskPushNotificationConfig }, 'taskPushNotificationConfig', g.maybe(() => pushConfig10(g, { taskId: false })));
        return c;
      });
      return put(put({ ...base, message: message10(g, 'ROLE_USER') }, 'configuration', configuration), 'metadata', g.maybe(() => g.object()));
    }
    case 'getTask':
      return put({ ...base, id: g.id('t') }, 'historyLength', g.maybe(() => g.int(5)));
    case 'cancelTask':
      return put({ ...base, id: g.id('t') }, 'metadata', g.maybe(() => g.object()));
    case 'subscribeToTask':
      return { ...base, id: g.id('t') };
    case 'createTaskPushNotificationConfig':
      return { ...base, ...pushConfig10(g) };
    case 'getTaskPushNotificationConfig':
    case 'deleteTaskPushNotificationConfig':
      return { ...base, taskId: g.id('t'), id: g.id('cfg') };
    case 'listTaskPushNotificationConfigs':
      return put(put({ ...base, taskId: g.id('t') }, 'pageSize', g.maybe(() => 1 + g.int(5))), 'pageToken', g.maybe(() => g.id('page')));
    default:
      return { ...base };
  }
}

/** 1.0 → 0.3 → 1.0 of a request: no tenant, no list paging; Create gets id = taskId when it had none. */
function norm10Request(operation: OperationName, input: OperationRequests[OperationName]): unknown {
  const r = norm10(clone(input)) as Record<string, unknown>;
  delete r.tenant;
  if (operation === 'listTaskPushNotificationConfigs') {
    delete r.pageSize;
    delete r.pageToken;
  }
  if (operation === 'createTaskPushNotificationConfig') r.id ??= r.taskId;
  return r;
}

const OPERATIONS = [...new Set(Object.values(V03_METHODS).map((m) => m.operation))];

describe('compat round trips: requests', () => {
  for (const method of Object.keys(V03_METHODS) as V03Method[]) {
    forAll(`${method}: 0.3 → 1.0 (passes decodeRequest) → 0.3`, (g) => {
      const params = params03(method, g);
      const { operation, request } = requestToV10(method, clone(params));
      assert.equal(operation, V03_METHODS[method].operation);
      decodeRequest(operation, request);
      const back = requestToV03(operation, request as never);
      assert.equal(back.method, method === 'message/stream' ? 'message/stream' : V03_METHODS[method].method);
      assert.deepEqual(back.params, norm03Params(method, params));
    });
  }
  for (const operation of OPERATIONS) {
    forAll(`${operation}: 1.0 → 0.3 → 1.0`, (g) => {
      const request = request10(operation, g);
      const call = requestToV03(operation, request as never);
      assert.equal(V03_METHODS[call.method].operation, operation);
      const { request: back } = requestToV10(call.method, clone(call.params));
      assert.deepEqual(back, norm10Request(operation, request));
    });
  }
  test('listTasks has no 0.3 method', () => {
    assert.throws(() => requestToV03('listTasks', {}), { name: 'UnsupportedOperationError' });
  });
});

// ---- results ----

describe('compat round trips: results', () => {
  forAll('every unary result 1.0 → 0.3 → 1.0', (g) => {
    const task = task10(g);
    const config = pushConfig10(g);
    const configs = g.list(3, () => pushConfig10(g));
    const card = card10(g);
    const sent = g.bool() ? { task } : { message: message10(g, 'ROLE_AGENT') };
    assert.deepEqual(resultToV10('message/send', clone(resultToV03('message/send', sent))), norm10(sent));
    assert.deepEqual(resultToV10('tasks/get', clone(resultToV03('tasks/get', task))), norm10(task));
    assert.deepEqual(resultToV10('tasks/cancel', clone(resultToV03('tasks/cancel', task))), norm10(task));
    assert.deepEqual(resultToV10('tasks/pushNotificationConfig/set', clone(resultToV03('tasks/pushNotificationConfig/set', config))), config);
    assert.deepEqual(resultToV10('tasks/pushNotificationConfig/get', clone(resultToV03('tasks/pushNotificationConfig/get', config))), config);
    const listed = resultToV03('tasks/pushNotificationConfig/list', put({ configs }, 'nextPageToken', g.maybe(() => '')));
    assert.ok(Array.isArray(listed));
    assert.deepEqual(resultToV10('tasks/pushNotificationConfig/list', clone(listed)), { configs });
    assert.equal(resultToV03('tasks/pushNotificationConfig/delete', {}), null);
    assert.deepEqual(resultToV10('tasks/pushNotificationConfig/delete', null), {});
    const { signatures: _s, ...unsigned } = norm10Card(card);
    assert.deepEqual(resultToV10('agent/getAuthenticatedExtendedCard', clone(resultToV03('agent/getAuthenticatedExtendedCard', card))), unsigned);
  });
  test('an untranslatable 0.3 result is InvalidAgentResponseError with the field', () => {
    assert.throws(() => resultToV10('tasks/get', { kind: 'task', id: 't', contextId: 'c', status: { state: 'running' } }), (e: Error & { reason?: string; fieldViolations?: { field: string }[] }) => {
      assert.equal(e.reason, 'INVALID_AGENT_RESPONSE');
      assert.equal(e.fieldViolations?.[0]?.field, 'result.status.state');
      return true;
    });
  });
});
