/**
 * A client that goes away mid-body, or is too slow and gets the host's 408, is no server fault:
 * neither the handler's nor the host's onError hears of it. A real internal failure still does
 * (so these tests can fail). Real server on a loopback socket, raw node:net clients.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { connect, connectionCount, rpc, startServer, userMessage, waitUntil, within, type TestServer } from './helpers.js';

const FAULT = 'boom: a real internal failure';
/** Fails every task: the internal error the server must still report. */
const failing: AgentExecutor = {
  async execute() {
    throw new Error(FAULT);
  },
};

/** Headers announcing 100 body bytes, then 11 of them. */
const partial = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc":`;

describe('a client going away is not an internal error', () => {
  let s: TestServer;
  const errors: unknown[] = [];
  before(async () => {
    s = await startServer(failing, { onError: (e) => errors.push(e) }, { onError: (e) => errors.push(e), requestTimeoutMs: 1000, headersTimeoutMs: 1000 });
  });
  after(async () => {
    await s?.close();
  });
  beforeEach(() => {
    errors.length = 0;
  });

  /** Resolves once the server has closed every connection (so it has seen the client go). */
  async function idle(): Promise<void> {
    const deadline = Date.now() + 5_000;
    while ((await connectionCount(s)) > 0) {
      assert.ok(Date.now() < deadline, 'the server dropped the connection');
      await delay(10);
    }
  }

  /** A real internal failure after the case: reported, and the only report. */
  async function onlyTheRealFaultReported(): Promise<void> {
    await idle();
    await delay(50);
    const env = await rpc(s.rpcUrl, 'SendMessage', { message: userMessage('hi') });
    assert.equal((env.result as { task: { status: { state: string } } }).task.status.state, 'TASK_STATE_FAILED');
    await waitUntil(() => errors.length > 0, 2_000, 'onError to hear of the real failure');
    assert.deepEqual(
      errors.map((e) => (e instanceof Error ? e.message : String(e))),
      [FAULT],
    );
  }

  for (const path of ['/a2a/jsonrpc', '/a2a/rest/message:send']) {
    test(`POST ${path}: 11 of 100 body bytes, then the client closes → onError not called`, async () => {
      const socket = await connect(s.port);
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.write(partial(path), () => resolve()));
      await delay(50);
      socket.destroy();
      await onlyTheRealFaultReported();
    });
  }

  test('the fetch adapter: a request aborted mid-body → onError not called', async () => {
    const abort = new AbortController();
    let fail: (error: Error) => void = () => undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
        fail = (error) => controller.error(error);
      },
    });
    const init = { method: 'POST', headers: { 'a2a-version': '1.0', 'content-type': 'application/json' }, body, duplex: 'half', signal: abort.signal };
    const answer = s.handler.fetch(new Request(s.rpcUrl, init as RequestInit));
    await delay(20);
    abort.abort();
    fail(new Error('the connection closed'));
    await answer;
    await onlyTheRealFaultReported();
  });

  test('a body that does not arrive within requestTimeout → 408, onError not called', async () => {
    const socket = await connect(s.port);
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(partial('/a2a/jsonrpc'));
    await within(closed, 5_000, undefined);
    socket.destroy();
    assert.match(received, /^HTTP\/1\.1 408 /);
    // On the JSON-RPC path, a JSON-RPC error (test/node/hostRefusals.test.ts).
    assert.match(received, /"id":null,"error":\{"code":-32600,"message":"Request not received in time"/);
    await onlyTheRealFaultReported();
  });
});

describe('a stream reader too slow for the buffer (R10) is not an internal error either', () => {
  const CHUNK = 'x'.repeat(64 * 1024);
  /** Streams 400 chunks of 64 KiB as fast as the store takes them: far more than a paused reader's socket holds. */
  const flood: AgentExecutor = {
    async execute(_ctx, task) {
      await task.startWork();
      const artifactId = await task.addArtifact(CHUNK);
      for (let i = 1; i < 400; i++) await task.addArtifact(CHUNK, { artifactId, append: true });
      await task.complete();
    },
  };

  test('the reader gets "too slow"; onError hears nothing', async () => {
    const errors: unknown[] = [];
    const s = await startServer(flood, { maxStreamBuffer: 8, onError: (e) => errors.push(e) }, { onError: (e) => errors.push(e) });
    try {
      const socket = await connect(s.port);
      socket.on('error', () => undefined);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('flood') } });
      socket.write(`POST /a2a/jsonrpc HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      socket.pause(); // reads nothing while the agent writes 25 MiB
      await delay(1_500);
      let received = '';
      socket.setEncoding('latin1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('data', (d: string) => (received = (received + d).slice(-4096)));
      socket.resume();
      await within(closed, 10_000, undefined);
      socket.destroy();
      assert.match(received, /too slow/, 'the stream ended with the R10 error');
      assert.deepEqual(errors, [], 'a slow reader is not reported to onError');
    } finally {
      await s.close();
    }
  });
});
