/**
 * The identity provider's JWKS is down (HTTP 500) and nothing is cached: the first token fetches
 * it and fails (INTERNAL, "key set unavailable"); tokens arriving during the cooldown get the same
 * answer from the remembered failure, without another fetch; after the cooldown one fetch is
 * tried again. Plus the runtime fetcher (createA2AHandler without fetchJson) streaming a
 * never-ending JWKS: it stops reading at 1 MiB and closes the connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { runtimeJsonFetcher } from '../../src/auth/jwt.js';
import { nodeJsonFetcher } from '../../src/auth/nodeJsonFetcher.js';
import { AUDIENCE, message, replyText, startSecured } from './support.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('JWKS down with nothing cached: one fetch per cooldown, not one per token; recovers after it', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const idp = { up: false, hits: 0 };
  const jwksServer = createServer((_req, res) => {
    idp.hits++;
    if (!idp.up) {
      res.writeHead(500).end('identity provider down');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  const base = await listen(jwksServer);
  t.after(() => jwksServer.close());
  const server = await startSecured({
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: {} } }],
    auth: { allowPrivateNetworks: true, jwksCooldownSeconds: 1, schemes: { bearer: { jwks: `${base}/jwks.json`, issuer: base, audience: AUDIENCE } } },
  });
  t.after(() => server.close());
  const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(base).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  const rest = server.bindings[1]!;
  const call = () => rest.call('sendMessage', message('msg hi'), { headers: { authorization: `Bearer ${token}` } });

  for (let i = 0; i < 5; i++) {
    const r = await call();
    assert.equal(r.ok, false);
    assert.equal(r.status, 500);
    if (!r.ok) assert.match(r.error.message, /key set unavailable/);
  }
  assert.equal(idp.hits, 1, 'five tokens during the cooldown: one JWKS fetch');
  assert.equal(server.errors.length, 5);
  assert.match(String((server.errors[4] as Error & { cause?: Error }).cause?.message), /answered HTTP 500/);

  idp.up = true;
  // Still within the cooldown: answered from the remembered failure.
  assert.equal((await call()).ok, false);
  assert.equal(idp.hits, 1);
  await sleep(1100);
  const ok = await call();
  assert.equal(ok.ok, true);
  if (ok.ok) assert.match(replyText(ok.result), /principal=/);
  assert.equal(idp.hits, 2, 'one fetch after the cooldown, then cached');
  assert.equal((await call()).ok, true);
  assert.equal(idp.hits, 2);
});

test('OpenID Connect discovery down: one fetch per cooldown too', async (t) => {
  let hits = 0;
  const idp = createServer((_req, res) => {
    hits++;
    res.writeHead(500).end();
  });
  const base = await listen(idp);
  t.after(() => idp.close());
  const auth = createAuthenticator(
    {
      securitySchemes: { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${base}/.well-known/openid-configuration` } } },
      securityRequirements: [{ schemes: { oidc: {} } }],
    },
    { fetchJson: nodeJsonFetcher({ ssrf: { allowPrivate: true } }), jwksCooldownSeconds: 30, schemes: { oidc: { audience: AUDIENCE } } },
  );
  const { privateKey } = await generateKeyPair('ES256');
  const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(base).setAudience(AUDIENCE).setExpirationTime('5m').sign(privateKey);
  for (let i = 0; i < 4; i++) {
    await assert.rejects(auth.authenticate({ header: (n) => (n === 'authorization' ? `Bearer ${token}` : undefined), operation: 'sendMessage' }), /cannot verify tokens right now/);
  }
  assert.equal(hits, 1);
});

test('runtimeJsonFetcher streams the document and stops at 1 MiB (a never-ending JWKS does not keep it reading)', { timeout: 30_000 }, async (t) => {
  let closed: () => void = () => undefined;
  const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
  let sent = 0;
  const endless = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"keys":[');
    const chunk = `${JSON.stringify({ kty: 'oct', k: 'x'.repeat(16 * 1024) })},`;
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
    };
    res.on('drain', pump);
    res.on('close', () => closed());
    pump();
  });
  const base = await listen(endless);
  t.after(() => endless.close());
  await assert.rejects(runtimeJsonFetcher(`${base}/jwks.json?secret=s3cr3t`), (e: Error) => /document larger than 1048576 bytes/.test(e.message) && !e.message.includes('s3cr3t'));
  // The reader gave up: the server sees its response closed while it still had more to send.
  await connectionClosed;
  assert.ok(sent < 64 * 1024 * 1024, `stopped early (server wrote ${sent} bytes)`);
});
