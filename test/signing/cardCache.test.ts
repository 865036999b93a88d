/**
 * SIGN-08 with the card cache (CACHE-04): a cached card's verdict belongs to the resolution that
 * fetched it. A later resolution with stricter options (pinned keys, `require`) verifies the
 * cached card again under its own options, so a card that picked its own key through its `jku`
 * does not pass a client that pinned the operator's keys because another resolution ran first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { CardCache, CardVerificationError, resolveCard } from '../../src/client/index.js';
import type { FetchLike } from '../../src/client/transport.js';
import { JwksCache, type Jwks } from '../../src/signing/cardSignature.js';
import { jwksOf, signAgentCard } from '../../src/signing/cardSigner.js';
import { realisticCard } from './fixtures/realisticCard.js';

async function newKey(kid: string): Promise<{ jwk: JWK; kid: string; jwks: Jwks }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { jwk, kid, jwks: await jwksOf([{ key: jwk, kid, alg: 'ES256' }]) };
}

const AGENT = 'https://agent.example';
const attacker = await newKey('attacker-key');
const operator = await newKey('operator-key');
// Signed by a key of the card's own choosing, published under its own https origin (the jku).
const card = await signAgentCard(realisticCard(), { key: attacker.jwk, kid: attacker.kid, jku: `${AGENT}/jwks.json` });
const fetch: FetchLike = async () => new Response(JSON.stringify(card), { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' } });
const fetchJwks = async () => attacker.jwks;

function rejectsWith(reason: string) {
  return (error: unknown) => error instanceof CardVerificationError && error.reason === reason;
}

test('SIGN-08: a card cached by a lenient resolution (its own jku) is verified again against pinned keys, and refused', async () => {
  const cache = new CardCache();
  const jwksCache = new JwksCache();
  const lenient = await resolveCard(AGENT, { fetch, cache, cardVerification: { fetchJwks, jwksCache } });
  assert.equal(lenient.name, card.name);
  // Uncached, the strict resolution refuses the card.
  const strict = { fetch, verifyCardSignatures: 'require', cardVerification: { jwks: operator.jwks } } as const;
  await assert.rejects(resolveCard(AGENT, { ...strict, cache: false }), rejectsWith('unknown-key'));
  // Cached: the lenient verdict does not stand for the pinned keys.
  await assert.rejects(resolveCard(AGENT, { ...strict, cache }), rejectsWith('unknown-key'));
  // The cached card stays for callers whose options accept it.
  const seen: unknown[] = [];
  await resolveCard(AGENT, { fetch, cache, cardVerification: { fetchJwks, jwksCache }, onCardVerified: (r) => seen.push(r) });
  assert.deepEqual(seen, [{ verified: true, kid: attacker.kid, alg: 'ES256' }]);
});

test('SIGN-08: a card cached without verification (mode off) is verified when a later resolution asks', async () => {
  const cache = new CardCache();
  await resolveCard(AGENT, { fetch, cache, verifyCardSignatures: 'off' });
  await assert.rejects(resolveCard(AGENT, { fetch, cache, verifyCardSignatures: 'require', cardVerification: { jwks: operator.jwks } }), rejectsWith('unknown-key'));
});

test('SIGN-08: a card revalidated with 304 is verified under the caller\'s options', async () => {
  const cache = new CardCache();
  let calls = 0;
  const revalidating: FetchLike = async () =>
    ++calls === 1 ? new Response(JSON.stringify(card), { headers: { etag: '"v1"', 'cache-control': 'max-age=0' } }) : new Response(null, { status: 304, headers: { etag: '"v1"' } });
  await resolveCard(AGENT, { fetch: revalidating, cache, cardVerification: { fetchJwks, jwksCache: new JwksCache() } });
  await assert.rejects(resolveCard(AGENT, { fetch: revalidating, cache, verifyCardSignatures: 'require', cardVerification: { jwks: operator.jwks } }), rejectsWith('unknown-key'));
  assert.equal(calls, 2);
});
