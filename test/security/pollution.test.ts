/**
 * R17 no prototype pollution, over all three bindings (issue 8). `__proto__`, `constructor` and
 * `prototype` keys go into request params, metadata (request, message, part), message and
 * artifact `data` parts, extension URIs and extension-keyed metadata, push notification configs
 * and query strings — as JSON text over JSON-RPC and HTTP+JSON, as google.protobuf.Struct map
 * keys written byte by byte over gRPC — and an agent emits artifacts (and appended chunks, which
 * the server merges) whose metadata and data carry own `__proto__` keys. The servers run in this
 * process, so afterwards `({}).polluted` must be undefined and Object.prototype unchanged here.
 *
 * What happens to such keys (asserted, so a change is noticed): a `__proto__` KEY of metadata or
 * `data` (a Struct or map key: data) is REFUSED on every binding, INVALID_PARAMS naming each one,
 * and nothing is stored — never dropped silently; a `__proto__` MEMBER of a request message (the
 * envelope, params, a message, a push config) is an unknown field, dropped like any other
 * (OPS-05); `constructor` and `prototype` are ordinary data and round-trip. An agent's write with
 * own `__proto__` keys is refused at its call (a TypeError naming the key: agent writes go
 * through the request decoder, src/server/agentWrites.ts), so none reaches the store, the append
 * merge or the wire.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import { status as grpcStatus } from '@grpc/grpc-js';
import { SendMessageResponseSchema, TaskSchema } from '../../src/gen/a2a_pb.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { JsonObject } from '../../src/protocol/types.js';
import { restBinding, jsonRpcBinding, type Json } from '../support/bindings.js';
import { ok, uid } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';
import { startGrpcServer, type GrpcTestServer } from '../grpc/support.js';
import { rawCall, trailerError } from '../grpc/wire.js';

const EVIL = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true},"nested":{"__proto__":{"polluted":true}}}';
/** EVIL without its `__proto__` keys: what may be stored. */
const SAFE = '{"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true},"nested":{"prototype":{"polluted":true}}}';
const EXT = 'https://example.com/ext/__proto__';

/** The agent's writes refused (their TypeError messages). */
const agentRefusals: string[] = [];

/** `write`, which must be refused as carrying a `__proto__` key. */
async function refused(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    agentRefusals.push(error instanceof Error ? error.message : String(error));
    return;
  }
  agentRefusals.push('NOT REFUSED');
}

/**
 * An agent that echoes the user's parts and metadata into an artifact, tries to append a chunk
 * (a merge) and to add an artifact with own `__proto__` keys (both refused), and writes the same
 * with only `constructor` / `prototype` keys.
 */
const echoAgent: AgentExecutor = {
  async execute(ctx, task) {
    const artifactId = await task.addArtifact(ctx.message.parts, { metadata: (ctx.message.metadata ?? {}) as JsonObject });
    await refused(() => task.addArtifact([{ data: JSON.parse(EVIL), mediaType: 'application/json' }], { artifactId, append: true }));
    await refused(() => task.addArtifact([{ text: 'own keys' }], { metadata: JSON.parse(EVIL) as JsonObject }));
    await refused(() => task.addArtifact([{ text: 'own keys', metadata: JSON.parse(EVIL) }]));
    await task.addArtifact([{ data: JSON.parse(SAFE), mediaType: 'application/json' }], { artifactId, append: true, metadata: JSON.parse(SAFE) as JsonObject });
    await task.addArtifact([{ text: 'own keys', metadata: JSON.parse(SAFE) }], { metadata: JSON.parse(SAFE), extensions: ['__proto__', 'constructor'] });
    await task.complete();
  },
};

/** The agent's three writes with `__proto__` keys were refused, naming the key. */
function assertAgentRefused(where: string): void {
  assert.equal(agentRefusals.length, 3, `${where}: ${JSON.stringify(agentRefusals)}`);
  for (const message of agentRefusals) assert.match(message, /__proto__ is not allowed as a key/, where);
  agentRefusals.length = 0;
}

const protoNames = Object.getOwnPropertyNames(Object.prototype).sort();

function assertNoPollution(where: string): void {
  assert.equal(({} as Json).polluted, undefined, `${where}: ({}).polluted`);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false, where);
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoNames, `${where}: Object.prototype members`);
  assert.equal(Object.getPrototypeOf(Object.prototype), null, where);
  assert.equal(({}).constructor, Object, where);
  assert.equal(([] as Json).polluted, undefined, `${where}: [].polluted`);
  assert.equal((Object.create(null) as Json).polluted, undefined, where);
}

/** Every own key anywhere in a JSON value. */
function ownKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (value && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      out.add(k);
      ownKeys((value as Record<string, unknown>)[k], out);
    }
  }
  return out;
}

