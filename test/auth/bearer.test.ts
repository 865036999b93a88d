/**
 * JWT bearer tokens (HTTP Bearer and OAuth2 schemes) enforced by the server over JSON-RPC,
 * HTTP+JSON and gRPC: real RS256/ES256 tokens signed with keys generated here, verified against a
 * JWKS served on loopback (through the SSRF-guarded Node fetcher), with every rejection a 401 /
 * UNAUTHENTICATED carrying a Bearer challenge, and a missing scope a 403 / PERMISSION_DENIED.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIENCE, assertAuthFailure, message, replyText, startIssuer, startSecured, unsecuredToken, type SecuredAgent, type TestIssuer } from './support.js';

let issuer: TestIssuer;
let server: SecuredAgent;

before(async () => {
  issuer = await startIssuer();
  server = await startSecured({
    extendedCard: true,
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      oauth: {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: 'https://id.example/token', scopes: { 'tasks:write': 'send messages' } } },
        },
      },
    },
    // Declared but not required: needs no verifier.
    securityRequirements: [{ schemes: { oauth: { list: ['tasks:write'] } } }],
    auth: {
      allowPrivateNetworks: true,
      clockSkewSeconds: 5,
      // Refetch at once for an unknown kid (the rotation test); production keeps a cooldown.
      jwksCooldownSeconds: 0,
      schemes: {
        oauth: { jwks: issuer.jwksUrl, issuer: issuer.issuer, audience: AUDIENCE },
      },
    },
  }).catch(async (error: unknown) => {
    await issuer.close();
    throw error;
  });
});

after(async () => {
  await server?.close();
  await issuer?.close();
});

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const BEARER_CHALLENGE = /^Bearer realm="a2a"/;
const INVALID_TOKEN = /Bearer realm="a2a", error="invalid_token"/;

describe('a valid token', () => {
  test('the principal (issuer|sub, scopes) reaches the agent on every binding', async () => {
    const token = await issuer.sign({ scope: 'tasks:write tasks:read' });
    for (const b of server.bindings) {
      const r = await b.call('sendMessage', message(), bearer(token));
      assert.ok(r.ok, `${b.name}: ${JSON.stringify(!r.ok && r.error.raw)}`);
      assert.equal(replyText(r.result), `principal=${issuer.issuer}|alice scheme=oauth scopes=tasks:write,tasks:read`, b.name);
    }
  });

  test('`scp` (array) grants scopes too; the JWKS was fetched once and cached', async () => {
    const token = await issuer.sign({ scp: ['tasks:write'] });
    for (const b of server.bindings) {
      const r = await b.call('sendMessage', message(), bearer(token));
      assert.ok(r.ok, b.name);
    }
    assert.equal(issuer.fetches, 1);
  });
});

describe('rejected tokens: 401 / UNAUTHENTICATED with a Bearer challenge', () => {
  const cases: { name: string; token: () => Promise<string>; description: RegExp }[] = [
    { name: 'no token', token: async () => '', description: /Authentication required/ },
    { name: 'expired (beyond the clock skew)', token: () => issuer.sign({ scope: 'tasks:write' }, { expiresIn: Math.floor(Date.now() / 1000) - 30 }), description: /expired/ },
    { name: 'wrong issuer', token: () => issuer.sign({ scope: 'tasks:write' }, { issuer: 'https://evil.example' }), description: /"iss"/ },
    { name: 'wrong audience', token: () => issuer.sign({ scope: 'tasks:write' }, { audience: 'https://other-service.example' }), description: /"aud"/ },
    { name: 'signed by another key', token: () => issuer.sign({ scope: 'tasks:write' }, { key: 'other' }), description: /signature/ },
    { name: 'alg: none', token: async () => unsecuredToken(issuer.issuer), description: /algorithm|malformed/ },
    { name: 'not a JWT', token: async () => 'opaque-garbage-token', description: /malformed/ },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const token = await c.token();
      for (const b of server.bindings) {
        const r = await b.call('sendMessage', message(), token ? bearer(token) : {});
        const error = assertAuthFailure(b, r, { reason: 'UNAUTHENTICATED', challenge: token ? INVALID_TOKEN : BEARER_CHALLENGE });
        assert.match(error.message, c.description, b.name);
        if (token) assert.ok(!JSON.stringify(error.raw).includes(token), `${b.name}: the token is not echoed`);
        if (!token && b.name !== 'GRPC') assert.doesNotMatch(r.headers.get('www-authenticate') ?? '', /error=/, 'no error param without credentials (RFC 6750 §3.1)');
      }
    });
  }

  test('expired within the clock skew is still accepted', async () => {
    const token = await issuer.sign({ scope: 'tasks:write' }, { expiresIn: Math.floor(Date.now() / 1000) - 2 });
    for (const b of server.bindings) assert.ok((await b.call('sendMessage', message(), bearer(token))).ok, b.name);
  });
});

test('a valid token without the required scope: 403 / PERMISSION_DENIED, insufficient_scope', async () => {
  const token = await issuer.sign({ scope: 'tasks:read' });
  for (const b of server.bindings) {
    const r = await b.call('sendMessage', message(), bearer(token));
    const error = assertAuthFailure(b, r, { reason: 'PERMISSION_DENIED', challenge: /error="insufficient_scope".*scope="tasks:write"/ });
    assert.match(error.message, /tasks:write/);
  }
});

test('key rotation: a token signed with a newly published key is accepted after one refetch', async () => {
  issuer.rotate();
  const before = issuer.fetches;
  const token = await issuer.sign({ scope: 'tasks:write' }, { key: 'rotated' });
  const r = await server.bindings[0]!.call('sendMessage', message(), bearer(token));
  assert.ok(r.ok, JSON.stringify(!r.ok && r.error.raw));
  assert.equal(issuer.fetches, before + 1);
});

test('every operation is authenticated, not only SendMessage', async () => {
  for (const b of server.bindings) {
    const r = await b.call('getTask', { id: 'no-such-task' });
    assertAuthFailure(b, r, { reason: 'UNAUTHENTICATED' });
  }
});

test('the extended card is served only to authenticated callers; the public card stays public', async () => {
  const token = await issuer.sign({ scope: 'tasks:write' });
  for (const b of server.bindings) {
    assertAuthFailure(b, await b.call('getExtendedAgentCard', {}), { reason: 'UNAUTHENTICATED' });
    const r = await b.call('getExtendedAgentCard', {}, bearer(token));
    assert.ok(r.ok, b.name);
    assert.match(r.result.name, /\(extended\)$/);
  }
  const card = await fetch(`${server.agent.url}/.well-known/agent-card.json`);
  assert.equal(card.status, 200);
  const body = (await card.json()) as { securitySchemes: object; securityRequirements: object };
  assert.ok(body.securitySchemes && body.securityRequirements);
});

test('failures are reported to onFailure without credentials; nothing reaches onError', async () => {
  const token = await issuer.sign({ scope: 'x' }, { key: 'other' });
  server.failures.length = 0;
  await server.bindings[1]!.call('sendMessage', message(), bearer(token));
  assert.equal(server.failures.length, 1);
  assert.equal(server.failures[0]?.reason, 'UNAUTHENTICATED');
  assert.ok(!JSON.stringify(server.failures).includes(token));
  assert.deepEqual(server.errors, []);
});
