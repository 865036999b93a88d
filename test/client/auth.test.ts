/**
 * Authentication helpers against a real server wrapped with an Authorization check, and a
 * real OAuth2 token endpoint on loopback: API keys where the card says, bearer tokens, the
 * client-credentials flow with caching, expiry and one retry after a 401 (SEC-02, ERR-05).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  A2AClientError,
  A2AError,
  apiKey,
  bearerToken,
  createClient,
  oauth2ClientCredentials,
  responseInfo,
  type AgentCard,
} from '../../src/client/index.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, hook, jsonResponse, record, type Seen } from './helpers.js';

interface TokenEndpoint {
  url: string;
  requests: { authorization: string | undefined; form: URLSearchParams }[];
  /** Lifetime of the tokens issued next (seconds). */
  expiresIn: number;
  /** Reject every request with 401 invalid_client. */
  refuse: boolean;
  close(): Promise<void>;
}

async function startTokenEndpoint(issued: Set<string>): Promise<TokenEndpoint> {
  let n = 0;
  const endpoint = {
    requests: [] as TokenEndpoint['requests'],
    expiresIn: 3600,
    refuse: false,
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      endpoint.requests.push({ authorization: req.headers.authorization, form });
      const basic = req.headers.authorization === `Basic ${btoa('client-1:s3cret%2F')}`;
      const inBody = form.get('client_id') === 'client-1' && form.get('client_secret') === 's3cret/';
      if (endpoint.refuse || req.method !== 'POST' || form.get('grant_type') !== 'client_credentials' || !(basic || inBody)) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
        return;
      }
      const token = `tok-${++n}`;
      issued.add(token);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'bearer', expires_in: endpoint.expiresIn }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(endpoint, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Requires `Authorization: Bearer <valid>` on A2A calls; answers 401 in the binding's error format. */
function requireBearer(server: TestServer, valid: Set<string>): void {
  hook(server, async (req, next) => {
    if (req.path.startsWith('/.well-known/')) return next(req);
    const token = /^Bearer (.+)$/.exec(req.header('authorization') ?? '')?.[1];
    if (token && valid.has(token)) return next(req);
    const challenge = { 'www-authenticate': 'Bearer' };
    return req.path.startsWith('/a2a/rest')
      ? jsonResponse(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Bearer token required' } }, challenge)
      : jsonResponse(401, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bearer token required' } }, challenge);
  });
}

function cardWith(card: AgentCard, securitySchemes: AgentCard['securitySchemes']): AgentCard {
  return { ...card, securitySchemes };
}

for (const binding of BINDINGS) {
  describe(`OAuth2 client credentials and bearer tokens over ${binding}`, () => {
    let server: TestServer;
    let tokens: TokenEndpoint;
    let seen: Seen[];
    const valid = new Set<string>();

    before(async () => {
      server = await startServer();
      requireBearer(server, valid);
      seen = record(server);
      tokens = await startTokenEndpoint(valid);
    });
    after(async () => {
      await server.close();
      await tokens.close();
    });

    test('without credentials: a typed UNAUTHENTICATED error with status 401', async () => {
      const client = await createClient(server.card, { bindings: [binding] });
      await assert.rejects(client.listTasks(), (e: unknown) => {
        assert.ok(A2AError.is(e));
        assert.equal(e.reason, 'UNAUTHENTICATED');
        assert.equal(responseInfo(e)?.status, 401);
        return true;
      });
    });

    test('the token URL comes from the card; the token is fetched once and reused', async () => {
      tokens.requests.length = 0;
      const card = cardWith(server.card, {
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: tokens.url, scopes: { 'tasks:read': 'read' } } } } },
      });
      const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 's3cret/', scopes: ['tasks:read', 'tasks:write'] });
      const client = await createClient(card, { bindings: [binding], auth });
      await Promise.all([client.listTasks(), client.listTasks(), client.sendText('hi')]);
      await client.listTasks();
      assert.equal(tokens.requests.length, 1, 'one token request, shared by concurrent calls');
      assert.equal(tokens.requests[0]?.form.get('scope'), 'tasks:read tasks:write');
      assert.match(tokens.requests[0]?.authorization ?? '', /^Basic /);
      assert.equal(seen.at(-1)?.headers.authorization, `Bearer ${[...valid].at(-1)}`);
    });

    test('client authentication in the body (RFC 6749 §2.3.1)', async () => {
      tokens.requests.length = 0;
      const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 's3cret/', tokenUrl: tokens.url, clientAuthentication: 'body' });
      const client = await createClient(server.card, { bindings: [binding], auth });
      await client.listTasks();
      assert.equal(tokens.requests[0]?.authorization, undefined);
      assert.equal(tokens.requests[0]?.form.get('client_id'), 'client-1');
    });

    test('a revoked token: 401, a fresh token, one retry', async () => {
      tokens.requests.length = 0;
      const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 's3cret/', tokenUrl: tokens.url });
      const client = await createClient(server.card, { bindings: [binding], auth });
      await client.listTasks();
      valid.clear();
      const from = seen.length;
      await client.listTasks();
      assert.equal(tokens.requests.length, 2);
      assert.deepEqual(seen.slice(from).map((s) => s.status), [401, 200]);
      assert.notEqual(seen[from]?.headers.authorization, seen[from + 1]?.headers.authorization);
    });

    test('a token that keeps being refused: exactly one retry, then the 401 error', async () => {
      tokens.requests.length = 0;
      const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 's3cret/', tokenUrl: tokens.url });
      const client = await createClient(server.card, { bindings: [binding], auth });
      const revoke = hook(server, async (req, next) => {
        valid.clear();
        return next(req);
      });
      try {
        const from = seen.length;
        await assert.rejects(client.getTask({ id: 'x' }), (e: unknown) => A2AError.is(e) && e.reason === 'UNAUTHENTICATED');
        assert.equal(seen.length - from, 2);
        assert.equal(tokens.requests.length, 2);
      } finally {
        revoke();
      }
    });

    test('an expired token is renewed before use', async () => {
      tokens.requests.length = 0;
      tokens.expiresIn = 1;
      try {
        const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 's3cret/', tokenUrl: tokens.url });
        const client = await createClient(server.card, { bindings: [binding], auth });
        await client.listTasks();
        await new Promise((r) => setTimeout(r, 600));
        await client.listTasks();
        assert.equal(tokens.requests.length, 2, 'renewed half-way through a 1 s lifetime');
      } finally {
        tokens.expiresIn = 3600;
      }
    });

    test('the token endpoint refusing: A2AClientError AUTH', async () => {
      tokens.refuse = true;
      try {
        const auth = oauth2ClientCredentials({ clientId: 'client-1', clientSecret: 'wrong', tokenUrl: tokens.url });
        const client = await createClient(server.card, { bindings: [binding], auth });
        await assert.rejects(client.listTasks(), (e: unknown) => A2AClientError.is(e, 'AUTH') && /invalid_client/.test(e.message));
      } finally {
        tokens.refuse = false;
      }
    });

    test('bearer token: static (no retry on 401) and from a function (asked again with fresh: true)', async () => {
      valid.add('static-token');
      const fixed = await createClient(server.card, { bindings: [binding], auth: bearerToken('static-token') });
      await fixed.listTasks();
      assert.equal(seen.at(-1)?.headers.authorization, 'Bearer static-token');
      const stale = await createClient(server.card, { bindings: [binding], auth: bearerToken('stale') });
      let from = seen.length;
      await assert.rejects(stale.listTasks(), (e: unknown) => responseInfo(e)?.status === 401);
      assert.equal(seen.length - from, 1, 'a static token cannot be renewed: no retry');

      const asked: boolean[] = [];
      const dynamic = await createClient(server.card, {
        bindings: [binding],
        auth: bearerToken(({ fresh }) => {
          asked.push(fresh);
          return fresh ? 'static-token' : 'old-token';
        }),
      });
      from = seen.length;
      await dynamic.listTasks();
      assert.deepEqual(asked, [false, true]);
      assert.deepEqual(seen.slice(from).map((s) => s.status), [401, 200]);
    });
  });
}

