/**
 * Seeded generators of A2A 1.0 and 0.3 (JSON-RPC dialect) objects for the compat round-trip
 * properties, plus the normalisations that describe what each round trip may legitimately lose.
 */
import { prng } from '../support/prng.js';
import type {
  AgentCard,
  Artifact,
  JsonObject,
  JsonValue,
  Message,
  Part,
  Role,
  SecurityScheme,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from '../../src/protocol/types.js';
import type {
  V03AgentCard,
  V03Artifact,
  V03Message,
  V03Part,
  V03PushNotificationConfig,
  V03SecurityScheme,
  V03StreamEvent,
  V03Task,
  V03TaskState,
  V03TaskStatus,
} from '../../src/compat/v03Types.js';

export class Gen {
  private readonly next: () => number;
  private n = 0;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  id(prefix: string): string {
    return `${prefix}-${++this.n}-${this.int(1e6).toString(36)}`;
  }
  text(): string {
    return this.pick(['', 'hello', 'Grüße 👋', 'line\nbreak', '"quoted"', 'a'.repeat(this.int(40))]);
  }
  list<T>(max: number, fn: () => T, min = 0): T[] {
    const len = min + this.int(max - min + 1);
    return Array.from({ length: len }, fn);
  }
  maybe<T>(fn: () => T, p = 0.5): T | undefined {
    return this.bool(p) ? fn() : undefined;
  }
  json(depth = 2): JsonValue {
    const kind = this.int(depth > 0 ? 7 : 5);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.bool();
      case 2:
        return this.int(1000) - 500;
      case 3:
        return this.text();
      case 4:
        return this.int(100) / 8;
      case 5:
        return this.list(3, () => this.json(depth - 1));
      default:
        return this.object(depth - 1);
    }
  }
  object(depth = 1): JsonObject {
    const out: JsonObject = {};
    for (const key of this.list(3, () => this.pick(['a', 'b', 'c', 'key', 'nested', 'x-y']))) out[key] = this.json(depth);
    return out;
  }
  base64(): string {
    return Buffer.from(this.list(12, () => this.int(256))).toString('base64');
  }
  timestamp(): string {
    return new Date(Date.UTC(2025, this.int(12), 1 + this.int(28), this.int(24), this.int(60), this.int(60), this.int(1000))).toISOString();
  }
}

/** Sets `key` on `out` when `value` is not undefined (typed loosely: generators build optional members). */
export function put<T extends object>(out: T, key: string, value: unknown): T {
  if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}

// The optional members that 1.0 and 0.3 objects share, drawn in the same order for both.

function putMessageOptionals<T extends object>(g: Gen, m: T): T {
  put(m, 'contextId', g.maybe(() => g.id('ctx')));
  put(m, 'taskId', g.maybe(() => g.id('t')));
  put(m, 'referenceTaskIds', g.maybe(() => g.list(2, () => g.id('t'))));
  put(m, 'extensions', g.maybe(() => g.list(2, () => `https://ext.example/${g.id('e')}`)));
  put(m, 'metadata', g.maybe(() => g.object()));
  return m;
}

function putArtifactOptionals<T extends object>(g: Gen, a: T): T {
  put(a, 'name', g.maybe(() => g.text()));
  put(a, 'description', g.maybe(() => g.text()));
  put(a, 'metadata', g.maybe(() => g.object()));
  put(a, 'extensions', g.maybe(() => g.list(2, () => `https://ext.example/${g.id('e')}`)));
  return a;
}

function putStatusOptionals<T extends object>(g: Gen, s: T, agentMessage: () => unknown): T {
  put(s, 'message', g.maybe(agentMessage));
  put(s, 'timestamp', g.maybe(() => g.timestamp()));
  return s;
}

function putTaskOptionals<T extends object>(g: Gen, t: T, message: () => unknown, artifact: () => unknown): T {
  put(t, 'history', g.maybe(() => g.list(3, message)));
  put(t, 'artifacts', g.maybe(() => g.list(3, artifact)));
  put(t, 'metadata', g.maybe(() => g.object()));
  return t;
}

function putArtifactUpdateOptionals<T extends object>(g: Gen, e: T): T {
  put(e, 'append', g.maybe(() => g.bool()));
  put(e, 'lastChunk', g.maybe(() => g.bool()));
  put(e, 'metadata', g.maybe(() => g.object()));
  return e;
}

// ---- 1.0 ----

export const STATES_10: TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_UNSPECIFIED',
];

