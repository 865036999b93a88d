/**
 * Limits of the Node host over real sockets: body size (R15), JSON structure (R16), prototype
 * pollution (R17), timeouts (R18) and SSE heartbeats (R7). Memory is measured in a child
 * process running only the server (test/node/fixtures/server.ts).
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createDemoAgent, demoAgent } from '../../src/cli/agents/demo.js';
import { serve } from '../../src/node/serve.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Task } from '../../src/protocol/types.js';
import {
  JSONRPC_PATH,
  REST_PATH,
  connect,
  connectionCount,
  hasState,
  openSse,
  rawExchange,
  request,
  rpc,
  rpcBody,
  rpcStream,
  spawnChildServer,
  startServer,
  stateOf,
  userMessage,
  within,
  type ChildServer,
  type HttpResult,
  type RpcEnvelope,
  type TestServer,
} from './helpers.js';

const MiB = 1024 * 1024;

// ---------------------------------------------------------------- helpers

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ms from the first request byte to the first response byte. */
  firstByteMs: number;
  /** Body bytes the client managed to send before the answer (or the close). */
  bytesSent: number;
  /** The server closed the connection after answering. */
  serverClosed: boolean;
}

/**
 * POSTs an oversized body from a raw socket, writing 64 KiB chunks (with backpressure) until the
 * server answers or closes, then waits for the server to close the connection.
 */
async function oversizedUpload(
  port: number,
  path: string,
  { chunked, totalBytes, prefix, pauseAfter }: { chunked: boolean; totalBytes: number; prefix: string; pauseAfter?: number },
): Promise<RawResponse> {
  const socket = await connect(port);
  const received: Buffer[] = [];
  let firstByteMs = -1;
  let bytesSent = 0;
  const start = performance.now();
  socket.on('data', (d: Buffer) => {
    if (firstByteMs < 0) firstByteMs = performance.now() - start;
    received.push(d);
  });
  socket.on('error', () => undefined); // EPIPE / ECONNRESET once the server hangs up are expected
  let serverClosed = false;
  const closed = new Promise<void>((resolve) => {
    socket.once('end', () => {
      serverClosed = true;
      resolve();
    });
    socket.once('close', () => {
      serverClosed = true;
      resolve();
    });
  });
  const lengthHeader = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${totalBytes}`;
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n${lengthHeader}\r\n\r\n`);
  const frame = (buf: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${buf.length.toString(16)}\r\n`), buf, Buffer.from('\r\n')]) : buf);
  const filler = Buffer.alloc(64 * 1024, 'a');
  let first = true;
  while (firstByteMs < 0 && !socket.destroyed && bytesSent < totalBytes) {
    // Let pending reads run first: once the socket errors (EPIPE) Node drops unread data.
    await new Promise((resolve) => setImmediate(resolve));
    if (firstByteMs >= 0 || socket.destroyed) break;
    const chunk = first ? Buffer.concat([Buffer.from(prefix), filler.subarray(prefix.length)]) : filler;
    first = false;
    bytesSent += chunk.length;
    if (!socket.write(frame(chunk))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          socket.off('data', done);
          resolve();
        };
        socket.once('drain', done);
        socket.once('close', done);
        socket.once('data', done);
      });
    }
    if (pauseAfter !== undefined && bytesSent >= pauseAfter && firstByteMs < 0) {
      // Paced mode: stop once past the limit and give the server time to answer (no EPIPE race).
      const answered = new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.once('close', () => resolve());
      });
      await within(answered, 3_000, undefined);
      pauseAfter = undefined;
    }
    if (performance.now() - start > 10_000) break;
  }
  await within(closed, 5_000, 'timeout');
  socket.destroy();
  const text = Buffer.concat(received).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: split < 0 ? '' : text.slice(split + 4), firstByteMs, bytesSent, serverClosed };
}

/**
 * The server answers 413 and then resets the connection (no lingering close), so a Node client
 * still writing can hit EPIPE and lose the answer (see the todo test below). Each full-speed
 * attempt must still be cut quickly without the server reading the body; if all of them lose the
 * answer, a paced attempt (pause once past the limit) must see it.
 */
async function oversizedUploadAnswered(
  port: number,
  path: string,
  options: { chunked: boolean; totalBytes: number; prefix: string },
): Promise<RawResponse & { attempts: number; paced: boolean }> {
  for (let attempts = 1; ; attempts++) {
    const paced = attempts > 3;
    const start = performance.now();
    const res = await oversizedUpload(port, path, paced ? { ...options, pauseAfter: MiB + 128 * 1024 } : options);
    assert.ok(performance.now() - start < 5_000, `attempt ${attempts} took ${(performance.now() - start).toFixed(0)} ms`);
    assert.ok(res.bytesSent < 50_000_000, `the server stopped the upload early (client sent ${res.bytesSent} bytes)`);
    assert.ok(res.serverClosed, 'the server closed the connection');
    if (res.status !== 0 || paced) return { ...res, attempts, paced };
  }
}

const RPC_PREFIX = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"big","role":"ROLE_USER","parts":[{"text":"';
const REST_PREFIX = '{"message":{"messageId":"big","role":"ROLE_USER","parts":[{"text":"';

function errorInfoReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  const info = details.find((d: { '@type'?: string }) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') as { reason?: string } | undefined;
  return info?.reason;
}

function assertRpc413(res: { status: number; body: string; headers: Record<string, string> }): void {
  assert.equal(res.status, 413, `expected 413, got ${res.status}: ${res.body.slice(0, 300)}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  const env = JSON.parse(res.body) as RpcEnvelope;
  assert.equal(env.jsonrpc, '2.0');
  assert.equal(env.id, null, 'the id is unknown when the body was never read');
  assert.equal(env.error?.code, -32600);
  assert.equal(errorInfoReason(env.error?.data), 'PAYLOAD_TOO_LARGE');
}