/**
 * The SendMessage body with evil keys at every level, as JSON text (JSON.stringify cannot write
 * `__proto__`): `data` is the JSON of every metadata and data object (EVIL: with `__proto__`
 * keys, refused; SAFE: without). Message and push config members named `__proto__` are in both.
 */
function evilSendBody(messageId: string, data: string): string {
  const protoKey = data === EVIL ? '"__proto__":{"polluted":true},' : '';
  const message =
    `{"messageId":"${messageId}","role":"ROLE_USER","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},` +
    `"extensions":["__proto__","constructor","${EXT}"],"metadata":{"${EXT}":${data},${protoKey}"k":${data}},` +
    `"parts":[{"text":"hi proto","metadata":${data}},{"data":${data},"mediaType":"application/json"},{"data":[${data}]}]}`;
  const push = `{"url":"https://hooks.example.com/p","token":"t","__proto__":{"polluted":true},"authentication":{"scheme":"Bearer","credentials":"c","__proto__":{"polluted":true}}}`;
  return `{"message":${message},"metadata":${data},"configuration":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"taskPushNotificationConfig":${push},"pushNotificationConfig":${push}},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`;
}

/**
 * The violations of the EVIL body: each `__proto__` key of metadata and data (message members
 * named `__proto__` are unknown fields, dropped: not among them).
 */
const REFUSED_KEYS = [
  `message.metadata.${EXT}.__proto__`,
  `message.metadata.${EXT}.nested.__proto__`,
  'message.metadata.__proto__',
  'message.metadata.k.__proto__',
  'message.metadata.k.nested.__proto__',
  'message.parts[0].metadata.__proto__',
  'message.parts[0].metadata.nested.__proto__',
  'message.parts[1].data.__proto__',
  'message.parts[1].data.nested.__proto__',
  'message.parts[2].data[0].__proto__',
  'message.parts[2].data[0].nested.__proto__',
  'metadata.__proto__',
  'metadata.nested.__proto__',
];

/** INVALID_PARAMS naming exactly the `__proto__` keys of the EVIL body. */
function checkRefusal(violations: { field: string; description: string }[], binding: string): void {
  assert.deepEqual(violations.map((v) => v.field).sort(), [...REFUSED_KEYS].sort(), binding);
  for (const v of violations) assert.match(v.description, /not allowed as a key/, binding);
}

/**
 * The task as stored and returned, from the SAFE body: no `__proto__` key anywhere (the agent's
 * were refused), `constructor` / `prototype` kept as data, message members named `__proto__` dropped.
 */
function checkStoredTask(task: Json, binding: string): void {
  assert.equal(ownKeys(task).has('__proto__'), false, `${binding}: no __proto__ key stored`);
  const user = task.history.find((m: Json) => m.role === 'ROLE_USER');
  assert.ok(user, `${binding}: the user message is in history`);
  assert.equal(Object.getPrototypeOf(user.parts[1].data), Object.prototype, `${binding}: data keeps a plain prototype`);
  assert.deepEqual(user.parts[1].data.constructor, { prototype: { polluted: true } }, `${binding}: constructor key kept as data`);
  assert.deepEqual(user.parts[1].data.prototype, { polluted: true }, `${binding}: prototype key kept as data`);
  assert.deepEqual(user.parts[1].data.nested, { prototype: { polluted: true } });
  assert.deepEqual(user.metadata.k.constructor, { prototype: { polluted: true } });
  assert.deepEqual(user.extensions, ['__proto__', 'constructor', EXT], 'extension URIs are strings');
  // The agent's artifacts: the echo plus an appended chunk (merged by the server), then its own.
  const [echo, second] = task.artifacts;
  assert.equal(task.artifacts.length, 2, `${binding}: the refused writes added nothing`);
  assert.equal(echo.parts.length, 4, `${binding}: echoed parts plus the appended chunk`);
  assert.deepEqual(echo.parts[3].data.prototype, { polluted: true });
  assert.deepEqual(echo.metadata.constructor, { prototype: { polluted: true } }, `${binding}: the append's metadata merged`);
  assert.deepEqual(second.metadata.constructor, { prototype: { polluted: true } });
  assert.deepEqual(second.extensions, ['__proto__', 'constructor']);
  for (const o of [echo.parts[3].data, echo.metadata, second.metadata, second.parts[0].metadata]) {
    assert.equal(Object.getPrototypeOf(o), Object.prototype, `${binding}: artifact data keeps a plain prototype`);
  }
}