describe('API keys', () => {
  let server: TestServer;
  let seen: Seen[];
  before(async () => {
    server = await startServer();
    seen = record(server);
  });
  after(() => server.close());

  const scheme = (location: string, name: string): AgentCard['securitySchemes'] => ({ key: { apiKeySecurityScheme: { location, name } } });

  for (const binding of BINDINGS) {
    test(`${binding}: header, query and cookie as the card's APIKeySecurityScheme says`, async () => {
      const inHeader = await createClient(cardWith(server.card, scheme('header', 'X-Api-Key')), { bindings: [binding], auth: apiKey('k-1') });
      await inHeader.listTasks();
      assert.equal(seen.at(-1)?.headers['x-api-key'], 'k-1');

      const inQuery = await createClient(cardWith(server.card, scheme('query', 'api_key')), { bindings: [binding], auth: apiKey('k/2') });
      await inQuery.listTasks({ pageSize: 5 });
      const query = new URLSearchParams(seen.at(-1)?.query);
      assert.equal(query.get('api_key'), 'k/2');
      if (binding === 'HTTP+JSON') assert.equal(query.get('pageSize'), '5');

      const inCookie = await createClient(cardWith(server.card, scheme('cookie', 'session')), { bindings: [binding], auth: apiKey('k 3') });
      await inCookie.listTasks({}, { headers: { cookie: 'theme=dark' } });
      assert.equal(seen.at(-1)?.headers.cookie, 'theme=dark; session=k%203');
    });

    test(`${binding}: explicit location and name; a card without a scheme needs them`, async () => {
      const explicit = await createClient(server.card, { bindings: [binding], auth: apiKey('k-4', { location: 'header', name: 'X-Api-Key' }) });
      await explicit.listTasks();
      assert.equal(seen.at(-1)?.headers['x-api-key'], 'k-4');
      const missing = await createClient(server.card, { bindings: [binding], auth: apiKey('k-5') });
      await assert.rejects(missing.listTasks(), (e: unknown) => A2AClientError.is(e, 'AUTH'));
    });
  }
});

