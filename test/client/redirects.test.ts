/**
 * R23 / SEC-02: credentials never follow a redirect to another origin. An agent (or token
 * endpoint) that answers `307 Location: <another origin>` must not get the client to re-send its
 * API key, caller headers, body or client secret there, nor to accept that origin's answer:
 * A2A calls and token requests take a redirect as an HTTP failure; a card fetch follows
 * redirects within the card URL's origin only.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, apiKey, createClient, oauth2ClientCredentials, resolveCard } from '../../src/client/index.js';
import { runA2A } from '../cli/cliHelpers.js';
import { cardAt, rpcId, sendJson, startFakeAgent, task, type FakeAgent } from './fakeAgent.js';

/** The thief (another origin: `localhost`, not `127.0.0.1`) answers everything with a task. */
let thief: FakeAgent;
/** The agent: its card points at its own /rpc or /rest, which redirect to the thief. */
let agent: FakeAgent;

before(async () => {
  thief = await startFakeAgent((req, res) => {
    if (req.url.startsWith('/token')) return sendJson(res, 200, { access_token: 'THIEF-TOKEN', token_type: 'bearer' });
    sendJson(res, 200, req.body.startsWith('{"jsonrpc"') ? { jsonrpc: '2.0', id: rpcId(req), result: task('stolen') } : task('stolen'));
  }, { host: 'localhost' });
  agent = await startFakeAgent((req, res) => {
    const path = req.url.split('?')[0] as string;
    if (path === '/.well-known/agent-card.json') return sendJson(res, 200, cardAt(`${agent.url}/rpc`));
    if (path === '/rest-agent/.well-known/agent-card.json') return sendJson(res, 200, cardAt(`${agent.url}/rest`, { binding: 'HTTP+JSON' }));
    // Same-origin card redirect: /moved → the card above.
    if (path === '/moved/.well-known/agent-card.json') return void res.writeHead(302, { location: '/.well-known/agent-card.json' }).end();
    if (path === '/elsewhere/.well-known/agent-card.json') return void res.writeHead(302, { location: `${thief.url}/steal/card` }).end();
    if (path === '/loop/.well-known/agent-card.json') return void res.writeHead(302, { location: '/loop/.well-known/agent-card.json' }).end();
    if (path === '/upgrade/.well-known/agent-card.json') return void res.writeHead(301, { location: `https://127.0.0.1:${agent.port}/.well-known/agent-card.json` }).end();
    res.writeHead(307, { location: `${thief.url}/steal${path}?api_key=ECHOED` }).end();
  });
});
after(async () => {
  await agent?.close();
  await thief?.close();
});

const credentials = { auth: apiKey('SECRET', { location: 'header', name: 'X-API-Key' }), headers: { 'x-custom-auth': 'HDR-SECRET' }, cardCache: false as const };

function isRedirectRefused(status: number) {
  return (error: unknown) => {
    assert.ok(A2AClientError.is(error, 'HTTP'), String(error));
    assert.equal(error.status, status);
    assert.match(error.message, /redirect \(HTTP 307\) to http:\/\/localhost:\d+\/steal\/[\w/]+, which the client does not follow/);
    assert.doesNotMatch(error.message, /ECHOED/, 'the query of the Location is left out of the message');
    return true;
  };
}

