/**
 * R19 for HTTP+JSON (issue 8): a seeded mutation fuzz of ≥ 10,000 REST requests derived from a
 * valid request per operation, with the shared mutator (test/support/fuzz.ts) applied to the
 * request message, then REST-specific damage: path ids with odd characters, tenant prefixes,
 * unknown routes, other verbs, query values (historyLength, pageSize, A2A-Version…), content
 * types and version headers. Every answer must be a well-formed REST error
 * `{"error":{code,status,message,details:[ErrorInfo…]}}` with code = HTTP status < 500, or a
 * success (JSON object, or an SSE stream of StreamResponses / errors), never a stack; the server
 * must still serve a GetTask afterwards and have reported no internal error.
 * 10,000 go to the handler in-process (the same HttpRequest model node:http builds), 500 more over
 * the socket with raw paths. FUZZ_SEED / FUZZ_COUNT as in the JSON-RPC fuzz.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, Agent } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ERROR_INFO_TYPE, type Json } from '../support/bindings.js';
import {
  FUZZ_STRINGS,
  STACK_PATTERN,
  assertReached,
  corruptText,
  fuzzCount,
  fuzzSeed,
  int,
  mutateValue,
  pick,
  runFuzz,
  seedRequests,
  type Random,
  withFreshMessageId,
  type SeedRequest,
} from '../support/fuzz.js';
import { parseSse } from '../support/sse.js';
import { startServer, type TestServer } from '../support/server.js';
import { ok, send } from '../support/assertions.js';
import { restBinding } from '../support/bindings.js';
import { ERROR_TABLE, GRPC_STATUS_CODES, isKnownReason } from '../../src/protocol/errorTable.js';
import { PayloadTooLargeError, type A2AErrorReason } from '../../src/protocol/errors.js';
import type { HttpRequest } from '../../src/server/http/httpTypes.js';
import { matchV03RestRoute } from '../../src/compat/methods.js';
import { isV03RestPath } from '../../src/bindings/rest/v03.js';
import { parseRequestedVersion } from '../../src/protocol/serviceParams.js';

const SEED = fuzzSeed(0x7e57);
const IN_PROCESS = fuzzCount(10_000);
const OVER_SOCKET = 500;
const REST_BASE = '/a2a/rest';
const MAX_BODY = 256 * 1024;

interface RestRequest {
  method: string;
  /** The raw request target relative to the host: path (still percent-encoded) and query. */
  target: string;
  headers: Record<string, string>;
  body?: string;
}

interface RestAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Where each operation lives: verb, path (fields from the request message) and the rest of the message as query or body. */
const ROUTES: Record<string, { verb: string; path: (p: Json) => string; pathFields: string[]; query?: boolean }> = {
  SendMessage: { verb: 'POST', path: () => '/message:send', pathFields: [] },
  SendStreamingMessage: { verb: 'POST', path: () => '/message:stream', pathFields: [] },
  GetTask: { verb: 'GET', path: (p) => `/tasks/${seg(p.id)}`, pathFields: ['id'], query: true },
  ListTasks: { verb: 'GET', path: () => '/tasks', pathFields: [], query: true },
  CancelTask: { verb: 'POST', path: (p) => `/tasks/${seg(p.id)}:cancel`, pathFields: ['id'] },
  SubscribeToTask: { verb: 'GET', path: (p) => `/tasks/${seg(p.id)}:subscribe`, pathFields: ['id'], query: true },
  CreateTaskPushNotificationConfig: { verb: 'POST', path: (p) => `/tasks/${seg(p.taskId)}/pushNotificationConfigs`, pathFields: ['taskId'] },
  GetTaskPushNotificationConfig: { verb: 'GET', path: (p) => `/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}`, pathFields: ['taskId', 'id'], query: true },
  ListTaskPushNotificationConfigs: { verb: 'GET', path: (p) => `/tasks/${seg(p.taskId)}/pushNotificationConfigs`, pathFields: ['taskId'], query: true },
  DeleteTaskPushNotificationConfig: { verb: 'DELETE', path: (p) => `/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}`, pathFields: ['taskId', 'id'], query: true },
  GetExtendedAgentCard: { verb: 'GET', path: () => '/extendedAgentCard', pathFields: [], query: true },
};

/** A path segment from whatever the mutator left in a field (percent-encoded, like a client would). */
function seg(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as its (invalid) UTF-8 bytes
  }
}