describe('R17 no prototype pollution: JSON-RPC and HTTP+JSON', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ executor: echoAgent });
  });
  after(() => server.close());

  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': `__proto__, constructor, ${EXT}`, ...headers }, body });

  test('JSON-RPC: evil keys in the envelope, params, metadata, data parts, extensions and push configs', async () => {
    const messageId = uid('m');
    const send = (data: string) => post(server.jsonRpcUrl, `{"jsonrpc":"2.0","id":"p","method":"SendMessage","__proto__":{"polluted":true},"params":${evilSendBody(messageId, data)}}`);
    const refusal = (await (await send(EVIL)).json()) as Json;
    assert.equal(refusal.error?.code, -32602, JSON.stringify(refusal));
    checkRefusal(refusal.error.data.find((d: Json) => d.fieldViolations).fieldViolations, 'JSON-RPC');
    assertNoPollution('JSON-RPC SendMessage refused');
    // Nothing was recorded: the same messageId, without the __proto__ keys, is a new message.
    const body = (await (await send(SAFE)).json()) as Json;
    assert.equal(body.error, undefined, JSON.stringify(body.error));
    const task = body.result.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assertNoPollution('JSON-RPC SendMessage');
    assertAgentRefused('JSON-RPC');
    checkStoredTask(ok(await jsonRpcBinding(server.jsonRpcUrl).call('getTask', { id: task.id })), 'JSON-RPC');
    const cfg = await post(server.jsonRpcUrl, `{"jsonrpc":"2.0","id":2,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"${task.id}","url":"https://hooks.example.com/q","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"authentication":{"scheme":"Bearer","credentials":"c","__proto__":{"polluted":true}}}}`);
    const created = ((await cfg.json()) as Json).result;
    assert.equal(created.url, 'https://hooks.example.com/q');
    assert.equal(ownKeys(created).has('__proto__'), false);
    for (const params of [`{"__proto__":{"polluted":true},"pageSize":1}`, `{"id":"__proto__"}`, `{"id":"constructor","historyLength":1}`, `{"constructor":{"prototype":{"polluted":true}}}`]) {
      for (const method of ['ListTasks', 'GetTask', 'CancelTask', 'ListTaskPushNotificationConfigs', '__proto__', 'constructor', 'hasOwnProperty']) {
        const r = await post(server.jsonRpcUrl, `{"jsonrpc":"2.0","id":3,"method":"${method}","params":${params}}`);
        assert.equal(r.status, 200, `${method} ${params}`);
      }
    }
    assertNoPollution('JSON-RPC other methods');
  });

  test('HTTP+JSON: the same body, push configs, query strings and path segments', async () => {
    const messageId = uid('m');
    const refusal = await post(`${server.restUrl}/message:send`, evilSendBody(messageId, EVIL), { 'content-type': 'application/a2a+json' });
    assert.equal(refusal.status, 400);
    checkRefusal(((await refusal.json()) as Json).error.details.find((d: Json) => d.fieldViolations).fieldViolations, 'HTTP+JSON');
    assertNoPollution('REST message:send refused');
    const res = await post(`${server.restUrl}/message:send`, evilSendBody(messageId, SAFE), { 'content-type': 'application/a2a+json' });
    assert.equal(res.status, 200, await res.clone().text());
    const task = ((await res.json()) as Json).task;
    assertNoPollution('REST message:send');
    assertAgentRefused('HTTP+JSON');
    checkStoredTask(ok(await restBinding(server.restUrl).call('getTask', { id: task.id })), 'HTTP+JSON');
    const cfg = await post(`${server.restUrl}/tasks/${task.id}/pushNotificationConfigs`, `{"url":"https://hooks.example.com/r","__proto__":{"polluted":true},"authentication":{"scheme":"Bearer","__proto__":{"polluted":true}}}`);
    assert.equal(cfg.status, 200, await cfg.clone().text());
    for (const path of [
      `/tasks?__proto__=x&constructor=y&prototype=z&__proto__[polluted]=true&pageSize=5`,
      `/tasks/${task.id}?__proto__.polluted=true&historyLength=1`,
      '/tasks/__proto__', '/__proto__/tasks', '/constructor/tasks/x', '/prototype/message:send', '/tasks/__proto__/pushNotificationConfigs/constructor',
    ]) {
      const r = await fetch(server.restUrl + path, { headers: { 'a2a-version': '1.0' } });
      assert.ok(r.status < 500, `${path}: ${r.status}`);
      await r.arrayBuffer();
    }
    const tenant = await post(`${server.restUrl}/__proto__/message:send`, evilSendBody(uid('m'), SAFE));
    assert.equal(tenant.status, 200, 'a tenant named __proto__ is just a name');
    assertAgentRefused('HTTP+JSON tenant');
    assertNoPollution('REST other routes');
  });
});

// ---- gRPC: google.protobuf.Struct written by hand, so `__proto__` really is a map key on the wire.

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}
const ld = (no: number, bytes: number[]): number[] => [(no << 3) | 2, ...varint(bytes.length), ...bytes];
const str = (no: number, s: string): number[] => ld(no, [...Buffer.from(s, 'utf8')]);