function assertRest413(res: { status: number; body: string; headers: Record<string, string> }): void {
  assert.equal(res.status, 413, `expected 413, got ${res.status}: ${res.body.slice(0, 300)}`);
  const body = JSON.parse(res.body) as { error: { code: number; status: string; details: unknown } };
  assert.equal(body.error.code, 413);
  assert.equal(body.error.status, 'RESOURCE_EXHAUSTED');
  assert.equal(errorInfoReason(body.error.details), 'PAYLOAD_TOO_LARGE');
}

/** `k` nested objects: {"a":{"a":{}}} has k = 3. */
function nested(k: number): string {
  return '{"a":'.repeat(k - 1) + '{}' + '}'.repeat(k - 1);
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

async function waitForConnections(s: TestServer, n: number): Promise<void> {
  const deadline = Date.now() + 2_000;
  while ((await connectionCount(s)) < n) {
    assert.ok(Date.now() < deadline, `fewer than ${n} connections`);
    await delay(10);
  }
}

async function sendRaw(url: string, body: string): Promise<HttpResult> {
  return request(url, { body, headers: { 'content-type': 'application/json' } });
}

// ---------------------------------------------------------------- R15

describe('R15 body limits (server in a child process)', () => {
  let child: ChildServer;

  before(async () => {
    child = await spawnChildServer({ agent: 'demo' });
    // Warm up every path measured below, so JIT and lazy initialisation are not counted.
    const ok = await rpc(child.rpcUrl, 'SendMessage', { message: userMessage('hi') });
    assert.equal((ok.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
    for (const chunked of [false, true]) {
      await oversizedUpload(child.port, JSONRPC_PATH, { chunked, totalBytes: 2 * MiB, prefix: RPC_PREFIX });
      await oversizedUpload(child.port, `${REST_PATH}/message:send`, { chunked, totalBytes: 2 * MiB, prefix: REST_PREFIX });
    }
  });
  after(async () => {
    await child?.kill();
  });

  /**
   * Server RSS growth allowed while refusing a 100 MB upload. Chunked bodies are read (and the rest
   * discarded while lingering) in transient buffers that GC reclaims later than the sample, on
   * either HTTP binding: they get a little more than the Content-Length case.
   */
  const rssAllowance = (chunked: boolean): number => (chunked ? 16 : 10) * MiB;

  /** Uploads 100 MB to `path`, reports what happened, and checks the server's RSS stayed within its allowance. */
  async function measured(t: TestContext, path: string, upload: { chunked: boolean; prefix: string }): Promise<RawResponse & { attempts: number; paced: boolean }> {
    await child.ask('peakStart');
    const base = (await child.ask<{ rss: number }>('mem')).rss;
    const res = await oversizedUploadAnswered(child.port, path, { ...upload, totalBytes: 100_000_000 });
    await delay(100);
    const growth = (await child.ask<{ rss: number }>('peak')).rss - base;
    t.diagnostic(`status ${res.status} in ${res.firstByteMs.toFixed(0)} ms after ${res.attempts} attempt(s)${res.paced ? ' (paced)' : ''}; client sent ${res.bytesSent} bytes; RSS +${(growth / MiB).toFixed(1)} MiB`);
    assert.ok(growth < rssAllowance(upload.chunked), `server RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
    return res;
  }

  async function stillServes(): Promise<void> {
    const env = await rpc(child.rpcUrl, 'SendMessage', { message: userMessage('hi') });
    assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED', 'the server keeps serving');
  }

  test('JSON-RPC: Content-Length 100 MB → 413 JSON-RPC error, fast, connection closed, RSS flat', async (t) => {
    const res = await measured(t, JSONRPC_PATH, { chunked: false, prefix: RPC_PREFIX });
    assertRpc413(res);
    assert.equal(res.headers.connection, 'close');
    assert.ok(res.serverClosed, 'the server closes the connection after the 413');
    assert.ok(res.firstByteMs >= 0 && res.firstByteMs < 1000, `answered in ${res.firstByteMs.toFixed(0)} ms`);
    assert.ok(res.bytesSent < 50_000_000, `the server refused before reading the body (client sent ${res.bytesSent} bytes)`);
    await stillServes();
  });

  test('REST: Content-Length 100 MB → 413 {"error":{code:413}}, fast, RSS flat', async (t) => {
    const res = await measured(t, `${REST_PATH}/message:send`, { chunked: false, prefix: REST_PREFIX });
    assertRest413(res);
    assert.ok(res.serverClosed, 'the server closes the connection after the 413');
    assert.ok(res.firstByteMs >= 0 && res.firstByteMs < 1000, `answered in ${res.firstByteMs.toFixed(0)} ms`);
    assert.ok(res.bytesSent < 50_000_000, `client sent ${res.bytesSent} bytes`);
    await stillServes();
  });

  test('JSON-RPC: chunked body (no Content-Length) past 1 MiB → 413 after reading just over the limit', async (t) => {
    const res = await measured(t, JSONRPC_PATH, { chunked: true, prefix: RPC_PREFIX });
    assertRpc413(res);
    assert.ok(res.serverClosed);
    assert.ok(res.firstByteMs >= 0 && res.firstByteMs < 1000, `answered in ${res.firstByteMs.toFixed(0)} ms`);
    assert.ok(res.bytesSent < 50_000_000, `client sent ${res.bytesSent} bytes`);
    await stillServes();
  });

  test('REST: chunked body past 1 MiB → 413', async (t) => {
    const res = await measured(t, `${REST_PATH}/message:send`, { chunked: true, prefix: REST_PREFIX });
    assertRest413(res);
    assert.ok(res.serverClosed);
    assert.ok(res.firstByteMs >= 0 && res.firstByteMs < 1000, `answered in ${res.firstByteMs.toFixed(0)} ms`);
    await stillServes();
  });

  test(
    'a fetch() client streaming an oversized body receives the 413 every time (lingering close)',
        async () => {
      const outcomes: string[] = [];
      for (let i = 0; i < 10; i++) {
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent >= 100_000_000) return c.close();
            sent += 64 * 1024;
            c.enqueue(new Uint8Array(64 * 1024).fill(97));
          },
        });
        try {
          const res = await fetch(child.rpcUrl, {
            method: 'POST',
            body,
            duplex: 'half',
            headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
          } as RequestInit);
          await res.text();
          outcomes.push(String(res.status));
        } catch (error) {
          outcomes.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
        }
      }
      assert.deepEqual(outcomes, Array(10).fill('413'));
    },
  );

  test('a body just under the 1 MiB default is accepted', async () => {
    const base = rpcBody('SendMessage', { message: userMessage('hi') });
    const padding = 1024 * 1024 - Buffer.byteLength(base) - 1;
    const body = rpcBody('SendMessage', { message: userMessage(`hi${' '.repeat(padding)}`) });
    assert.ok(Buffer.byteLength(body) <= MiB && Buffer.byteLength(body) > MiB - 100, `body is ${Buffer.byteLength(body)} bytes`);
    const res = await sendRaw(child.rpcUrl, body);
    assert.equal(res.status, 200);
    const env = res.json as RpcEnvelope;
    assert.equal(env.error, undefined, JSON.stringify(env.error));
    assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('R15 maxBodyBytes option', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(demoAgent, { maxBodyBytes: 1000 });
  });
  after(async () => {
    await s?.close();
  });

  /** A SendMessage body of exactly `size` bytes (the text is padded with spaces the demo trims). */
  function bodyOfSize(size: number, rest = false): string {
    const make = (pad: number) => {
      const params = { message: userMessage(`hi${' '.repeat(pad)}`, { messageId: rest ? 'fixed-id-2' : 'fixed-id-1' }) };
      return rest ? JSON.stringify(params) : rpcBody('SendMessage', params, 1);
    };
    const body = make(size - Buffer.byteLength(make(0)));
    assert.equal(Buffer.byteLength(body), size);
    return body;
  }

  test('JSON-RPC: exactly 1000 bytes accepted, 1001 → 413 (Content-Length and chunked)', async () => {
    const okRes = await sendRaw(s.rpcUrl, bodyOfSize(1000));
    assert.equal(okRes.status, 200);
    assert.equal(((okRes.json as RpcEnvelope).result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');

    const big = await sendRaw(s.rpcUrl, bodyOfSize(1001));
    assertRpc413({ status: big.status, body: big.text, headers: big.headers as Record<string, string> });

    const chunked = await new Promise<HttpResult>((resolve, reject) => {
      // Two writes and no Content-Length: node:http sends Transfer-Encoding: chunked.
      const req = http.request(s.rpcUrl, { method: 'POST', agent: false, headers: { 'a2a-version': '1.0', 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: undefined }));
      });
      req.on('error', reject);
      const body = bodyOfSize(1001);
      req.write(body.slice(0, 500));
      req.end(body.slice(500));
    });
    assertRpc413({ status: chunked.status, body: chunked.text, headers: chunked.headers as Record<string, string> });
  });

  test('REST: 1001 bytes → 413, 1000 bytes accepted', async () => {
    const big = await sendRaw(`${s.restUrl}/message:send`, bodyOfSize(1001, true));
    assertRest413({ status: big.status, body: big.text, headers: big.headers as Record<string, string> });
    const ok = await sendRaw(`${s.restUrl}/message:send`, bodyOfSize(1000, true));
    assert.equal(ok.status, 200, ok.text);
    assert.equal((ok.json as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  });
});

// ---------------------------------------------------------------- R16

describe('R16 JSON structure limits', () => {
  let s: TestServer;
  let shallow: TestServer;
  before(async () => {
    s = await startServer(demoAgent);
    shallow = await startServer(demoAgent, { maxJsonDepth: 8 });
  });
  after(async () => {
    await s?.close();
    await shallow?.close();
  });

  async function stillServes(server: TestServer): Promise<void> {
    const env = await rpc(server.rpcUrl, 'SendMessage', { message: userMessage('hi') });
    assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  }

  function assertInvalidRequest(res: HttpResult): void {
    assert.equal(res.status, 200, 'JSON-RPC errors are HTTP 200');
    const env = res.json as RpcEnvelope;
    assert.equal(env.jsonrpc, '2.0');
    assert.equal(env.id, null);
    assert.equal(env.error?.code, -32600, 'depth is checked before parsing: an invalid request');
    assert.match(env.error?.message ?? '', /nesting/i);
  }

  test('20 KB of "[" (depth 10,000), balanced and unbalanced → -32600, process stays up', async () => {
    assertInvalidRequest(await sendRaw(s.rpcUrl, '['.repeat(10_000) + ']'.repeat(10_000)));
    assertInvalidRequest(await sendRaw(s.rpcUrl, '['.repeat(20_000)));
    // The same inside a valid envelope (params deep).
    assertInvalidRequest(await sendRaw(s.rpcUrl, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${'['.repeat(10_000)}${']'.repeat(10_000)}}`));
    await stillServes(s);
  });

  test('REST: 20 KB of "[" → 400 INVALID_ARGUMENT', async () => {
    const res = await sendRaw(`${s.restUrl}/message:send`, '['.repeat(20_000));
    assert.equal(res.status, 400);
    const body = res.json as { error: { code: number; status: string; details: unknown } };
    assert.equal(body.error.code, 400);
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.equal(errorInfoReason(body.error.details), 'INVALID_REQUEST');
    await stillServes(s);
  });

  test('a data part nested 50 levels is rejected on both bindings', async () => {
    const part = `{"data":${nested(50)}}`;
    const rpcRes = await sendRaw(
      s.rpcUrl,
      `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"deep-50","role":"ROLE_USER","parts":[{"text":"hi"},${part}]}}}`,
    );
    assertInvalidRequest(rpcRes);
    const restRes = await sendRaw(`${s.restUrl}/message:send`, `{"message":{"messageId":"deep-50r","role":"ROLE_USER","parts":[{"text":"hi"},${part}]}}`);
    assert.equal(restRes.status, 400);
    assert.equal(errorInfoReason((restRes.json as { error: { details: unknown } }).error.details), 'INVALID_REQUEST');
    await stillServes(s);
  });

  test('boundary: total depth 32 accepted (data round-trips), 33 rejected', async () => {
    // envelope(1) > params(2) > message(3) > parts[](4) > part(5) > data: k levels → 5 + k.
    const envelope = (k: number, id: string) =>
      `{"jsonrpc":"2.0","id":"${id}","method":"SendMessage","params":{"message":{"messageId":"${id}","role":"ROLE_USER","parts":[{"text":"hi"},{"data":${nested(k)}}]}}}`;
    assert.equal(depthOf(JSON.parse(envelope(27, 'd32'))), 32);
    const ok = await sendRaw(s.rpcUrl, envelope(27, 'd32'));
    const env = ok.json as RpcEnvelope;
    assert.equal(env.error, undefined, JSON.stringify(env.error));
    const task = (env.result as { task: Task }).task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const stored = await s.handler.requestHandler.store.get('', task.id);
    const dataPart = stored?.task.history?.[0]?.parts[1] as { data: unknown } | undefined;
    assert.equal(depthOf(dataPart?.data), 27, 'the data part is stored whole');

    assert.equal(depthOf(JSON.parse(envelope(28, 'd33'))), 33);
    assertInvalidRequest(await sendRaw(s.rpcUrl, envelope(28, 'd33')));

    // REST: body(1) > message(2) > parts[](3) > part(4) > data: k → 4 + k.
    const rest = (k: number) => `{"message":{"messageId":"r${k}","role":"ROLE_USER","parts":[{"text":"hi"},{"data":${nested(k)}}]}}`;
    const restOk = await sendRaw(`${s.restUrl}/message:send`, rest(28));
    assert.equal(restOk.status, 200, restOk.text.slice(0, 300));
    const restBad = await sendRaw(`${s.restUrl}/message:send`, rest(29));
    assert.equal(restBad.status, 400);
  });

  test('caps beyond depth: 1,001 parts and 1,001 metadata keys → -32602 naming the field', async () => {
    const parts = Array.from({ length: 1001 }, () => ({ text: 'x' }));
    const tooMany = await rpc(s.rpcUrl, 'SendMessage', { message: { ...userMessage('hi'), parts } });
    assert.equal(tooMany.error?.code, -32602);
    const violations = tooMany.error?.data?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations as { field: string }[];
    assert.deepEqual(violations.map((v) => v.field), ['message.parts']);
    const metadata = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    const tooWide = await rpc(s.rpcUrl, 'SendMessage', { message: { ...userMessage('hi'), metadata } });
    assert.equal(tooWide.error?.code, -32602);
    const ok = await rpc(s.rpcUrl, 'SendMessage', { message: { ...userMessage('hi'), parts: parts.slice(0, 1000) } });
    assert.equal(ok.error, undefined);
    await stillServes(s);
  });

  test('brackets inside strings do not count as nesting', async () => {
    const env = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage(`hi ${'[{'.repeat(5_000)} \\" ${']}'.repeat(5_000)}`) });
    assert.equal(env.error, undefined, JSON.stringify(env.error));
    assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  });

  test('maxJsonDepth option is honoured (8: depth 8 ok, 9 rejected)', async () => {
    // envelope(1) > params(2) > message(3) > parts[](4) > part(5) > data k → 5 + k.
    const envelope = (k: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"s${k}","role":"ROLE_USER","parts":[{"text":"hi"},{"data":${nested(k)}}]}}}`;
    const ok = await sendRaw(shallow.rpcUrl, envelope(3));
    assert.equal((ok.json as RpcEnvelope).error, undefined, ok.text.slice(0, 300));
    const bad = await sendRaw(shallow.rpcUrl, envelope(4));
    assertInvalidRequest(bad);
    assert.match((bad.json as RpcEnvelope).error?.message ?? '', /8/);
    // The default server takes the same request.
    assert.equal(((await sendRaw(s.rpcUrl, envelope(4))).json as RpcEnvelope).error, undefined);
  });
});

// ---------------------------------------------------------------- R17

describe('R17 prototype pollution', () => {
  let s: TestServer;
  const seen: { message: unknown; requestMetadata: unknown }[] = [];
  const protoNamesBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  const recordingAgent: AgentExecutor = {
    async execute(ctx, task) {
      seen.push({ message: ctx.message, requestMetadata: ctx.request.metadata });
      return demoAgent.execute(ctx, task);
    },
  };

  before(async () => {
    s = await startServer(recordingAgent);
  });
  after(async () => {
    await s?.close();
  });

  const EVIL = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"ok":1}';
  /** EVIL without the `__proto__` key, which is refused as a key of metadata or data (INVALID_PARAMS). */
  const CLEAN = '{"constructor":{"prototype":{"polluted":"yes"}},"ok":1}';
  /** A message with `data` as metadata and data objects; its own `__proto__` member is an unknown field (dropped). */
  const message = (id: string, data = CLEAN) =>
    `{"__proto__":{"polluted":"yes"},"messageId":"${id}","role":"ROLE_USER","metadata":${data},` +
    `"parts":[{"text":"hi","metadata":${data}},{"data":{${data === EVIL ? '"__proto__":{"polluted":"yes"},' : ''}"constructor":{"prototype":{"polluted":"yes"}},"list":[${data}]}}]}`;
  /** The violations of a body whose metadata and message are EVIL. */
  const REFUSED = ['metadata.__proto__', 'message.metadata.__proto__', 'message.parts[0].metadata.__proto__', 'message.parts[1].data.__proto__', 'message.parts[1].data.list[0].__proto__'];

  /** INVALID_PARAMS naming each `__proto__` key, the agent not called, nothing polluted. */
  function assertRefused(details: unknown, agentCalls: number): void {
    const badRequest = (details as { fieldViolations?: { field: string }[] }[]).find((d) => d.fieldViolations);
    assert.deepEqual(badRequest?.fieldViolations?.map((v) => v.field).sort(), [...REFUSED].sort());
    assert.equal(seen.length, agentCalls, 'the agent was not called');
    assertGlobalClean();
  }

  function assertClean(obj: unknown, where: string): void {
    assert.equal(typeof obj, 'object', `${where} is an object`);
    assert.equal(Object.getPrototypeOf(obj), Object.prototype, `${where} keeps Object.prototype`);
    assert.equal(Object.hasOwn(obj as object, '__proto__'), false, `${where} has no own __proto__ key`);
    assert.equal((obj as Record<string, unknown>).polluted, undefined, `${where}.polluted`);
  }

  function assertGlobalClean(): void {
    assert.equal(({} as Record<string, unknown>).polluted, undefined, '({}).polluted');
    assert.equal(([] as unknown as Record<string, unknown>).polluted, undefined, '[].polluted');
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoNamesBefore, 'Object.prototype unchanged');
  }

  function assertStoredMessageClean(msg: { metadata?: unknown; parts: unknown[] } | undefined, where: string): void {
    assert.ok(msg, `${where} exists`);
    assertClean(msg, where);
    assertClean(msg.metadata, `${where}.metadata`);
    assert.equal((msg.metadata as Record<string, unknown>).ok, 1, 'ordinary keys survive');
    const [textPart, dataPart] = msg.parts as [{ metadata: unknown }, { data: { list: unknown[] } }];
    assertClean(textPart.metadata, `${where}.parts[0].metadata`);
    assertClean(dataPart.data, `${where}.parts[1].data`);
    assertClean(dataPart.data.list[0], `${where}.parts[1].data.list[0]`);
  }

  test('JSON-RPC: __proto__ / constructor.prototype in params, message, metadata and data parts', async () => {
    const body = (data: string) =>
      `{"jsonrpc":"2.0","id":"p1","method":"SendMessage","__proto__":{"polluted":"yes"},` +
      `"params":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"metadata":${data},` +
      `"configuration":{"__proto__":{"polluted":"yes"}},"message":${message('proto-rpc-1', data)}}}`;
    const calls = seen.length;
    const refused = (await sendRaw(s.rpcUrl, body(EVIL))).json as RpcEnvelope;
    assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
    assertRefused(refused.error?.data, calls);
    const res = await sendRaw(s.rpcUrl, body(CLEAN));
    const env = res.json as RpcEnvelope;
    assert.equal(env.error, undefined, JSON.stringify(env.error));
    const task = (env.result as { task: Task }).task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assertGlobalClean();

    const stored = await s.handler.requestHandler.store.get('', task.id);
    assertStoredMessageClean(stored?.task.history?.[0] as { metadata?: unknown; parts: unknown[] }, 'stored history[0]');
    const agentSaw = seen.at(-1);
    assertStoredMessageClean(agentSaw?.message as { metadata?: unknown; parts: unknown[] }, 'ctx.message');
    assertClean(agentSaw?.requestMetadata, 'ctx.request.metadata');

    // And over the wire (GetTask) the dangerous key is gone, the data is intact.
    const got = (await rpc(s.rpcUrl, 'GetTask', { id: task.id })).result as Task;
    const wire = JSON.stringify(got.history?.[0]);
    assert.equal(wire.includes('__proto__'), false);
    assert.equal(got.history?.[0]?.metadata?.ok, 1);
  });

  test('REST: the same keys in the body, and __proto__ in the query string', async () => {
    const body = (data: string) => `{"__proto__":{"polluted":"yes"},"metadata":${data},"message":${message('proto-rest-1', data)}}`;
    const calls = seen.length;
    const refused = await sendRaw(`${s.restUrl}/message:send`, body(EVIL));
    assert.equal(refused.status, 400);
    assertRefused((refused.json as { error: { details: unknown } }).error.details, calls);
    const res = await sendRaw(`${s.restUrl}/message:send`, body(CLEAN));
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const task = (res.json as { task: Task }).task;
    assertGlobalClean();
    const stored = await s.handler.requestHandler.store.get('', task.id);
    assertStoredMessageClean(stored?.task.history?.[0] as { metadata?: unknown; parts: unknown[] }, 'stored history[0]');

    const list = await request(`${s.restUrl}/tasks?__proto__=x&__proto__[polluted]=yes&constructor[prototype][polluted]=yes`);
    assert.equal(list.status, 200, list.text.slice(0, 300));
    assert.ok(Array.isArray((list.json as { tasks: unknown[] }).tasks));
    assertGlobalClean();
  });

  test('streaming path: SendStreamingMessage with polluted metadata', async () => {
    const refused = (await sendRaw(s.rpcUrl, `{"jsonrpc":"2.0","id":"p2","method":"SendStreamingMessage","params":{"message":${message('proto-sse-1', EVIL)}}}`)).json as RpcEnvelope;
    assert.equal(refused.error?.code, -32602, 'STREAM-12: refused before the stream, a plain error');
    assertGlobalClean();
    const stream = await openSse(s.rpcUrl, `{"jsonrpc":"2.0","id":"p2","method":"SendStreamingMessage","params":{"message":${message('proto-sse-1')}}}`);
    await stream.ended;
    assert.ok(hasState(stream, 'TASK_STATE_COMPLETED'), stream.parser.raw.slice(0, 500));
    assertGlobalClean();
  });
});

// ---------------------------------------------------------------- R18

describe('R18 timeouts', () => {
  test('a slow-header client (1 byte / 500 ms) gets 408 or is closed within ~headersTimeout', async () => {
    const s = await startServer(demoAgent, {}, { headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    try {
      const socket = await connect(s.port);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.on('error', () => undefined);
      const start = performance.now();
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - start)));
      socket.write('POST /a2a/jsonrpc HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      let sent = 0;
      const trickle = setInterval(() => {
        if (socket.destroyed) return;
        socket.write('a');
        sent++;
      }, 500);
      const elapsed = await within(closed, 8_000, -1);
      clearInterval(trickle);
      socket.destroy();
      assert.ok(elapsed > 0, 'the server closed the slow connection');
      // headersTimeout 1 s, checked every 1 s (connectionsCheckingInterval): ≤ ~2 s plus slack.
      assert.ok(elapsed < 4_000, `closed after ${elapsed.toFixed(0)} ms`);
      assert.ok(sent >= 1, 'the client was still trickling header bytes');
      assert.match(received, /^HTTP\/1\.1 408/, `Node answers 408 Request Timeout; got ${JSON.stringify(received.slice(0, 100))}`);
      // The server itself is fine.
      const env = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('hi') });
      assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
    } finally {
      await s.close();
    }
  });

  test('500 idle keep-alive sockets do not stop a normal request', async () => {
    const s = await startServer(demoAgent, {}, { keepAliveTimeoutMs: 30_000 });
    const sockets: net.Socket[] = [];
    try {
      // Each socket completes one request and then sits idle on keep-alive.
      for (let batch = 0; batch < 5; batch++) {
        const opened = await Promise.all(
          Array.from({ length: 100 }, async () => {
            const socket = await connect(s.port);
            socket.on('error', () => undefined);
            socket.setEncoding('utf8');
            await new Promise<void>((resolve, reject) => {
              let text = '';
              const onData = (d: string) => {
                text += d;
                const split = text.indexOf('\r\n\r\n');
                if (split < 0) return;
                const length = Number(/content-length: (\d+)/i.exec(text.slice(0, split))?.[1] ?? -1);
                if (text.length - split - 4 >= length) {
                  socket.off('data', onData);
                  if (!/^HTTP\/1\.1 200/.test(text) || !/keep-alive/i.test(text)) reject(new Error(text.slice(0, 200)));
                  else resolve();
                }
              };
              socket.on('data', onData);
              socket.write('GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n\r\n');
            });
            return socket;
          }),
        );
        sockets.push(...opened);
      }
      const connections = await connectionCount(s);
      assert.ok(connections >= 500, `${connections} connections open`);

      const start = performance.now();
      const env = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('hi') });
      const ms = performance.now() - start;
      assert.equal((env.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
      assert.ok(ms < 2_000, `answered in ${ms.toFixed(0)} ms`);
      assert.equal(sockets.filter((x) => x.destroyed).length, 0, 'the idle sockets are still open');
    } finally {
      for (const x of sockets) x.destroy();
      await s.close();
    }
  });

  test('maxHeaderSize: headers past the limit → 431, under it → served', async () => {
    const s = await startServer(demoAgent, {}, { maxHeaderSize: 4096 });
    try {
      const big = await rawExchange(s.port, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(6000)}\r\n\r\n`);
      assert.match(big, /^HTTP\/1\.1 431 /);
      const small = await rawExchange(s.port, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Small: ${'b'.repeat(2000)}\r\n\r\n`);
      assert.match(small, /^HTTP\/1\.1 200 /);
    } finally {
      await s.close();
    }
  });

  test('the default header limit is 16 KiB', async () => {
    const s = await startServer(demoAgent);
    try {
      const big = await rawExchange(s.port, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`);
      assert.match(big, /^HTTP\/1\.1 431 /);
      const ok = await rawExchange(s.port, `GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Ok: ${'b'.repeat(12 * 1024)}\r\n\r\n`);
      assert.match(ok, /^HTTP\/1\.1 200 /);
    } finally {
      await s.close();
    }
  });

  test('maxConnections: connections past the cap are dropped, the ones inside it are served', async () => {
    const s = await startServer(demoAgent, {}, { maxConnections: 3 });
    const held: net.Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const socket = await connect(s.port);
        socket.on('error', () => undefined);
        held.push(socket);
      }
      await waitForConnections(s, 3);
      const extra = await rawExchange(s.port, 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n\r\n');
      assert.equal(extra, '', 'the fourth connection is closed without an answer');
      // A held connection is served normally.
      const first = held[0] as net.Socket;
      const answer = new Promise<string>((resolve) => {
        let text = '';
        first.setEncoding('utf8');
        first.on('data', (d: string) => (text += d));
        first.once('close', () => resolve(text));
      });
      first.write('GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      assert.match(await answer, /^HTTP\/1\.1 200 /);
    } finally {
      for (const x of held) x.destroy();
      await s.close();
    }
  });

  test('SSE streams are not cut by requestTimeout (1 s) and run to completion (~3 s)', async () => {
    const s = await startServer(createDemoAgent({ slowMs: 3000, tickMs: 250 }), {}, { headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    try {
      const start = performance.now();
      const send = await rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: userMessage('slow x') });
      assert.equal(send.status, 200);
      await send.waitFor((events) => events.some((e) => e.data !== undefined), 2_000, 'the first event');
      const taskId = (send.payloads[0] as { task: Task }).task.id;
      // A second stream on the same task over REST (SubscribeToTask, GET).
      const sub = await openSse(`${s.restUrl}/tasks/${taskId}:subscribe`, undefined, { method: 'GET', jsonRpc: false });
      assert.equal(sub.status, 200);
      await Promise.all([send.ended, sub.ended]);
      const elapsed = performance.now() - start;
      assert.ok(elapsed > 2_000, `the stream lived ${elapsed.toFixed(0)} ms, past the 1 s request timeout`);
      for (const [name, c] of [
        ['SendStreamingMessage', send],
        ['SubscribeToTask', sub],
      ] as const) {
        const states = c.payloads.map(stateOf).filter((x) => x !== undefined);
        assert.equal(states.at(-1), 'TASK_STATE_COMPLETED', `${name} ended with COMPLETED: ${states.join(',')}`);
        assert.ok(states.filter((x) => x === 'TASK_STATE_WORKING').length >= 5, `${name} saw the progress updates`);
      }
      assert.ok(
        send.payloads.some((p) => 'artifactUpdate' in (p as object)),
        'the final artifact arrived',
      );
    } finally {
      await s.close();
    }
  });
});