function queryOf(params: Json, skip: string[]): [string, string][] {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return [];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(params)) {
    if (skip.includes(k)) continue;
    if (Array.isArray(v)) for (const item of v) out.push([k, typeof item === 'string' ? item : JSON.stringify(item)]);
    else out.push([k, typeof v === 'string' ? v : JSON.stringify(v) ?? '']);
  }
  return out;
}

const ODD_IDS = ['', '.', '..', '%2e%2e', 'a%2Fb', 'a/b', '%00', '%', '%E0%A4%A', '%ZZ', '__proto__', 'constructor', 'x:cancel', 'x:subscribe', 'x:unknown', ':cancel', '😀', 'é', '%F0%9F%98%80', 'a'.repeat(5000), 'x?y', 'x#y', ' ', '%20', 'hasOwnProperty'];
const TENANTS = ['acme', '__proto__', 'constructor', 'prototype', 'tasks', 'message:send', 'extendedAgentCard', '%2e%2e', '..', 'a%2Fb', '%00', '%FF', '😀', 'x'.repeat(3000), 'a2a'];
const VERBS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'get', 'PROPFIND'];
const QUERY_NAMES = ['historyLength', 'history_length', 'pageSize', 'page_size', 'pageToken', 'A2A-Version', 'a2a-version', 'includeArtifacts', 'status', 'contextId', 'statusTimestampAfter', 'tenant', 'id', '__proto__', 'constructor', '', 'metadata'];
const QUERY_VALUES = ['-1', '0', '1', '101', 'abc', '1e999', '2147483648', '1.5', '0x10', '', 'true', 'yes', '2.0', '0.3', '1.0', 'TASK_STATE_RUNNING', '%', '%00', '%E0%A4%A', '😀', 'not-a-date', '9999-99-99T99:99:99Z', '[1]', '{}'];
const CONTENT_TYPES = ['application/json', 'application/a2a+json', 'text/plain', '', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/a2a+json; charset=latin1', '*/*', 'application/json, text/plain'];
const VERSIONS = ['1.0', '0.3', '2.0', 'abc', '', '1.0, 2.0', '1', '1.0.0', 'v1.0', '9'.repeat(500)];

/** One REST request: the seed routed, the shared structural mutator on its message, then REST damage. */
function generate(corpus: SeedRequest[], random: Random): RestRequest {
  let seed = withFreshMessageId(pick(random, corpus), random);
  if (random() < 0.05) seed = { ...seed, method: pick(random, Object.keys(ROUTES)) }; // a body meant for another route
  const route = ROUTES[seed.method] as (typeof ROUTES)[string];
  const params = random() < 0.85 ? mutateValue(seed.params ?? {}, random) : structuredClone(seed.params ?? {});
  const p = params && typeof params === 'object' && !Array.isArray(params) ? params : {};
  let path = route.path(p);
  let verb = route.verb;
  if (seed.method === 'SubscribeToTask' && random() < 0.5) verb = 'POST';
  const query: [string, string][] = route.query ? queryOf(params, route.pathFields) : [];
  let body: string | undefined = route.query ? undefined : (JSON.stringify(Array.isArray(params) || !params || typeof params !== 'object' ? params : Object.fromEntries(Object.entries(params).filter(([k]) => !route.pathFields.includes(k)))) ?? 'null');
  const headers: Record<string, string> = { 'a2a-version': '1.0' };
  if (body !== undefined) headers['content-type'] = 'application/a2a+json';
  for (let n = int(random, 4); n > 0; n--) {
    switch (int(random, 10)) {
      case 0: {
        const parts = path.split('/');
        const i = 1 + int(random, Math.max(1, parts.length - 1));
        parts[i] = pick(random, ODD_IDS) + (random() < 0.3 ? pick(random, [':cancel', ':subscribe', '']) : '');
        path = parts.join('/');
        break;
      }
      case 1:
        path = `/${pick(random, TENANTS)}${path}`;
        break;
      case 2:
        path = pick(random, [`${path}/${pick(random, ODD_IDS)}`, path.split('/').slice(0, -1).join('/') || '/', `${path}/`, `//${path}`, path.replace(':', '::'), path.toUpperCase(), `/v1${path}`, '/', '']);
        break;
      case 3:
        verb = pick(random, VERBS);
        break;
      case 4:
        query.push([pick(random, QUERY_NAMES), pick(random, QUERY_VALUES)]);
        break;
      case 5:
        headers['content-type'] = pick(random, CONTENT_TYPES);
        break;
      case 6:
        if (random() < 0.3) delete headers['a2a-version'];
        else headers['a2a-version'] = pick(random, VERSIONS);
        break;
      case 7:
        body = body === undefined ? pick(random, ['{}', '{"message":', JSON.stringify(send('hi body on get')), 'null', '']) : corruptText(body, random);
        break;
      case 8:
        body = random() < 0.5 ? undefined : pick(random, ['', '[]', '"text"', '1', JSON.stringify({ __proto__: null, a: 1 }), JSON.stringify({ data: pick(random, FUZZ_STRINGS) })]);
        break;
      default:
        headers[pick(random, ['a2a-extensions', 'accept', 'last-event-id', 'authorization', 'x-forwarded-for', 'content-encoding'])] = pick(random, ['', 'garbage', 'https://x.example/ext, ,,', '-1', 'gzip', 'Bearer', 'text/event-stream', 'a'.repeat(2000)]);
    }
  }
  const q = query.map(([k, v]) => `${encodeQ(k)}=${encodeQ(v)}`).join('&');
  const target = `${REST_BASE}${path}${q ? `?${random() < 0.1 ? q.replace(/%/g, '%%') : q}` : ''}`;
  return { method: verb, target, headers, ...(body !== undefined ? { body } : {}) };
}

function encodeQ(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/** The same HttpRequest node:http builds (path still percent-encoded, lazily parsed query). */
async function inProcess(server: TestServer, r: RestRequest): Promise<RestAnswer> {
  const q = r.target.indexOf('?');
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v]));
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  const req: HttpRequest = {
    method: r.method,
    path: q < 0 ? r.target : r.target.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : r.target.slice(q + 1)),
    header: (name) => headers[name],
    text: async (limit) => {
      const body = r.body ?? '';
      if (Buffer.byteLength(body) > limit) throw new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
      return body;
    },
    signal: new AbortController().signal,
  };
  const res = await server.handler.handle(req);
  let text = '';
  if (typeof res.body === 'string') text = res.body;
  else if (res.body) for await (const chunk of res.body) text += chunk;
  return { status: res.status, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v])), text };
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** Over the socket with the raw target (bytes outside printable ASCII percent-encoded, as node:http requires). */
function overSocket(server: TestServer, r: RestRequest): Promise<RestAnswer> {
  const url = new URL(server.url);
  const ascii = (s: string) => s.replace(/[^\x21-\x7e]/gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, ascii(v)]));
  // A body always travels with its length (a GET body without one would be read as the next request).
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: r.method.toUpperCase(), path: ascii(r.target) || '/', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