export function part10(g: Gen): Part {
  let p: Part;
  switch (g.int(5)) {
    case 0:
      p = { text: g.text() };
      break;
    case 1:
      p = { raw: g.base64() };
      break;
    case 2:
      p = { url: `https://files.example.org/${g.id('f')}` };
      break;
    case 3:
      p = { data: g.object() };
      break;
    default:
      p = { data: g.json() };
  }
  put(p, 'mediaType', g.maybe(() => g.pick(['text/plain', 'application/pdf', 'application/json'])));
  put(p, 'filename', g.maybe(() => `${g.id('name')}.bin`));
  put(p, 'metadata', g.maybe(() => g.object()));
  return p;
}

export function message10(g: Gen, role?: Role): Message {
  const m: Message = { messageId: g.id('m'), role: role ?? g.pick<Role>(['ROLE_USER', 'ROLE_AGENT']), parts: g.list(3, () => part10(g), 1) };
  return putMessageOptionals(g, m);
}

export function artifact10(g: Gen): Artifact {
  const a: Artifact = { artifactId: g.id('a'), parts: g.list(3, () => part10(g), 1) };
  return putArtifactOptionals(g, a);
}

export function status10(g: Gen): TaskStatus {
  const s: TaskStatus = { state: g.pick(STATES_10) };
  return putStatusOptionals(g, s, () => message10(g, 'ROLE_AGENT'));
}

export function task10(g: Gen): Task {
  const t: Task = { id: g.id('t'), contextId: g.id('ctx'), status: status10(g) };
  return putTaskOptionals(g, t, () => message10(g), () => artifact10(g));
}

export function streamResponse10(g: Gen): StreamResponse {
  switch (g.int(4)) {
    case 0:
      return { task: task10(g) };
    case 1:
      return { message: message10(g, 'ROLE_AGENT') };
    case 2:
      return { statusUpdate: put({ taskId: g.id('t'), contextId: g.id('ctx'), status: status10(g) }, 'metadata', g.maybe(() => g.object())) };
    default: {
      const e = { taskId: g.id('t'), contextId: g.id('ctx'), artifact: artifact10(g) };
      return { artifactUpdate: putArtifactUpdateOptionals(g, e) };
    }
  }
}

export function pushConfig10(g: Gen, options: { taskId?: boolean } = {}): TaskPushNotificationConfig {
  const c: TaskPushNotificationConfig = { url: `https://hooks.example.net/${g.id('h')}` };
  put(c, 'id', g.maybe(() => g.id('cfg')));
  if (options.taskId ?? true) c.taskId = g.id('t');
  put(c, 'token', g.maybe(() => g.id('tok')));
  put(c, 'authentication', g.maybe(() => put({ scheme: g.pick(['Bearer', 'Basic', 'ApiKey']) }, 'credentials', g.maybe(() => g.id('cred')))));
  return c;
}

function scopes(g: Gen): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of g.list(2, () => g.pick(['read', 'write', 'tasks:write']))) out[s] = g.text();
  return out;
}

export function scheme10(g: Gen): SecurityScheme {
  const description = g.maybe(() => g.text());
  const d = description === undefined ? {} : { description };
  switch (g.int(10)) {
    case 0:
      return { apiKeySecurityScheme: { ...d, location: g.pick(['header', 'query', 'cookie']), name: 'X-Api-Key' } };
    case 1:
      return { httpAuthSecurityScheme: put({ ...d, scheme: 'Bearer' }, 'bearerFormat', g.maybe(() => 'JWT')) };
    case 2:
      return { openIdConnectSecurityScheme: { ...d, openIdConnectUrl: 'https://id.example.org/.well-known/openid-configuration' } };
    case 3:
      return { mtlsSecurityScheme: { ...d } };
    case 4:
      return { oauth2SecurityScheme: { ...d, flows: { authorizationCode: put({ authorizationUrl: 'https://id/a', tokenUrl: 'https://id/t', scopes: scopes(g) }, 'pkceRequired', g.maybe(() => g.bool())) } } };
    case 5:
      return { oauth2SecurityScheme: put({ ...d, flows: { clientCredentials: put({ tokenUrl: 'https://id/t', scopes: scopes(g) }, 'refreshUrl', g.maybe(() => 'https://id/r')) } }, 'oauth2MetadataUrl', g.maybe(() => 'https://id/.well-known/oauth-authorization-server')) };
    case 6:
      return { oauth2SecurityScheme: { ...d, flows: { implicit: { authorizationUrl: 'https://id/a', scopes: scopes(g) } } } };
    case 7:
      return { oauth2SecurityScheme: { ...d, flows: { password: { tokenUrl: 'https://id/t', scopes: scopes(g) } } } };
    case 8:
      return { oauth2SecurityScheme: { ...d, flows: { deviceCode: { deviceAuthorizationUrl: 'https://id/d', tokenUrl: 'https://id/t', scopes: scopes(g) } } } };
    default:
      return { httpAuthSecurityScheme: { scheme: 'Basic' } };
  }
}