describe('R23 A2A calls never follow a redirect', () => {
  test('JSON-RPC: a 307 to another origin is HTTP 307; nothing reaches that origin', async () => {
    const before = thief.requests.length;
    const client = await createClient(agent.url, credentials);
    await assert.rejects(client.getTask({ id: 't1' }), isRedirectRefused(307));
    await assert.rejects(client.sendText('hi'), isRedirectRefused(307));
    assert.equal(thief.requests.length, before, 'the other origin got no request (no key, no header, no body)');
  });

  test('HTTP+JSON: the same', async () => {
    const before = thief.requests.length;
    const client = await createClient(`${agent.url}/rest-agent`, credentials);
    await assert.rejects(client.getTask({ id: 't1' }), isRedirectRefused(307));
    assert.equal(thief.requests.length, before);
  });

  test('a2a get … --api-key K -H X-Tenant-Secret=abc: exit 4, nothing reaches the other origin', async () => {
    const before = thief.requests.length;
    const proc = runA2A(['get', agent.url, 't1', '--api-key', 'CLI-KEY-1234', '-H', 'X-Tenant-Secret=abc'], { A2A_TOKEN: '', NO_COLOR: '1' });
    const { code } = await proc.exited;
    assert.equal(code, 4, proc.stderr);
    assert.match(proc.stderr, /client error: HTTP: The agent answered with a redirect \(HTTP 307\)/);
    assert.equal(thief.requests.length, before);
  });
});

describe('R23 the OAuth2 token request never follows a redirect', () => {
  test("clientAuthentication: 'body', token URL 307 → another origin: AUTH; the client secret stays home", async () => {
    let calls = 0;
    const rpc = await startFakeAgent((req, res) => {
      if (req.url.startsWith('/token')) return void res.writeHead(307, { location: `${thief.url}/token` }).end();
      calls++;
      sendJson(res, 200, { jsonrpc: '2.0', id: rpcId(req), result: task('t1') });
    });
    try {
      const before = thief.requests.length;
      const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 'CLIENT-SECRET', clientAuthentication: 'body', tokenUrl: `${rpc.url}/token` });
      const client = await createClient(cardAt(`${rpc.url}/rpc`), { auth, retry: false });
      await assert.rejects(client.getTask({ id: 't1' }), (error: unknown) => {
        assert.ok(A2AClientError.is(error, 'AUTH'), String(error));
        assert.match(error.message, /The token endpoint answered with a redirect \(HTTP 307\)/);
        return true;
      });
      assert.equal(thief.requests.length, before, 'the token request did not go to the other origin');
      assert.equal(calls, 0, 'no call was made with a token from elsewhere');
    } finally {
      await rpc.close();
    }
  });
});

describe('R23 CARD-02 card fetches follow redirects within the origin only', () => {
  test('a same-origin redirect is followed, with the caller headers', async () => {
    const card = await resolveCard(`${agent.url}/moved`, { cache: false, headers: { 'x-custom-auth': 'HDR-SECRET' } });
    assert.equal(card.supportedInterfaces[0]?.url, `${agent.url}/rpc`);
    const fetched = agent.requests.filter((r) => r.url === '/.well-known/agent-card.json').at(-1);
    assert.equal(fetched?.headers['x-custom-auth'], 'HDR-SECRET');
  });

  test('a redirect to another origin is BAD_CARD naming it; the caller headers never get there', async () => {
    const before = thief.requests.length;
    await assert.rejects(createClient(`${agent.url}/elsewhere`, credentials), (error: unknown) => {
      assert.ok(A2AClientError.is(error, 'BAD_CARD'), String(error));
      assert.equal(error.status, 302);
      assert.match(error.message, /redirect \(HTTP 302\) to http:\/\/localhost:\d+\/steal\/card, which the client does not follow: use the URL it names/);
      return true;
    });
    assert.equal(thief.requests.length, before);
  });

  test('http → https on the same host is another origin: refused, naming the https URL', async () => {
    await assert.rejects(resolveCard(`${agent.url}/upgrade`, { cache: false }), (error: unknown) => {
      assert.ok(A2AClientError.is(error, 'BAD_CARD'), String(error));
      assert.match(error.message, /to https:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json/);
      return true;
    });
  });

  test('a redirect loop ends after 5 redirects', async () => {
    const before = agent.requests.length;
    await assert.rejects(resolveCard(`${agent.url}/loop`, { cache: false }), (error: unknown) => A2AClientError.is(error, 'BAD_CARD') && /redirected more than 5 times/.test(error.message));
    assert.equal(agent.requests.length - before, 6);
  });
});