const STATUS_NAMES = new Set(Object.keys(GRPC_STATUS_CODES));

/** What is wrong with a REST error body for this HTTP status, or undefined. */
function restErrorProblem(body: Json, status: number): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'error body is not an object';
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error') return `members ${keys.join(',')} (only "error")`;
  const e = body.error;
  if (!e || typeof e !== 'object') return 'error is not an object';
  if (e.code !== status) return `error.code ${e.code} ≠ HTTP ${status}`;
  if (!STATUS_NAMES.has(e.status) || e.status === 'OK') return `error.status ${JSON.stringify(e.status)}`;
  if (typeof e.message !== 'string' || e.message === '') return 'error.message is not a non-empty string';
  if (STACK_PATTERN.test(e.message)) return `stack in message: ${e.message}`;
  // Every error carries ErrorInfo, routing failures included (B11 as docs/errors.md documents it:
  // no route = METHOD_NOT_FOUND 404, wrong verb = INVALID_REQUEST 405).
  if (!Array.isArray(e.details)) return 'error.details is not an array';
  if (!e.details.every((d: Json) => d && typeof d === 'object' && typeof d['@type'] === 'string')) return 'details need @type';
  const info = e.details.find((d: Json) => d['@type'] === ERROR_INFO_TYPE);
  if (!info || !isKnownReason(info.reason) || typeof info.domain !== 'string') return `no ErrorInfo with a known reason: ${JSON.stringify(e.details)}`;
  const row = ERROR_TABLE[info.reason as A2AErrorReason];
  if (e.status !== row.grpcStatus) return `error.status ${e.status} ≠ ${row.grpcStatus} of ${info.reason}`;
  // A wrong verb is the one refusal with its own HTTP status (405, docs/errors.md).
  const wrongVerb = status === 405 && info.reason === 'INVALID_REQUEST';
  if (status !== row.httpStatus && !wrongVerb) return `HTTP ${status} ≠ ${row.httpStatus} of ${info.reason}`;
  return undefined;
}