// ---------------------------------------------------------------- R7 heartbeat

describe('R7 heartbeat', () => {
  test('an idle stream receives ": keep-alive" comments every heartbeatMs (JSON-RPC and REST)', async () => {
    const s = await startServer(createDemoAgent({ slowMs: 1500, tickMs: 1500 }), { heartbeatMs: 200 });
    try {
      const rpcS = await rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: userMessage('slow quiet') });
      const restS = await openSse(`${s.restUrl}/message:stream`, JSON.stringify({ message: userMessage('slow quiet') }), { jsonRpc: false });
      await Promise.all([rpcS.ended, restS.ended]);
      for (const c of [rpcS, restS]) {
        assert.equal(c.status, 200);
        assert.equal(c.headers['content-type'], 'text/event-stream');
        const comments = c.parser.events.filter((e) => e.comment !== undefined);
        // ~1.5 s idle between WORKING and COMPLETED at 200 ms → about 7; allow for timer slack.
        assert.ok(comments.length >= 3, `${comments.length} keep-alive comments`);
        assert.ok(comments.every((e) => e.comment === 'keep-alive' && e.data === undefined));
        assert.match(c.parser.raw, /\n\n: keep-alive\n\n/);
        // R24: the stream opens with one (so a client knows at once that this server heartbeats);
        // the idle-time heartbeats come between the WORKING and the terminal events, not after the end.
        const kinds = c.parser.events.map((e) => (e.comment !== undefined ? 'hb' : (stateOf(JSON.parse(e.data as string).result ?? JSON.parse(e.data as string)) ?? 'other')));
        assert.equal(kinds[0], 'hb', kinds.join(','));
        const firstIdleHb = kinds.indexOf('hb', 1);
        assert.ok(firstIdleHb > kinds.indexOf('TASK_STATE_WORKING'), kinds.join(','));
        assert.equal(kinds.at(-1), 'TASK_STATE_COMPLETED', kinds.join(','));
      }
    } finally {
      await s.close();
    }
  });
});

test('R19 a request Node cannot parse (URL and headers over the limit) gets a JSON error body, not an empty 431', async () => {
  const server = await serve({ handle: async () => ({ status: 200, headers: {}, body: 'ok' }) }, { port: 0, host: '127.0.0.1' });
  try {
    const res = await fetch(`${server.url}/a2a/rest/tasks?historyLength=${'a'.repeat(20_000)}`);
    assert.equal(res.status, 431);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, 431);
    assert.match(body.error.message, /too large/);
  } finally {
    await server.close();
  }
});
