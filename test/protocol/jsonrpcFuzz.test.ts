/**
 * R19 seeded mutation fuzz and R17 prototype pollution. ~10,000 mutated requests derived from
 * valid requests for every operation go to the handler in-process (fast), a few hundred more
 * over the socket; every answer must be a well-formed JSON-RPC envelope on HTTP 200, and the
 * server must still work afterwards. Set FUZZ_SEED to reproduce a run with another seed.
 */
import { prng } from '../support/prng.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BINDINGS, type Json } from '../support/bindings.js';
import { answerProblem, expectedId, inProcessRpc, rawRpc, type RawAnswer } from '../support/jsonrpc.js';
import { startServer, type TestServer } from '../support/server.js';
import { ok, send } from '../support/assertions.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const IN_PROCESS = Number(process.env.FUZZ_COUNT ?? 10_000);
const OVER_SOCKET = 300;


const METHODS = [
  'SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig', 'GetExtendedAgentCard',
  'message/send', 'tasks/get', '', 'toString', 'hasOwnProperty',
];
const STRINGS = ['', '\u0000', '\ud800', '😀'.repeat(50), '\u202eevil', 'é', 'a'.repeat(100_000), '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '__proto__', 'TASK_STATE_COMPLETED', 'ROLE_USER', '1e999', '{"a":1}'];
const NUMBERS = [2 ** 53 + 1, -(2 ** 53), 1e308, -1e308, 2147483648, -2147483649, 1.5, -0, 1e-7, 0, -1, 100, 101];

function seeds(taskId: string, contextId: string): Json[] {
  const m = (text: string, extra: Json = {}) => ({ messageId: `fz-${text}`, role: 'ROLE_USER', parts: [{ text }], ...extra });
  const p = (method: string, params?: Json) => ({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
  return [
    p('SendMessage', { message: m('hi fuzz', { contextId, metadata: { k: 'v' } }), configuration: { historyLength: 2, acceptedOutputModes: ['text/plain'] }, metadata: { r: 1 } }),
    p('SendMessage', { message: m('msg fuzz'), configuration: { returnImmediately: true } }),
    p('SendMessage', { message: m('data', { parts: [{ data: { a: [1, 2] }, mediaType: 'application/json' }, { raw: 'aGk=', filename: 'x.txt' }, { url: 'https://example.com/f' }] }) }),
    p('SendStreamingMessage', { message: m('stream fuzz') }),
    p('GetTask', { id: taskId, historyLength: 1 }),
    p('ListTasks', { contextId, status: 'TASK_STATE_COMPLETED', pageSize: 5, includeArtifacts: true, historyLength: 0, statusTimestampAfter: '2020-01-01T00:00:00Z' }),
    p('CancelTask', { id: taskId, metadata: { reason: 'fuzz' } }),
    p('SubscribeToTask', { id: taskId }),
    p('CreateTaskPushNotificationConfig', { taskId, url: 'https://hooks.example.com/a2a', token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } }),
    p('GetTaskPushNotificationConfig', { taskId, id: 'cfg' }),
    p('ListTaskPushNotificationConfigs', { taskId, pageSize: 2, pageToken: '' }),
    p('DeleteTaskPushNotificationConfig', { taskId, id: 'cfg' }),
    p('GetExtendedAgentCard'),
  ];
}

/** Every (parent, key) location in a JSON value, the root included as (holder, 'v'). */
function locations(holder: Json): [Json, string | number][] {
  const out: [Json, string | number][] = [];
  const walk = (parent: Json, key: string | number) => {
    out.push([parent, key]);
    const v = parent[key];
    if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v, Array.isArray(v) ? Number(k) : k);
  };
  walk(holder, 'v');
  return out;
}

function mutate(request: Json, random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const holder = { v: structuredClone(request) };
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
    const [parent, key] = pick(locations(holder));
    const value = parent[key];
    const objects = locations(holder).filter(([p, k]) => p[k] && typeof p[k] === 'object' && !Array.isArray(p[k]));
    let op = Math.floor(random() * 11);
    if (objects.length === 0 && op >= 6 && op <= 9) op = 1;
    switch (op) {
      case 0:
        if (parent !== holder && Array.isArray(parent)) parent.splice(key as number, 1);
        else if (parent !== holder) delete parent[key];
        break;
      case 1:
        parent[key] = pick([42, 'str', true, {}, [], null].filter((x) => typeof x !== typeof value));
        break;
      case 2:
        parent[key] = null;
        break;
      case 3:
        parent[key] = pick(NUMBERS);
        break;
      case 4: {
        let wrapped = value;
        for (let d = pick([1, 3, 31, 40]); d > 0; d--) wrapped = [wrapped];
        parent[key] = wrapped;
        break;
      }
      case 5:
        parent[key] = pick(STRINGS);
        break;
      case 6: {
        const [p, k] = pick(objects);
        Object.defineProperty(p[k], '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
        break;
      }
      case 7: {
        const [p, k] = pick(objects);
        p[k].constructor = { prototype: { polluted: true } };
        break;
      }
      case 8: {
        const [p, k] = pick(objects);
        p[k][pick(['kind', 'extra', 'tenant', 'taskId', 'id', 'blocking', 'params'])] = pick([1, 'x', null, { deep: [1] }, 'acme']);
        break;
      }
      case 9:
        holder.v.method = pick(METHODS);
        break;
      default:
        parent[key] = Array.isArray(value) ? [] : value && typeof value === 'object' ? {} : value;
    }
  }
  let text = JSON.stringify(holder.v) ?? 'null';
  const r = random();
  if (r < 0.04) text = text.slice(0, Math.floor(random() * text.length));
  else if (r < 0.08) {
    const at = Math.floor(random() * text.length);
    text = text.slice(0, at) + pick(['"', '{', ']', ',', '\\', '\u0001', '1e999']) + text.slice(at);
  } else if (r < 0.1) text = text.replace(/"id":1/, '"id":1e999');
  return text;
}

describe('R19 seeded mutation fuzz of JSON-RPC requests', () => {
  let server: TestServer;
  let corpus: Json[];
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  before(async () => {
    server = await startServer({ demo: { slowMs: 50, tickMs: 10 } });
    const b = BINDINGS[0]?.create(server);
    const task = ok(await b!.call('sendMessage', send('hi seed'))).task;
    corpus = seeds(task.id, task.contextId);
    for (const seed of corpus) {
      const answer = await inProcessRpc(server.handler, '/a2a/jsonrpc', JSON.stringify(seed));
      assert.equal(answerProblem(answer, 1), undefined, `seed ${seed.method}: ${answer.text.slice(0, 300)}`);
    }
  });
  after(() => server.close());

  async function run(count: number, seed: number, concurrency: number, send: (text: string) => Promise<RawAnswer>): Promise<Map<string, number>> {
    const random = prng(seed);
    const requests = Array.from({ length: count }, () => mutate(corpus[Math.floor(random() * corpus.length)], random));
    const outcomes = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const text = requests[next++] as string;
        const answer = await Promise.race([
          send(text),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within 5 s to ${text.slice(0, 300)}`)), 5000).unref()),
        ]);
        const problem = answerProblem(answer, expectedId(text));
        if (problem) assert.fail(`${problem}\nrequest: ${text.slice(0, 500)}\nanswer: ${answer.text.slice(0, 500)}`);
        const first = (answer.events?.[0] ?? answer.json) as Json;
        const key = first.error ? String(first.error.code) : 'result';
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return outcomes;
  }

  test(`${IN_PROCESS} mutated requests in-process: well-formed envelopes only (seed ${SEED})`, async (t) => {
    const outcomes = await run(IN_PROCESS, SEED, 32, (text) => inProcessRpc(server.handler, '/a2a/jsonrpc', text));
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    // The mutations must reach every layer, not just the envelope checks.
    for (const code of ['-32700', '-32600', '-32601', '-32602', 'result']) assert.ok((outcomes.get(code) ?? 0) > 20, `${code}: ${JSON.stringify([...outcomes])}`);
    assert.equal(outcomes.get('-32603'), undefined, 'no internal errors');
  });

  test(`${OVER_SOCKET} mutated requests over the socket (seed ${SEED + 1})`, async () => {
    const outcomes = await run(OVER_SOCKET, SEED + 1, 8, (text) => rawRpc(server.jsonRpcUrl, text));
    assert.equal(outcomes.get('-32603'), undefined, 'no internal errors');
  });

  test('the server still answers a valid request and nothing was reported as an internal error', async () => {
    const answer = await rawRpc(server.jsonRpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 'ok', method: 'ListTasks', params: { pageSize: 1 } }));
    assert.equal(answerProblem(answer, 'ok'), undefined);
    assert.deepEqual(server.errors, []);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoKeys);
    assert.equal(({} as Json).polluted, undefined);
  });
});

describe('R17 no prototype pollution through any binding', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const evil = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"nested":{"__proto__":{"polluted":true}}}';
  const message = (id: string) =>
    `{"messageId":"${id}","role":"ROLE_USER","__proto__":{"polluted":true},"metadata":${evil},` +
    `"parts":[{"text":"hi proto","metadata":${evil}},{"data":${evil},"mediaType":"application/json"}]}`;
  const sendBody = (id: string) => `{"message":${message(id)},"metadata":${evil},"configuration":${evil},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`;

  test('__proto__ and constructor.prototype keys in params, metadata and data change no prototype', async () => {
    const rpcBody = `{"jsonrpc":"2.0","id":"p","method":"SendMessage","__proto__":{"polluted":true},"params":${sendBody('proto-1')}}`;
    const answer = await rawRpc(server.jsonRpcUrl, rpcBody);
    assert.equal(answerProblem(answer, 'p'), undefined);
    const task = (answer.json as Json).result.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const rest = await fetch(`${server.restUrl}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: sendBody('proto-2'),
    });
    assert.equal(rest.status, 200, await rest.clone().text());
    const listed = await fetch(`${server.restUrl}/tasks?__proto__=x&constructor=y&pageSize=5`, { headers: { 'a2a-version': '1.0' } });
    assert.ok([200, 400].includes(listed.status));
    for (const path of ['/a2a/rest/tasks/__proto__', '/a2a/rest/__proto__/tasks', '/a2a/rest/constructor/tasks/x']) {
      const res = await fetch(server.url + path, { headers: { 'a2a-version': '1.0' } });
      assert.notEqual(res.status, 500, path);
    }
    assert.equal(({} as Json).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    // The stored copy has no own __proto__ key anywhere (the decoder drops them).
    const stored = ok(await BINDINGS[0]!.create(server).call('getTask', { id: task.id }));
    assert.equal(JSON.stringify(stored).includes('__proto__'), false);
    assert.equal(stored.history[0].metadata.constructor.prototype.polluted, true, 'ordinary keys are kept as data');
  });
});
