/** R22: sign → verify; every change fails; key order and whitespace do not matter; alg policy; keys; jku through the SSRF guard. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { signAgentCard, jwksOf } from '../../src/signing/cardSigner.js';
import { CardSignatureError, JwksCache, base64UrlEncode, verifyAgentCard, type Jwks, type VerifyCardOptions } from '../../src/signing/cardSignature.js';
import { guardedJwksFetcher } from '../../src/signing/node.js';
import { leaves, mutate, realisticCard } from './fixtures/realisticCard.js';

async function newKey(alg = 'ES256', kid = `${alg.toLowerCase()}-key`): Promise<{ jwk: JWK; kid: string; alg: string; jwks: Jwks }> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { jwk, kid, alg, jwks: await jwksOf([{ key: jwk, kid, alg }]) };
}

const es256 = await newKey();

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(CardSignatureError.is(error), String(error));
    return error.reason;
  }
  return 'verified';
}

test('the signature is a detached JWS: protected header alg, kid, typ JOSE (and jku)', async () => {
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid, jku: 'https://travel.example.com/jwks.json' });
  assert.equal(signed.signatures.length, 1);
  const sig = signed.signatures[0]!;
  assert.deepEqual(Object.keys(sig).sort(), ['protected', 'signature']);
  assert.deepEqual(JSON.parse(Buffer.from(sig.protected, 'base64url').toString()), { alg: 'ES256', kid: es256.kid, typ: 'JOSE', jku: 'https://travel.example.com/jwks.json' });
  assert.match(sig.signature, /^[A-Za-z0-9_-]+$/);
});

for (const alg of ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256', 'PS256']) {
  test(`sign → verify with ${alg}`, async () => {
    const key = alg === 'ES256' ? es256 : await newKey(alg);
    const signed = await signAgentCard(realisticCard(), { key: key.jwk, kid: key.kid, alg });
    assert.deepEqual(await verifyAgentCard(signed, { jwks: key.jwks }), { verified: true, kid: key.kid, alg });
  });
}

test('changing any leaf of the card makes the signature fail', async () => {
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid });
  const paths = leaves(realisticCard());
  assert.ok(paths.length > 40, `${paths.length} leaves`);
  for (const { path } of paths) {
    assert.equal(await reason(verifyAgentCard(mutate(signed, path), { jwks: es256.jwks })), 'bad-signature', path.join('.'));
  }
  // Removing or adding a field, or reordering a list, fails too.
  const { provider: _provider, ...withoutProvider } = signed;
  assert.equal(await reason(verifyAgentCard(withoutProvider, { jwks: es256.jwks })), 'bad-signature');
  assert.equal(await reason(verifyAgentCard({ ...signed, skills: [...signed.skills, signed.skills[0]!] }, { jwks: es256.jwks })), 'bad-signature');
  assert.equal(await reason(verifyAgentCard({ ...signed, supportedInterfaces: [...signed.supportedInterfaces].reverse() }, { jwks: es256.jwks })), 'bad-signature');
});

test('key order, whitespace and default-valued fields do not matter', async () => {
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid });
  const reorder = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(reorder) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reorder(x)])) : v;
  const reparsed = JSON.parse(JSON.stringify(reorder(signed), null, '\t  ').replace(/\n/g, '\r\n  ')) as typeof signed;
  assert.deepEqual(await verifyAgentCard(reparsed, { jwks: es256.jwks }), { verified: true, kid: es256.kid, alg: 'ES256' });
  // Implicit fields at their default (as another serializer might emit them) change nothing.
  const withDefaults = { ...signed, securityRequirements: [...signed.securityRequirements!], capabilities: { ...signed.capabilities, extensions: [...signed.capabilities.extensions!] } };
  withDefaults.supportedInterfaces = signed.supportedInterfaces.map((i) => ({ tenant: '', ...i }));
  assert.equal((await verifyAgentCard(withDefaults, { jwks: es256.jwks })).verified, true);
});

/** A signature with a hand-made protected header (signed or not). */
function forged(card: object, header: object, signature = 'AAAA'): Record<string, unknown> {
  return { ...card, signatures: [{ protected: base64UrlEncode(new TextEncoder().encode(JSON.stringify(header))), signature }] };
}

test('alg none is rejected, whatever the allow-list says', async () => {
  const card = realisticCard();
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'none', kid: es256.kid }, ''), { jwks: es256.jwks })), 'alg-not-allowed');
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'none', kid: es256.kid }, ''), { jwks: es256.jwks, allowedAlgs: ['none', 'ES256'] })), 'alg-not-allowed');
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'NONE', kid: es256.kid }, ''), { jwks: es256.jwks, allowedAlgs: ['NONE'] })), 'alg-not-allowed');
});