export function card10(g: Gen, options: { version?: string } = {}): AgentCard {
  const bindings = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
  const interfaces = g.list(2, () => g.pick(bindings), 1).map((b, i) => ({
    url: `https://agent${i}.example.com/a2a/${b.toLowerCase()}`,
    protocolBinding: b,
    protocolVersion: options.version ?? g.pick(['0.3', '1.0']),
  }));
  const schemeNames = g.list(3, () => g.id('scheme'));
  const req = () => ({ schemes: Object.fromEntries(g.list(2, () => g.pick(schemeNames.length ? schemeNames : ['x'])).map((n) => [n, { list: g.list(2, () => g.pick(['read', 'write'])) }])) });
  const card: AgentCard = {
    name: g.text() || 'agent',
    description: g.text(),
    supportedInterfaces: interfaces,
    version: '1.2.3',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: g.list(2, () => g.pick(['text/plain', 'application/json'])),
    skills: g.list(2, () =>
      put(
        { id: g.id('skill'), name: g.text(), description: g.text(), tags: g.list(2, () => g.pick(['a', 'b'])) },
        'securityRequirements',
        g.maybe(() => g.list(2, req)),
      ),
    ),
  };
  put(card.capabilities, 'streaming', g.maybe(() => g.bool()));
  put(card.capabilities, 'pushNotifications', g.maybe(() => g.bool()));
  put(card.capabilities, 'extendedAgentCard', g.maybe(() => g.bool()));
  put(card.capabilities, 'extensions', g.maybe(() => g.list(2, () => put({ uri: `https://ext.example/${g.id('e')}` }, 'required', g.maybe(() => g.bool())))));
  put(card, 'provider', g.maybe(() => ({ url: 'https://example.com', organization: 'Example' })));
  put(card, 'iconUrl', g.maybe(() => 'https://example.com/icon.png'));
  put(card, 'documentationUrl', g.maybe(() => 'https://example.com/docs'));
  if (g.bool()) card.securitySchemes = Object.fromEntries(schemeNames.map((n) => [n, scheme10(g)]));
  put(card, 'securityRequirements', g.maybe(() => g.list(2, req)));
  put(card, 'signatures', g.maybe(() => [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }]));
  return card;
}

// ---- 0.3 ----

export const STATES_03: V03TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'];

export function part03(g: Gen): V03Part {
  let p: V03Part;
  switch (g.int(4)) {
    case 0:
      p = { kind: 'text', text: g.text() };
      break;
    case 1:
      p = { kind: 'file', file: put(put({ bytes: g.base64() }, 'mimeType', g.maybe(() => 'application/pdf')), 'name', g.maybe(() => 'doc.pdf')) };
      break;
    case 2:
      p = { kind: 'file', file: put(put({ uri: `https://files.example.org/${g.id('f')}` }, 'mimeType', g.maybe(() => 'image/png')), 'name', g.maybe(() => 'x.png')) };
      break;
    default:
      p = { kind: 'data', data: g.object() };
  }
  put(p, 'metadata', g.maybe(() => g.object()));
  return p;
}

export function message03(g: Gen, role?: 'user' | 'agent'): V03Message {
  const m: V03Message = { kind: 'message', messageId: g.id('m'), role: role ?? g.pick(['user', 'agent'] as const), parts: g.list(3, () => part03(g), 1) };
  return putMessageOptionals(g, m);
}

export function artifact03(g: Gen): V03Artifact {
  const a: V03Artifact = { artifactId: g.id('a'), parts: g.list(3, () => part03(g), 1) };
  return putArtifactOptionals(g, a);
}

export function status03(g: Gen): V03TaskStatus {
  const s: V03TaskStatus = { state: g.pick(STATES_03) };
  return putStatusOptionals(g, s, () => message03(g, 'agent'));
}

export function task03(g: Gen): V03Task {
  const t: V03Task = { kind: 'task', id: g.id('t'), contextId: g.id('ctx'), status: status03(g) };
  return putTaskOptionals(g, t, () => message03(g), () => artifact03(g));
}

