/**
 * createAuthenticator on its own: requirement semantics (OR of AND, scopes per requirement, the
 * anonymous `{}` requirement), configuration errors, and createA2AHandler refusing a card whose
 * requirements nobody enforces. Plus a JWKS the SSRF guard refuses: a server-side failure
 * (INTERNAL, reported to onError), never a credential in the report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { nodeJsonFetcher } from '../../src/auth/nodeJsonFetcher.js';
import type { AuthInput, PeerCertificate } from '../../src/auth/authConfig.js';
import { A2AError } from '../../src/protocol/errors.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { AUDIENCE, echoPrincipal, message, startIssuer, startSecured } from './support.js';

const schemes: AgentCard['securitySchemes'] = {
  key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } },
  mtls: { mtlsSecurityScheme: {} },
  basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
};
const cert: PeerCertificate = { authorized: true, subject: 'CN=svc', issuer: 'CN=ca', subjectAltName: 'DNS:svc.internal, URI:spiffe://x/svc' };

function input(headers: Record<string, string>, extra: Partial<AuthInput> = {}): AuthInput {
  return { header: (n) => headers[n], operation: 'sendMessage', ...extra };
}

async function failure(promise: Promise<unknown>): Promise<A2AError & { challenges: string[] }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(A2AError.is(error));
    return error as A2AError & { challenges: string[] };
  }
  assert.fail('expected a failure');
}

test('schemes in one requirement are AND-ed, requirements OR-ed; the first scheme names the principal', async () => {
  const auth = createAuthenticator(
    { securitySchemes: schemes, securityRequirements: [{ schemes: { mtls: {}, key: {} } }, { schemes: { basic: {} } }] },
    {
      schemes: {
        key: { keys: { k1: 'key-user' } },
        mtls: { identity: 'san' },
        basic: { verify: (c) => (c === btoa('bob:pw') ? { id: 'bob' } : undefined) },
      },
    },
  );
  const both = await auth.authenticate(input({ 'x-api-key': 'k1' }, { peerCertificate: cert }));
  assert.equal(both?.id, 'spiffe://x/svc');
  assert.equal(both?.scheme, 'mtls');
  const keyOnly = await failure(auth.authenticate(input({ 'x-api-key': 'k1' })));
  assert.equal(keyOnly.reason, 'UNAUTHENTICATED');
  assert.match(keyOnly.message, /mtls \+ key or basic/);
  assert.deepEqual(keyOnly.challenges, ['MutualTLS realm="a2a"', 'APIKey realm="a2a", in="header", name="X-Api-Key"', 'Basic realm="a2a"']);
  const basic = await auth.authenticate(input({ authorization: `basic ${btoa('bob:pw')}` }));
  assert.equal(basic?.id, 'bob');
  const untrusted = await failure(auth.authenticate(input({ 'x-api-key': 'k1' }, { peerCertificate: { ...cert, authorized: false } })));
  assert.match(untrusted.message, /not trusted/);
});

test('scopes of a requirement apply to its scheme; an empty requirement allows anonymous calls', async () => {
  const auth = createAuthenticator(
    { securitySchemes: schemes, securityRequirements: [{ schemes: { key: { list: ['admin'] } } }, {}] },
    { schemes: { key: { keys: { adminkey: { id: 'root', scopes: ['admin'] }, userkey: 'user' } } } },
  );
  assert.equal(await auth.authenticate(input({})), undefined, 'anonymous');
  assert.equal((await auth.authenticate(input({ 'x-api-key': 'adminkey' })))?.id, 'root');
  // An authenticated caller without the scope falls back to anonymous (the `{}` alternative)...
  assert.equal(await auth.authenticate(input({ 'x-api-key': 'userkey' })), undefined);
  // ...but a presented key that is wrong is refused rather than ignored.
  assert.equal((await failure(auth.authenticate(input({ 'x-api-key': 'nope' })))).reason, 'UNAUTHENTICATED');

  const strict = createAuthenticator(
    { securitySchemes: schemes, securityRequirements: [{ schemes: { key: { list: ['admin'] } } }] },
    { schemes: { key: { keys: { userkey: 'user' } } } },
  );
  const denied = await failure(strict.authenticate(input({ 'x-api-key': 'userkey' })));
  assert.equal(denied.reason, 'PERMISSION_DENIED');
  assert.deepEqual(denied.metadata, { scheme: 'key', requiredScopes: 'admin' });
});

test('configuration errors name the scheme', () => {
  assert.throws(() => createAuthenticator({ securitySchemes: schemes, securityRequirements: [{ schemes: { nope: {} } }] }, { schemes: {} }), /"nope", which securitySchemes does not declare/);
  assert.throws(() => createAuthenticator({ securitySchemes: schemes }, { schemes: { key: {} } }), /"key" needs "keys" or a verify function/);
  assert.throws(() => createAuthenticator({ securitySchemes: schemes }, { schemes: { basic: {} as never } }), /Basic scheme "basic" needs a verify function/);
  assert.throws(
    () => createAuthenticator({ securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } }, { schemes: { b: { jwks: 'https://x.example/jwks', issuer: 'https://x.example' } } }),
    /needs "audience"/,
  );
});

test('createA2AHandler: a card with requirements needs `auth` (or auth: external)', () => {
  const card: AgentCard = {
    name: 'x',
    description: 'x',
    version: '1',
    supportedInterfaces: [],
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
    securitySchemes: schemes,
    securityRequirements: [{ schemes: { key: {} } }],
  };
  assert.throws(() => createA2AHandler({ agentCard: card, executor: echoPrincipal }), /declares securityRequirements/);
  assert.equal(createA2AHandler({ agentCard: card, executor: echoPrincipal, auth: 'external' }).authenticator, undefined);
});

test('a JWKS on a private address is refused by the SSRF guard unless allowed: INTERNAL, reported without the token', async () => {
  const issuer = await startIssuer();
  const server = await startSecured({
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    securityRequirements: [{ schemes: { bearer: {} } }],
    auth: { schemes: { bearer: { jwks: issuer.jwksUrl, issuer: issuer.issuer, audience: AUDIENCE } } },
  });
  try {
    const token = await issuer.sign();
    const r = await server.bindings[1]!.call('sendMessage', message(), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.ok, false);
    assert.equal(r.status, 500);
    assert.equal(issuer.fetches, 0, 'nothing was fetched');
    assert.equal(server.errors.length, 1);
    const reported = server.errors[0] as Error & { cause?: Error };
    assert.match(String(reported.cause?.message), /SSRF guard blocked/);
    assert.ok(!JSON.stringify(server.errors, Object.getOwnPropertyNames(reported)).includes(token));
    assert.ok(!String(reported.cause?.message).includes(token));
  } finally {
    await server.close();
    await issuer.close();
  }
});

test('nodeJsonFetcher refuses non-2xx answers and oversize documents', async () => {
  const issuer = await startIssuer();
  try {
    const fetchJson = nodeJsonFetcher({ ssrf: { allowPrivate: true } });
    assert.deepEqual(Object.keys((await fetchJson(issuer.jwksUrl)) as object), ['keys']);
    await assert.rejects(fetchJson(`${issuer.issuer}/missing`), /answered HTTP 404/);
  } finally {
    await issuer.close();
  }
});

test('OpenID Connect: issuer and jwks_uri come from discovery', async () => {
  const issuer = await startIssuer();
  try {
    const auth = createAuthenticator(
      {
        securitySchemes: { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer.issuer}/.well-known/openid-configuration` } } },
        securityRequirements: [{ schemes: { oidc: {} } }],
      },
      { fetchJson: nodeJsonFetcher({ ssrf: { allowPrivate: true } }), schemes: { oidc: { audience: AUDIENCE } } },
    );
    const p = await auth.authenticate(input({ authorization: `Bearer ${await issuer.sign({ sub: 'oidc-user' })}` }));
    assert.equal(p?.id, `${issuer.issuer}|oidc-user`);
    const wrongIssuer = await failure(auth.authenticate(input({ authorization: `Bearer ${await issuer.sign({}, { issuer: 'https://other.example' })}` })));
    assert.equal(wrongIssuer.reason, 'UNAUTHENTICATED');
  } finally {
    await issuer.close();
  }
});
