/** Browser access: CORS preflight and headers (CARD-11), weak ETag revalidation (CACHE-04). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../support/server.js';

const CARD = '/.well-known/agent-card.json';
let closed: TestServer;
let open: TestServer;
before(async () => {
  closed = await startServer();
  open = await startServer({ handler: { corsOrigins: ['https://app.example'] } });
});
after(() => Promise.all([closed.close(), open.close()]));

const preflight = (s: TestServer, path: string, origin: string) =>
  fetch(s.url + path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'a2a-version, content-type' },
  });

describe('CORS', () => {
  test('CARD-11 the card answers a preflight from any origin', async () => {
    const res = await preflight(closed, CARD, 'https://elsewhere.example');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /GET/);
  });

  test('bindings refuse cross-origin preflights unless the origin is configured', async () => {
    assert.equal((await preflight(closed, '/a2a/jsonrpc', 'https://app.example')).status, 403);
    const res = await preflight(open, '/a2a/jsonrpc', 'https://app.example');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /A2A-Version/);
    assert.equal((await preflight(open, '/a2a/rest/tasks', 'https://evil.example')).status, 403);
  });

  test('responses to an allowed origin carry allow-origin and expose A2A headers', async () => {
    const res = await fetch(`${open.url}/a2a/rest/tasks`, { headers: { origin: 'https://app.example', 'a2a-version': '1.0' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /A2A-Version/);
    const other = await fetch(`${open.url}/a2a/rest/tasks`, { headers: { origin: 'https://evil.example', 'a2a-version': '1.0' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });
});

describe('CACHE-04 weak comparison', () => {
  test('If-None-Match W/"etag" revalidates to 304', async () => {
    const etag = (await fetch(closed.url + CARD)).headers.get('etag') as string;
    const res = await fetch(closed.url + CARD, { headers: { 'if-none-match': `W/${etag}` } });
    assert.equal(res.status, 304);
  });
});
