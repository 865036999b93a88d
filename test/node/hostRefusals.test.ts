/**
 * R19 / ERR-02 / B6: errors answered before any binding runs — by the Node host (431 headers or
 * URL too large, 400 malformed HTTP, 408 a stalled body) and by the CORS preflight (403) — carry
 * ErrorInfo like every other error, and on the JSON-RPC endpoint they are JSON-RPC error
 * responses with `id: null`, keeping their own HTTP status (transport refusals, B6). Before, all
 * of them were REST-shaped without ErrorInfo, and 431 claimed INVALID_ARGUMENT.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAgent } from '../../src/cli/agents/demo.js';
import { ERROR_INFO_TYPE, type Json } from '../support/bindings.js';
import { connect, rawExchange, startServer, within, type TestServer } from './helpers.js';

/** Status line and JSON body of a raw HTTP answer. */
function parse(raw: string): { status: number; contentType: string; body: Json } {
  const split = raw.indexOf('\r\n\r\n');
  assert.ok(split > 0, `an HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`);
  const head = raw.slice(0, split);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]),
    contentType: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '',
    body: JSON.parse(raw.slice(split + 4)),
  };
}

function errorInfo(details: Json): Json {
  const info = (details as Json[]).find((d) => d['@type'] === ERROR_INFO_TYPE);
  assert.ok(info, `ErrorInfo in ${JSON.stringify(details)}`);
  return info;
}

/** A JSON-RPC error response with id null, its code and ErrorInfo reason. */
function assertJsonRpc(raw: string, expect: { status: number; code: number; reason: string }): void {
  const { status, contentType, body } = parse(raw);
  assert.equal(status, expect.status);
  assert.match(contentType, /^application\/json/);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, null);
  assert.equal(body.error.code, expect.code, JSON.stringify(body));
  assert.deepEqual({ reason: errorInfo(body.error.data).reason, domain: errorInfo(body.error.data).domain }, { reason: expect.reason, domain: 'a2a-kit' });
}

/** An HTTP+JSON error body, its status name and ErrorInfo reason. */
function assertRest(raw: string, expect: { status: number; grpcStatus: string; reason: string }): void {
  const { status, body } = parse(raw);
  assert.equal(status, expect.status);
  assert.equal(body.error.code, expect.status);
  assert.equal(body.error.status, expect.grpcStatus, JSON.stringify(body));
  assert.deepEqual({ reason: errorInfo(body.error.details).reason, domain: errorInfo(body.error.details).domain }, { reason: expect.reason, domain: 'a2a-kit' });
}

describe('R19 B6 errors answered before any binding runs carry ErrorInfo, in the JSON-RPC shape on the JSON-RPC path', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(demoAgent, {}, { maxHeaderSize: 4096, requestTimeoutMs: 1000, headersTimeoutMs: 1000 });
  });
  after(() => s.close());

  const bigHeader = `X-Big: ${'b'.repeat(6000)}\r\n`;

  test('431 headers or URL too large: PAYLOAD_TOO_LARGE (RESOURCE_EXHAUSTED), not INVALID_ARGUMENT', async () => {
    const tooLarge = { status: 431, code: -32600, reason: 'PAYLOAD_TOO_LARGE' };
    assertJsonRpc(await rawExchange(s.port, `POST /a2a/jsonrpc HTTP/1.1\r\nHost: localhost\r\n${bigHeader}\r\n`), tooLarge);
    assertJsonRpc(await rawExchange(s.port, `POST /a2a/jsonrpc?x=${'a'.repeat(6000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), tooLarge);
    const rest = { status: 431, grpcStatus: 'RESOURCE_EXHAUSTED', reason: 'PAYLOAD_TOO_LARGE' };
    assertRest(await rawExchange(s.port, `GET /a2a/rest/tasks HTTP/1.1\r\nHost: localhost\r\n${bigHeader}\r\n`), rest);
    assertRest(await rawExchange(s.port, `GET /a2a/rest/tasks?historyLength=${'a'.repeat(6000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), rest);
    // A URL cut before its path ends names no endpoint: the HTTP+JSON shape.
    assertRest(await rawExchange(s.port, `POST /a2a/jsonrpc${'a'.repeat(6000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), rest);
  });

  test('400 malformed HTTP: INVALID_REQUEST', async () => {
    assertJsonRpc(await rawExchange(s.port, 'POST /a2a/jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n'), { status: 400, code: -32600, reason: 'INVALID_REQUEST' });
    assertRest(await rawExchange(s.port, 'POST /a2a/rest/message:send HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n'), {
      status: 400,
      grpcStatus: 'INVALID_ARGUMENT',
      reason: 'INVALID_REQUEST',
    });
    assertRest(await rawExchange(s.port, 'NOT HTTP AT ALL\r\n\r\n'), { status: 400, grpcStatus: 'INVALID_ARGUMENT', reason: 'INVALID_REQUEST' });
  });

  test('408 a body that does not arrive: INVALID_REQUEST (DEADLINE_EXCEEDED over REST)', async () => {
    const stalled = async (path: string): Promise<string> => {
      const socket = await connect(s.port);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":`);
      await within(closed, 5_000, undefined);
      socket.destroy();
      return received;
    };
    const [rpc, rest] = await Promise.all([stalled('/a2a/jsonrpc'), stalled('/a2a/rest/message:send')]);
    assertJsonRpc(rpc, { status: 408, code: -32600, reason: 'INVALID_REQUEST' });
    assertRest(rest, { status: 408, grpcStatus: 'DEADLINE_EXCEEDED', reason: 'INVALID_REQUEST' });
  });

  test('403 CORS preflight of an origin not allowed: PERMISSION_DENIED', async () => {
    const preflight = async (path: string) => {
      const res = await fetch(`${s.url}${path}`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
      return `HTTP/1.1 ${res.status} x\r\ncontent-type: ${res.headers.get('content-type')}\r\n\r\n${await res.text()}`;
    };
    assertJsonRpc(await preflight('/a2a/jsonrpc'), { status: 403, code: -32000, reason: 'PERMISSION_DENIED' });
    assertRest(await preflight('/a2a/rest/tasks'), { status: 403, grpcStatus: 'PERMISSION_DENIED', reason: 'PERMISSION_DENIED' });
  });
});
