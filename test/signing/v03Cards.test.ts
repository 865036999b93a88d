/**
 * SIGN-09: a card in the A2A 0.3 shape is signed and verified over its own JSON — the RFC 8785
 * form of the whole card without `signatures`, as the 0.3 specification defines
 * AgentCardSignature — not with the 1.0 presence rules, which keep only 1.0 fields and so would
 * leave its endpoints (`url`, `additionalInterfaces`, `preferredTransport`) and `security` unsigned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CardVerificationError, resolveCard } from '../../src/client/index.js';
import type { FetchLike } from '../../src/client/transport.js';
import { agentCardToV03 } from '../../src/compat/card.js';
import { cardSigningPayload } from '../../src/signing/cardPayload.js';
import { CardSignatureError, base64UrlEncode, verifyAgentCard, type Jwk } from '../../src/signing/cardSignature.js';
import { signAgentCard } from '../../src/signing/cardSigner.js';
import { canonicalize } from '../../src/signing/jcs.js';
import { runToExit } from '../cli/cliHelpers.js';
import { leaves, mutate, realisticCard } from './fixtures/realisticCard.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const KID = 'v03-key';
const jwks = { keys: [{ ...(publicKey.export({ format: 'jwk' }) as Jwk), kid: KID, alg: 'ES256', use: 'sig' }] };

/** A 0.3 card: endpoints in url / additionalInterfaces / preferredTransport, requirements in security. */
function v03Card(): Record<string, unknown> {
  return { ...agentCardToV03(realisticCard(), { onlyV03Interfaces: false }) };
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(CardSignatureError.is(error), String(error));
    return error.reason;
  }
  return 'verified';
}

/** A 0.3 signature made without our signer: ES256 (node:crypto) over the JCS of the card minus `signatures`. */
function signedIndependently(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _signatures, ...unsigned } = card;
  const header = base64UrlEncode(new TextEncoder().encode(JSON.stringify({ alg: 'ES256', kid: KID, typ: 'JOSE' })));
  const payload = base64UrlEncode(new TextEncoder().encode(canonicalize(unsigned)));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return { ...card, signatures: [{ protected: header, signature }] };
}

test('SIGN-09: the signing payload of a 0.3 card is the whole card without signatures (url, additionalInterfaces, security included)', () => {
  const card = { ...v03Card(), signatures: [{ protected: 'x', signature: 'y' }] };
  const { signatures: _signatures, ...unsigned } = card;
  assert.deepEqual(cardSigningPayload(card), unsigned);
  for (const member of ['url', 'preferredTransport', 'additionalInterfaces', 'security', 'protocolVersion']) assert.ok(member in cardSigningPayload(card), member);
});

test('SIGN-09: sign → verify a 0.3 card; changing its endpoints or security fails', async () => {
  const signed = await signAgentCard(v03Card(), { key: privateKey, kid: KID });
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  const tampered: Record<string, Record<string, unknown>> = {
    url: { ...signed, url: 'https://attacker.example/a2a' },
    additionalInterfaces: { ...signed, additionalInterfaces: [...(signed.additionalInterfaces as unknown[]), { url: 'https://attacker.example/a2a', transport: 'JSONRPC' }] },
    preferredTransport: { ...signed, preferredTransport: 'HTTP+JSON' },
    security: { ...signed, security: [] },
    'security removed': (({ security: _security, ...rest }) => rest)(signed),
  };
  for (const [what, card] of Object.entries(tampered)) assert.equal(await reason(verifyAgentCard(card, { jwks, requireSignature: true })), 'bad-signature', what);
  for (const { path } of leaves(v03Card())) assert.equal(await reason(verifyAgentCard(mutate(signed, path), { jwks })), 'bad-signature', path.join('.'));
});

test('SIGN-09: a 0.3 signature made independently (JCS of the card minus signatures, node:crypto) verifies', async () => {
  const signed = signedIndependently(v03Card());
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  // And the other way round: our signer's 0.3 signature checks out with node:crypto over the same JCS bytes.
  const [ours] = (await signAgentCard(v03Card(), { key: privateKey, kid: KID })).signatures;
  const input = `${ours?.protected}.${base64UrlEncode(new TextEncoder().encode(canonicalize(v03Card())))}`;
  assert.ok(verify('sha256', Buffer.from(input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(ours?.signature ?? '', 'base64url')));
});

test('SIGN-09: the client verifies a signed 0.3 card as served (before translation) and refuses a tampered one', async () => {
  const signed = signedIndependently(v03Card());
  const serve = (card: unknown): FetchLike => async () => new Response(JSON.stringify(card), { headers: { 'content-type': 'application/json' } });
  const options = { cache: false, verifyCardSignatures: 'require', cardVerification: { jwks } } as const;
  const card = await resolveCard('https://agent.example', { ...options, fetch: serve(signed) });
  assert.equal(card.supportedInterfaces[0]?.protocolVersion, '0.3');
  await assert.rejects(
    resolveCard('https://agent.example', { ...options, fetch: serve({ ...signed, url: 'https://attacker.example/a2a' }) }),
    (e: unknown) => e instanceof CardVerificationError && e.reason === 'bad-signature',
  );
});

test('SIGN-03 is unchanged for 1.0 cards: members outside the schema are still not signed', () => {
  const card = realisticCard();
  assert.deepEqual(cardSigningPayload({ ...card, url: 'https://elsewhere.example' }), cardSigningPayload(card));
});

test('SIGN-09: a2a card --verify checks a 0.3 card as served: a garbage signature exits 6, a genuine one verifies', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-v03-card-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(jwks));
  const cards: Record<string, unknown> = {
    '/garbage': { ...v03Card(), signatures: [{ protected: 'garbage', signature: 'garbage' }] },
    '/genuine': signedIndependently(v03Card()),
  };
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cards[(req.url ?? '').replace(/\/\.well-known\/agent-card\.json$/, '')])));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const garbage = await runToExit(['card', `${base}/garbage`, '--verify', '--jwks', jwksFile]);
  assert.equal(garbage.code, 6, garbage.stdout + garbage.stderr);
  assert.match(garbage.stdout, /NOT verified: malformed/);
  assert.match(garbage.stderr, /signature did not verify \(malformed\)/);
  // The client refuses it too.
  await assert.rejects(resolveCard(`${base}/garbage`, { cache: false, cardVerification: { jwks } }), (e: unknown) => e instanceof CardVerificationError && e.reason === 'malformed');

  const genuine = await runToExit(['card', `${base}/genuine`, '--verify', '--jwks', jwksFile]);
  assert.equal(genuine.code, 0, genuine.stdout + genuine.stderr);
  assert.match(genuine.stdout, new RegExp(`Signature\\n  verified \\(kid ${KID}, ES256\\)`));
});