/** A token endpoint that accepts requests and never answers (a hung OAuth server). */
async function startHangingServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How long `promise` takes to settle, and how (it must settle well within `withinMs`). */
async function settledWithin(promise: Promise<unknown>, withinMs: number): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${withinMs} ms`)), withinMs);
  });
  try {
    await Promise.race([promise, stuck]);
    return { error: undefined, ms: Date.now() - started };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('still pending')) throw error;
    return { error, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

describe('SEC-02 deadlines bound the auth provider and the interceptors (a hung token endpoint)', () => {
  let server: TestServer;
  let hanging: Awaited<ReturnType<typeof startHangingServer>>;

  before(async () => {
    server = await startServer();
    hanging = await startHangingServer();
  });
  after(async () => {
    await hanging.close();
    await server.close();
  });

  const hungOAuth = (extra: { tokenTimeoutMs?: number } = {}) =>
    oauth2ClientCredentials({ clientId: 'a', clientSecret: 'b', tokenUrl: hanging.url, ...extra });

  test('timeoutMs: TIMEOUT at the deadline while the token request hangs', async () => {
    const client = await createClient(server.card, { auth: hungOAuth() });
    const { error, ms } = await settledWithin(client.listTasks({}, { timeoutMs: 300 }), 3000);
    assert.ok(A2AClientError.is(error, 'TIMEOUT'), String(error));
    assert.ok(ms < 2000, `${ms} ms`);
  });

  test('the client-wide timeoutMs too', async () => {
    const client = await createClient(server.card, { auth: hungOAuth(), timeoutMs: 300 });
    const { error } = await settledWithin(client.getTask({ id: 'x' }), 3000);
    assert.ok(A2AClientError.is(error, 'TIMEOUT'), String(error));
  });

  test('AbortSignal: ABORTED when aborted, TIMEOUT for AbortSignal.timeout()', async () => {
    const client = await createClient(server.card, { auth: hungOAuth() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await settledWithin(client.listTasks({}, { signal: controller.signal }), 3000);
    assert.ok(A2AClientError.is(aborted.error, 'ABORTED'), String(aborted.error));
    const timedOut = await settledWithin(client.listTasks({}, { timeoutMs: 5000, signal: AbortSignal.timeout(300) }), 3000);
    assert.ok(A2AClientError.is(timedOut.error, 'TIMEOUT'), String(timedOut.error));
  });

  test('a stream is not opened past its deadline either', async () => {
    const client = await createClient(server.card, { auth: hungOAuth() });
    const drain = async () => {
      for await (const _ of client.streamText('hi', { timeoutMs: 300 })) void _;
    };
    const { error } = await settledWithin(drain(), 3000);
    assert.ok(A2AClientError.is(error, 'TIMEOUT'), String(error));
  });

  test('the token request has its own limit (tokenTimeoutMs): AUTH, and the next call asks again', async () => {
    const client = await createClient(server.card, { auth: hungOAuth({ tokenTimeoutMs: 300 }) });
    const before = hanging.requests();
    const { error } = await settledWithin(client.listTasks(), 3000);
    assert.ok(A2AClientError.is(error, 'AUTH') && /did not answer within 300 ms/.test(error.message), String(error));
    const again = await settledWithin(client.listTasks(), 3000);
    assert.ok(A2AClientError.is(again.error, 'AUTH'), String(again.error));
    assert.equal(hanging.requests() - before, 2, 'a new token request, not the hung one shared forever');
  });

  test('a refresh that hangs after a 401, and a before interceptor that hangs: TIMEOUT', async () => {
    const stale = await createClient(server.card, {
      auth: {
        apply: (call) => void call.headers.set('authorization', 'Bearer stale'),
        refresh: () => new Promise<boolean>(() => {}),
      },
    });
    const unauthorized = hook(server, async () => jsonResponse(401, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no' } }));
    try {
      const { error } = await settledWithin(stale.listTasks({}, { timeoutMs: 300 }), 3000);
      assert.ok(A2AClientError.is(error, 'TIMEOUT'), String(error));
    } finally {
      unauthorized();
    }
    const stuck = await createClient(server.card, { interceptors: [{ before: () => new Promise<void>(() => {}) }] });
    const { error } = await settledWithin(stuck.getTask({ id: 'x' }, { timeoutMs: 300 }), 3000);
    assert.ok(A2AClientError.is(error, 'TIMEOUT'), String(error));
    // An `after` interceptor that hangs on a successful answer is bounded too.
    const stuckAfter = await createClient(server.card, { interceptors: [{ after: () => new Promise<void>(() => {}) }] });
    const late = await settledWithin(stuckAfter.listTasks({}, { timeoutMs: 300 }), 3000);
    assert.ok(A2AClientError.is(late.error, 'TIMEOUT'), String(late.error));
  });
});