test('an alg outside the allow-list is rejected (HS256 never verifies against a public key)', async () => {
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid });
  assert.equal(await reason(verifyAgentCard(signed, { jwks: es256.jwks, allowedAlgs: ['RS256'] })), 'alg-not-allowed');
  assert.equal(await reason(verifyAgentCard(forged(realisticCard(), { alg: 'HS256', kid: es256.kid }), { jwks: es256.jwks, allowedAlgs: ['HS256'] })), 'alg-not-allowed');
});

test('malformed signatures, crit and b64: false are refused', async () => {
  const card = realisticCard();
  const opts = { jwks: es256.jwks };
  assert.equal(await reason(verifyAgentCard({ ...card, signatures: [{ protected: '!!', signature: 'x' }] }, opts)), 'malformed');
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'ES256' }), opts)), 'malformed');
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'ES256', kid: es256.kid, crit: ['exp'], exp: 1 }), opts)), 'malformed');
  assert.equal(await reason(verifyAgentCard(forged(card, { alg: 'ES256', kid: es256.kid, b64: false, crit: ['b64'] }), opts)), 'malformed');
});

test('wrong kid, unknown key, another key with the same kid, a key of another type', async () => {
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid });
  const other = await newKey('ES256', es256.kid);
  const rsa = await newKey('RS256', es256.kid);
  assert.equal(await reason(verifyAgentCard(signed, { jwks: (await newKey('ES256', 'someone-else')).jwks })), 'unknown-key');
  assert.equal(await reason(verifyAgentCard(signed, { jwks: other.jwks })), 'bad-signature');
  assert.equal(await reason(verifyAgentCard(signed, { keys: rsa.jwks.keys })), 'unusable-key');
  assert.equal(await reason(verifyAgentCard(signed, {})), 'no-key-source');
});

test('unsigned cards: verified false, or unsigned when a signature is required', async () => {
  assert.deepEqual(await verifyAgentCard(realisticCard()), { verified: false, reason: 'unsigned' });
  assert.equal(await reason(verifyAgentCard(realisticCard(), { requireSignature: true })), 'unsigned');
});

test('rotation: two signatures; either key alone verifies; a removed key leaves the other', async () => {
  const next = await newKey('EdDSA', 'next');
  const once = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid });
  const twice = await signAgentCard(once, { key: next.jwk, kid: next.kid, append: true });
  assert.equal(twice.signatures.length, 2);
  assert.deepEqual(await verifyAgentCard(twice, { jwks: { keys: [...es256.jwks.keys, ...next.jwks.keys] } }), { verified: true, kid: es256.kid, alg: 'ES256' });
  assert.deepEqual(await verifyAgentCard(twice, { jwks: next.jwks }), { verified: true, kid: 'next', alg: 'EdDSA' });
  assert.deepEqual(await verifyAgentCard(twice, { jwks: es256.jwks }), { verified: true, kid: es256.kid, alg: 'ES256' });
  // Without append the old signature is replaced.
  assert.equal((await signAgentCard(once, { key: next.jwk, kid: next.kid })).signatures.length, 1);
});

async function jwksServer(jwks: () => Jwks): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(jwks()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, hits: () => hits };
}

test('an allow-listed jku is fetched through the SSRF guard: loopback blocked by default, allowed with allowPrivate; cached', async (t) => {
  const { server, url, hits } = await jwksServer(() => es256.jwks);
  t.after(() => server.close());
  const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid, jku: url });
  const trustedJkus = [url];

  const blocked = await verifyAgentCard(signed, { fetchJwks: guardedJwksFetcher(), jwksCache: new JwksCache(), trustedJkus }).catch((e: unknown) => e);
  assert.ok(CardSignatureError.is(blocked));
  assert.equal(blocked.reason, 'jwks-unavailable');
  assert.match(String((blocked.cause as Error).cause), /SSRF guard blocked/);
  // Nor does the default fetcher follow plain http.
  assert.equal(await reason(verifyAgentCard(signed, { jwksCache: new JwksCache(), trustedJkus })), 'jwks-unavailable');
  assert.equal(hits(), 0);

  const cache = new JwksCache();
  const options: VerifyCardOptions = { fetchJwks: guardedJwksFetcher({ ssrf: { allowPrivate: true } }), jwksCache: cache, trustedJkus };
  for (let i = 0; i < 3; i++) assert.equal((await verifyAgentCard(signed, options)).verified, true);
  assert.equal(hits(), 1, 'fetched once, then cached');
  // A configured JWKS replaces jku: the card cannot pick its own key.
  assert.equal(await reason(verifyAgentCard(signed, { ...options, jwks: (await newKey('ES256', 'mine')).jwks })), 'unknown-key');
});

