/**
 * What the client commands put on the wire and how they take what comes back, against a small
 * recording agent: credentials (--header, A2A_TOKEN, --api-key where the card's scheme says),
 * unusable cards, HTTP failures without an A2A body, and 401s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '../../src/protocol/types.js';
import { runA2A } from './cliHelpers.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

const seen: Seen[] = [];
let base = '';
let server: http.Server | undefined;

function card(prefix: string): AgentCard {
  const keyed = prefix === '/keyed';
  return {
    name: `recorder ${prefix}`,
    description: 'records requests',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${base}${prefix}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    ...(keyed ? { securitySchemes: { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } } } : {}),
  };
}

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const path = new URL(req.url ?? '/', base).pathname;
      const prefix = path.replace(/\/(\.well-known\/agent-card\.json|rpc)$/, '');
      if (path.endsWith('/.well-known/agent-card.json')) {
        if (prefix === '/bad') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": 1}');
        if (prefix === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(prefix)));
      }
      if (prefix === '/down') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream down');
      if (prefix === '/deny') return void res.writeHead(401).end();
      const id = (JSON.parse(body) as { id: number }).id;
      const result = { message: { messageId: 'reply-1', role: 'ROLE_AGENT', parts: [{ text: 'recorded' }] } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server?.close());

async function run(args: string[], env: Record<string, string> = {}) {
  const proc = runA2A(args, { A2A_TOKEN: '', ...env });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

function requestsTo(suffix: string, marker: string): Seen[] {
  return seen.filter((s) => s.url.includes(suffix) && s.headers['x-test'] === marker);
}

describe('credentials', { concurrency: 3 }, () => {
  test('--header on every request (the card too), A2A_TOKEN as a bearer token, --api-key as X-API-Key without a scheme', async () => {
    const r = await run(['send', `${base}/plain`, 'hi', '-H', 'X-Test=one', '--header', 'X-Trace: abc', '--api-key', 'k1'], { A2A_TOKEN: 'tok1' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'recorded\n');
    const [cardRequest] = requestsTo('/plain/.well-known/agent-card.json', 'one');
    assert.equal(cardRequest?.headers['x-trace'], 'abc');
    const [call] = requestsTo('/plain/rpc', 'one');
    assert.ok(call, 'the call was made');
    assert.equal(call.method, 'POST');
    assert.equal(call.headers.authorization, 'Bearer tok1');
    assert.equal(call.headers['x-api-key'], 'k1');
    assert.equal(call.headers['x-trace'], 'abc');
    assert.equal(call.headers['a2a-version'], '1.0');
  });

  test('--api-key goes where the card\'s API key scheme says (here the query), no bearer without A2A_TOKEN', async () => {
    const r = await run(['send', `${base}/keyed`, 'hi', '-H', 'X-Test=two', '--api-key', 'k2']);
    assert.equal(r.code, 0, r.stderr);
    const [call] = requestsTo('/keyed/rpc', 'two');
    assert.ok(call, 'the call was made');
    assert.equal(new URL(call.url, base).searchParams.get('api_key'), 'k2');
    assert.equal(call.headers['x-api-key'], undefined);
    assert.equal(call.headers.authorization, undefined);
  });
});

describe('failures on the wire', { concurrency: 3 }, () => {
  test('a card that is not an AgentCard → exit 4 BAD_CARD; not JSON → BAD_CARD', async () => {
    const bad = await run(['send', `${base}/bad`, 'hi']);
    assert.equal(bad.code, 4);
    assert.match(bad.stderr, /client error: BAD_CARD: The agent card at \S+ has no name/);
    const html = await run(['card', `${base}/html`, '--json']);
    assert.equal(html.code, 4);
    assert.equal((JSON.parse(html.stdout) as { error: { code: string } }).error.code, 'BAD_CARD');
  });

  test('HTTP 503 without an A2A body → exit 4 HTTP with the status', async () => {
    const r = await run(['send', `${base}/down`, 'hi', '--json']);
    assert.equal(r.code, 4);
    const { error } = JSON.parse(r.stdout) as { error: { type: string; code: string; status: number } };
    assert.deepEqual([error.type, error.code, error.status], ['client', 'HTTP', 503]);
    assert.match(r.stderr, /client error: HTTP: HTTP 503 Service Unavailable$/m);
  });

  test('HTTP 401 → exit 3 UNAUTHENTICATED (the agent refused the credentials)', async () => {
    const r = await run(['send', `${base}/deny`, 'hi'], { A2A_TOKEN: 'wrong' });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /the agent answered: UNAUTHENTICATED: .* \[HTTP 401\]$/m);
  });
});