/**
 * The refused CORS preflight (createA2AHandler corsPolicy: OPTIONS without an allowed Origin) is
 * a hand-written 403 PERMISSION_DENIED Status without details, the one REST-base answer without ErrorInfo.
 */
function isRefusedPreflight(r: RestRequest, a: RestAnswer, body: Json): boolean {
  return r.method === 'OPTIONS' && a.status === 403 && keysOf(body?.error ?? {}) === 'code,message,status';
}

const NODE_REFUSALS = [400, 431];
const keysOf = (o: object): string => Object.keys(o).sort().join(',');

const STREAM_MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'];

/**
 * Issue 9: a request without A2A-Version (or with 0.3) to a path under /v1 is served as A2A 0.3
 * (a path no 0.3 route has too: a 0.3 404), whose errors are the JSON-RPC error object
 * `{code, message, data?}` (docs/compat.md).
 */
function isV03Request(r: RestRequest): boolean {
  const url = new URL(r.target, 'http://x');
  const header = Object.entries(r.headers).find(([k]) => k.toLowerCase() === 'a2a-version')?.[1];
  const raw = (header ?? '').trim() || (header ? '' : (url.searchParams.get('A2A-Version') ?? '').trim());
  if (raw !== '' && parseRequestedVersion(raw) !== '0.3') return false;
  let path: string;
  try {
    path = url.pathname.slice(REST_BASE.length);
  } catch {
    return false;
  }
  return matchV03RestRoute(r.method, path).pathMatched || isV03RestPath(path);
}

function v03ErrorProblem(body: Json): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return '0.3 error body is not an object';
  if (!Object.keys(body).every((k) => ['code', 'message', 'data'].includes(k))) return `0.3 error members ${keysOf(body)}`;
  if (typeof body.code !== 'number' || typeof body.message !== 'string' || body.message === '') return '0.3 error needs a numeric code and a message';
  if (STACK_PATTERN.test(body.message)) return `stack in message: ${body.message}`;
  return undefined;
}

function answerProblem(r: RestRequest, a: RestAnswer): string | undefined {
  if (a.status >= 500 || a.status < 200) return `HTTP ${a.status}`;
  const v03 = isV03Request(r);
  // node:http refuses what it cannot parse (431 for a request line + headers over maxHeaderSize,
  // 400 for a malformed request) before the handler runs, with an empty body and no keep-alive.
  // serve() installs no 'clientError' handler, so these are Node's bare answers (reported).
  if (NODE_REFUSALS.includes(a.status) && a.text === '' && a.headers.connection === 'close') return undefined;
  const type = a.headers['content-type'] ?? '';
  if (r.method.toUpperCase() === 'HEAD' || (a.status === 204 && a.text === '')) return undefined;
  if (a.status < 300 && type.startsWith('text/event-stream')) {
    const events = parseSse(a.text).events;
    if (events.length === 0) return 'empty event stream';
    for (const e of events) {
      let data: Json;
      try {
        data = JSON.parse(e.data);
      } catch {
        return `SSE data is not JSON: ${e.data.slice(0, 200)}`;
      }
      if (v03 && 'code' in data) {
        const p = v03ErrorProblem(data);
        if (p) return `SSE error event: ${p}`;
      } else if ('error' in data) {
        const p = restErrorProblem(data, data.error?.code);
        if (p) return `SSE error event: ${p}`;
      } else if (Object.keys(data).filter((k) => STREAM_MEMBERS.includes(k)).length !== 1) return `SSE event is not a StreamResponse: ${e.data.slice(0, 200)}`;
    }
    return undefined;
  }
  if (!/^application\/(a2a\+)?json/.test(type)) return `content-type ${JSON.stringify(type)}: ${a.text.slice(0, 200)}`;
  let body: Json;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `body is not JSON: ${a.text.slice(0, 200)}`;
  }
  if (a.status === 405 && !a.headers.allow) return '405 without an Allow header';
  if (a.status >= 300 && isRefusedPreflight(r, a, body)) return undefined;
  if (a.status >= 300) return v03 ? v03ErrorProblem(body) : restErrorProblem(body, a.status);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return `success body is not an object: ${a.text.slice(0, 200)}`;
  if ('error' in body) return 'a 2xx with an error body';
  return undefined;
}