test('a kid missing from the cached JWKS is fetched again once (key rotation), then reported unknown', async (t) => {
  let current = es256.jwks;
  const { server, url, hits } = await jwksServer(() => current);
  t.after(() => server.close());
  const options: VerifyCardOptions = { jwks: url, fetchJwks: guardedJwksFetcher({ ssrf: { allowPrivate: true } }), jwksCache: new JwksCache() };
  assert.equal((await verifyAgentCard(await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid }), options)).verified, true);
  const next = await newKey('ES384', 'rotated');
  current = { keys: [...es256.jwks.keys, ...next.jwks.keys] };
  const rotated = await signAgentCard(realisticCard(), { key: next.jwk, kid: next.kid });
  assert.equal((await verifyAgentCard(rotated, options)).verified, true);
  assert.equal(hits(), 2);
  const stranger = await signAgentCard(realisticCard(), { key: (await newKey()).jwk, kid: 'stranger' });
  assert.equal(await reason(verifyAgentCard(stranger, options)), 'unknown-key');
  assert.equal(hits(), 3, 'one refetch per unknown kid');
});

test('E6: without configured keys a jku is followed only on the card\'s https origin, when allow-listed, or with trustJku: true', async () => {
  const fetched: string[] = [];
  const fetchJwks: VerifyCardOptions['fetchJwks'] = async (url) => {
    fetched.push(url);
    return es256.jwks;
  };
  const card = 'https://a.example/agents/x/.well-known/agent-card.json';
  const cases: Array<[string, VerifyCardOptions, string]> = [
    ['https://a.example/jwks.json', { cardUrl: card }, 'verified'],
    ['https://a.example/jwks.json', { cardUrl: new URL(card) }, 'verified'],
    ['https://a.example/jwks.json', { cardUrl: 'http://a.example/.well-known/agent-card.json' }, 'no-key-source'],
    ['http://a.example/jwks.json', { cardUrl: 'http://a.example/.well-known/agent-card.json' }, 'no-key-source'],
    ['https://a.example:8443/jwks.json', { cardUrl: card }, 'no-key-source'],
    ['https://b.example/jwks.json', { cardUrl: card }, 'no-key-source'],
    ['https://b.example/jwks.json', {}, 'no-key-source'],
    ['https://b.example/keys/jwks.json', { cardUrl: card, trustedJkus: ['https://b.example'] }, 'verified'],
    ['https://b.example/keys/jwks.json', { trustedJkus: ['https://b.example/keys/jwks.json'] }, 'verified'],
    ['https://b.example/keys/jwks.json', { trustedJkus: ['https://b.example/other.json', 'https://c.example'] }, 'no-key-source'],
    ['https://a.example/jwks.json', { cardUrl: card, trustJku: false }, 'no-key-source'],
    ['https://b.example/jwks.json', { trustJku: true }, 'verified'],
  ];
  for (const [jku, options, expected] of cases) {
    fetched.length = 0;
    const signed = await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid, jku });
    const outcome = await reason(verifyAgentCard(signed, { ...options, fetchJwks, jwksCache: new JwksCache() }).then(() => undefined));
    assert.equal(outcome, expected, `${jku} ${JSON.stringify(options)}`);
    assert.deepEqual(fetched, expected === 'verified' ? [jku] : [], 'an untrusted jku is never fetched');
  }
  const refused = await verifyAgentCard(await signAgentCard(realisticCard(), { key: es256.jwk, kid: es256.kid, jku: 'https://b.example/jwks.json' }), { cardUrl: card, fetchJwks, requireSignature: true }).catch((e: unknown) => e);
  assert.ok(CardSignatureError.is(refused));
  assert.match(refused.message, /the jku https:\/\/b\.example\/jwks\.json is not trusted: not https on the card's origin https:\/\/a\.example nor in trustedJkus/);
});

test('SIGN-08 the JWKS cache is bounded: 1,000 URLs by default, the least recently used goes, one used since stays', () => {
  const jwks: Jwks = { keys: [] };
  const url = (i: number) => `https://k${i}.example/jwks.json`;
  const cache = new JwksCache();
  for (let i = 0; i < 1000; i++) cache.set(url(i), jwks);
  assert.equal(cache.get(url(0)), jwks);
  cache.set(url(1000), jwks);
  assert.equal(cache.size, 1000);
  assert.equal(cache.get(url(1)), undefined, 'the least recently used went');
  assert.equal(cache.get(url(0)), jwks, 'used since: kept');
  const small = new JwksCache(60_000, 2);
  for (let i = 0; i < 50; i++) small.set(url(i), jwks);
  assert.equal(small.size, 2);
});