/** google.protobuf.Value: 1 null, 3 string, 4 bool, 5 struct, 6 list. */
function value(v: unknown): number[] {
  if (v === null) return [0x08, 0];
  if (typeof v === 'string') return str(3, v);
  if (typeof v === 'boolean') return [0x20, v ? 1 : 0];
  if (Array.isArray(v)) return ld(6, v.flatMap((item) => ld(1, value(item))));
  return ld(5, struct(v as Record<string, unknown>));
}
/** google.protobuf.Struct: 1 fields (map entries: 1 key, 2 Value). Object.keys sees own `__proto__`. */
function struct(o: Record<string, unknown>): number[] {
  return Object.keys(o).flatMap((k) => ld(1, [...str(1, k), ...ld(2, value(o[k]))]));
}

/** The SendMessage request with `data` (EVIL or SAFE) as every Struct, `__proto__` a real map key on the wire. */
function evilSendRequest(messageId: string, data: string): Uint8Array {
  const evil = JSON.parse(data) as Record<string, unknown>;
  const part = (bytes: number[]) => ld(5, bytes);
  const message = [
    ...str(1, messageId),
    0x20, 1, // role ROLE_USER
    ...part([...str(1, 'hi proto'), ...ld(5, struct(evil))]),
    ...part([...ld(4, value(evil)), ...str(7, 'application/json')]),
    ...part([...ld(4, value([evil]))]),
    ...ld(6, struct({ [EXT]: evil, ...(data === EVIL ? JSON.parse('{"__proto__":{"polluted":true}}') : {}), k: evil })),
    ...str(7, '__proto__'), ...str(7, 'constructor'), ...str(7, EXT),
  ];
  return Uint8Array.from([...ld(2, message), ...ld(4, struct(evil))]);
}

describe('R17 no prototype pollution: gRPC Struct keys', () => {
  let server: GrpcTestServer;
  before(async () => {
    server = await startGrpcServer({ executor: echoAgent });
  });
  after(() => server.close());

  test('__proto__ / constructor / prototype as Struct keys in request, message and part metadata and data values', async () => {
    const metadata = { 'a2a-version': '1.0', 'a2a-extensions': `__proto__, ${EXT}` };
    const messageId = uid('m');
    const refusal = await rawCall(server.address, 'SendMessage', { body: evilSendRequest(messageId, EVIL), metadata });
    assert.equal(refusal.code, grpcStatus.INVALID_ARGUMENT, refusal.details);
    checkRefusal(trailerError(refusal.trailers)?.violations ?? [], 'gRPC');
    assertNoPollution('gRPC SendMessage refused');
    const out = await rawCall(server.address, 'SendMessage', { body: evilSendRequest(messageId, SAFE), metadata });
    assert.equal(out.code, grpcStatus.OK, out.details);
    assertAgentRefused('gRPC');
    const response = toJson(SendMessageResponseSchema, fromBinary(SendMessageResponseSchema, out.messages[0]!)) as Json;
    assertNoPollution('gRPC SendMessage');
    const got = await rawCall(server.address, 'GetTask', { body: Uint8Array.from(str(2, response.task.id)) });
    assert.equal(got.code, grpcStatus.OK, got.details);
    checkStoredTask(toJson(TaskSchema, fromBinary(TaskSchema, got.messages[0]!)), 'gRPC');
    // No __proto__ key was stored (the client's refused, the agent's writes refused): none is a
    // Struct map key (entry field 1, 9 bytes) on the wire.
    const wire = got.messages[0]!;
    const key = Buffer.from([0x0a, 0x09, ...Buffer.from('__proto__')]);
    let count = 0;
    for (let at = wire.indexOf(key); at >= 0; at = wire.indexOf(key, at + 1)) count++;
    assert.equal(count, 0, `__proto__ Struct keys on the wire: ${count}`);
    // A push config cannot carry Struct keys; a tenant or id named __proto__ is just a name.
    for (const [rpc, body] of [
      ['GetTask', [...str(1, '__proto__'), ...str(2, '__proto__')]],
      ['ListTasks', [...str(1, 'constructor')]],
      ['CreateTaskPushNotificationConfig', [...str(3, response.task.id), ...str(4, 'https://hooks.example.com/g'), ...ld(6, [...str(1, '__proto__'), ...str(2, 'constructor')])]],
    ] as const) {
      const r = await rawCall(server.address, rpc, { body: Uint8Array.from(body) });
      assert.notEqual(r.code, grpcStatus.INTERNAL, `${rpc}: ${r.details}`);
    }
    assertNoPollution('gRPC other calls');
    assert.deepEqual(server.errors, []);
  });
});