export function streamEvent03(g: Gen): V03StreamEvent {
  switch (g.int(4)) {
    case 0:
      return task03(g);
    case 1:
      return message03(g, 'agent');
    case 2:
      return put({ kind: 'status-update', taskId: g.id('t'), contextId: g.id('ctx'), status: status03(g), final: g.bool() }, 'metadata', g.maybe(() => g.object()));
    default: {
      const e = { kind: 'artifact-update' as const, taskId: g.id('t'), contextId: g.id('ctx'), artifact: artifact03(g) };
      return putArtifactUpdateOptionals(g, e);
    }
  }
}

export function pushConfig03(g: Gen): V03PushNotificationConfig {
  const c: V03PushNotificationConfig = { url: `https://hooks.example.net/${g.id('h')}` };
  put(c, 'id', g.maybe(() => g.id('cfg')));
  put(c, 'token', g.maybe(() => g.id('tok')));
  put(c, 'authentication', g.maybe(() => put({ schemes: g.list(2, () => g.pick(['Bearer', 'Basic']), 1) }, 'credentials', g.maybe(() => g.id('cred')))));
  return c;
}

function scheme03(g: Gen): V03SecurityScheme {
  const d = put({} as { description?: string }, 'description', g.maybe(() => g.text()));
  switch (g.int(6)) {
    case 0:
      return { type: 'apiKey', in: g.pick(['header', 'query', 'cookie'] as const), name: 'X-Api-Key', ...d };
    case 1:
      return put({ type: 'http' as const, scheme: 'Bearer', ...d }, 'bearerFormat', g.maybe(() => 'JWT'));
    case 2:
      return { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.org/.well-known/openid-configuration', ...d };
    case 3:
      return { type: 'mutualTLS', ...d };
    default: {
      const flows: Record<string, unknown> = {};
      if (g.bool()) flows.authorizationCode = { authorizationUrl: 'https://id/a', tokenUrl: 'https://id/t', scopes: scopes(g) };
      if (g.bool()) flows.clientCredentials = { tokenUrl: 'https://id/t', scopes: scopes(g) };
      if (g.bool()) flows.implicit = { authorizationUrl: 'https://id/a', scopes: scopes(g) };
      if (g.bool() || Object.keys(flows).length === 0) flows.password = { tokenUrl: 'https://id/t', scopes: scopes(g) };
      return put({ type: 'oauth2' as const, flows, ...d }, 'oauth2MetadataUrl', g.maybe(() => 'https://id/meta'));
    }
  }
}

export function card03(g: Gen): V03AgentCard {
  const schemeNames = g.list(3, () => g.id('scheme'));
  const req = () => Object.fromEntries(g.list(2, () => g.pick(schemeNames.length ? schemeNames : ['x'])).map((n) => [n, g.list(2, () => g.pick(['read', 'write']))]));
  const transports = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
  const card: V03AgentCard = {
    protocolVersion: '0.3.0',
    name: g.text() || 'agent',
    description: g.text(),
    url: 'https://agent.example.com/a2a/jsonrpc',
    version: '0.0.1',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: g.list(2, () => put({ id: g.id('skill'), name: g.text(), description: g.text(), tags: ['x'] }, 'security', g.maybe(() => g.list(2, req)))),
  };
  put(card, 'preferredTransport', g.maybe(() => g.pick(transports)));
  put(card, 'additionalInterfaces', g.maybe(() => g.list(2, () => g.pick(transports)).map((t, i) => ({ url: `https://agent${i}.example.com/${t}`, transport: t }))));
  put(card.capabilities, 'streaming', g.maybe(() => g.bool()));
  put(card.capabilities, 'pushNotifications', g.maybe(() => g.bool()));
  put(card.capabilities, 'stateTransitionHistory', g.maybe(() => g.bool()));
  put(card, 'supportsAuthenticatedExtendedCard', g.maybe(() => g.bool()));
  put(card, 'provider', g.maybe(() => ({ url: 'https://example.com', organization: 'Example' })));
  if (g.bool()) card.securitySchemes = Object.fromEntries(schemeNames.map((n) => [n, scheme03(g)]));
  put(card, 'security', g.maybe(() => g.list(2, req)));
  put(card, 'signatures', g.maybe(() => [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }]));
  return card;
}

/** A JSON deep copy (also drops undefined members). */
export function clone<T>(value: T): T {
  if (value === undefined) return value;
  return JSON.parse(JSON.stringify(value)) as T;
}