function classify(a: RestAnswer): string {
  if (a.status >= 300) {
    try {
      return `${a.status} ${JSON.parse(a.text).error.status}`;
    } catch {
      return String(a.status);
    }
  }
  return (a.headers['content-type'] ?? '').startsWith('text/event-stream') ? 'stream' : String(a.status);
}

const show = (r: RestRequest) => `${r.method} ${r.target}\nheaders: ${JSON.stringify(r.headers)}\nbody: ${r.body === undefined ? '(none)' : r.body.slice(0, 400)}`;

describe('R19 seeded mutation fuzz of HTTP+JSON requests', () => {
  let server: TestServer;
  let corpus: SeedRequest[];
  let taskId: string;
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  before(async () => {
    server = await startServer({ demo: { slowMs: 50, tickMs: 10 }, handler: { maxBodyBytes: MAX_BODY } });
    const task = ok(await restBinding(server.restUrl).call('sendMessage', send('hi seed'))).task;
    taskId = task.id;
    corpus = seedRequests(task.id, task.contextId);
    // The unmutated seeds are served (or refused for a reason that is not the request's shape).
    for (const seed of corpus) {
      const route = ROUTES[seed.method]!;
      const p = seed.params ?? {};
      const q = route.query ? queryOf(p, route.pathFields).map(([k, v]) => `${encodeQ(k)}=${encodeQ(v)}`).join('&') : '';
      const body = route.query ? undefined : JSON.stringify(Object.fromEntries(Object.entries(p).filter(([k]) => !route.pathFields.includes(k))));
      const r: RestRequest = { method: route.verb, target: `${REST_BASE}${route.path(p)}${q ? `?${q}` : ''}`, headers: { 'a2a-version': '1.0', 'content-type': 'application/a2a+json' }, ...(body ? { body } : {}) };
      const answer = await inProcess(server, r);
      assert.equal(answerProblem(r, answer), undefined, `${show(r)}\n→ ${answer.status} ${answer.text.slice(0, 300)}`);
      assert.ok(answer.status < 300 || ['TASK_NOT_CANCELABLE', 'UNSUPPORTED_OPERATION', 'TASK_NOT_FOUND'].includes(JSON.parse(answer.text).error.details[0].reason), `${show(r)}\n→ ${answer.text}`);
    }
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  test(`${IN_PROCESS} mutated requests in-process: well-formed REST answers only (seed ${SEED})`, async (t) => {
    const outcomes = await runFuzz<RestRequest, RestAnswer>({
      name: 'rest in-process',
      seed: SEED,
      count: IN_PROCESS,
      concurrency: 32,
      generate: (random) => generate(corpus, random),
      send: (r) => inProcess(server, r),
      check: (r, a) => {
        const p = answerProblem(r, a);
        return p && `${p}\nanswer: HTTP ${a.status} ${JSON.stringify(a.headers)} ${a.text.slice(0, 500)}`;
      },
      classify,
      show,
    });
    t.diagnostic(`seed ${SEED}, outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assertReached(outcomes, ['200', 'stream', '400 INVALID_ARGUMENT', '404 NOT_FOUND', '404 UNIMPLEMENTED', '405 INVALID_ARGUMENT', '400 FAILED_PRECONDITION']);
  });

  test(`${OVER_SOCKET} mutated requests over the socket (seed ${SEED + 1})`, async (t) => {
    const outcomes = await runFuzz<RestRequest, RestAnswer>({
      name: 'rest socket',
      seed: SEED + 1,
      count: OVER_SOCKET,
      concurrency: 8,
      generate: (random) => generate(corpus, random),
      send: (r) => overSocket(server, r),
      check: (r, a) => {
        const p = answerProblem(r, a);
        return p && `${p}\nanswer: HTTP ${a.status} ${JSON.stringify(a.headers)} ${a.text.slice(0, 500)}`;
      },
      classify,
      show,
    });
    t.diagnostic(`seed ${SEED + 1}, outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  });

  test('the server still serves GetTask, reported no internal error, and no prototype changed', async () => {
    const res = await fetch(`${server.restUrl}/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Json).id, taskId);
    assert.deepEqual(server.errors, []);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoKeys);
    assert.equal(({} as Json).polluted, undefined);
  });
});
