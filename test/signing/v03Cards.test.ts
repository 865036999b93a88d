/**
 * SIGN-09: a card in the A2A 0.3 shape is signed over its own JSON (without `signatures`, empty
 * members removed, JCS) — not with the 1.0 presence rules, which keep only 1.0 fields and so would
 * leave its endpoints (`url`, `additionalInterfaces`, `preferredTransport`) and `security` unsigned —
 * and verified against each form 0.3 signers use (src/signing/v03Payload.ts).
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
import { hybridAgentCard, signCardVariants } from '../../src/compat/card03.js';
import { canonicalCard, cardSigningPayload } from '../../src/signing/cardPayload.js';
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

/** ES256 (node:crypto, not our signer) over the given payload text, added to the card. */
function signedOver(card: Record<string, unknown>, text: string): Record<string, unknown> {
  const header = base64UrlEncode(new TextEncoder().encode(JSON.stringify({ alg: 'ES256', kid: KID, typ: 'JOSE' })));
  const payload = base64UrlEncode(new TextEncoder().encode(text));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return { ...card, signatures: [{ protected: header, signature }] };
}

/** A 0.3 signature made without our signer over the JCS of the whole card minus `signatures` (the 0.3 spec's wording). */
function signedIndependently(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _signatures, ...unsigned } = card;
  return signedOver(card, canonicalize(unsigned));
}

/**
 * A 0.3 card with empty members ("", [], {}), members at the Python SDK's defaults and text
 * outside ASCII, with the payloads other 0.3 signers compute for it, written out by hand:
 */
const EMPTY_MEMBERS_CARD = {
  name: 'Café agent',
  description: 'Answers in français',
  url: 'https://agent.example/a2a',
  version: '1.0.0',
  protocolVersion: '0.3.0',
  preferredTransport: 'JSONRPC',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'x', tags: [] }],
  securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } },
  security: [{ key: [] }],
  documentationUrl: '',
};
/** cleanEmpty then JCS (the cleanEmpty + JCS of the @a2a-js/sdk signer, applied to the 0.3 JSON). */
const CLEAN_PAYLOAD =
  '{"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"Answers in français","name":"Café agent","preferredTransport":"JSONRPC",' +
  '"protocolVersion":"0.3.0","securitySchemes":{"key":{"in":"header","name":"X-Key","type":"apiKey"}},"skills":[{"description":"x","id":"s","name":"S"}],"url":"https://agent.example/a2a","version":"1.0.0"}';
/**
 * The Python 0.3 SDK's canonicalize_agent_card (a2a-sdk v0.3.26: model_dump(exclude_defaults,
 * exclude_none, by_alias), _clean_empty, json.dumps(sort_keys)) output for EMPTY_MEMBERS_CARD,
 * produced by running that code on the v0.3.26 pydantic types: defaults (preferredTransport,
 * protocolVersion, the scheme's type) dropped, non-ASCII escaped.
 */
const PYTHON_PAYLOAD =
  '{"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"Answers in fran\\u00e7ais","name":"Caf\\u00e9 agent",' +
  '"securitySchemes":{"key":{"in":"header","name":"X-Key"}},"skills":[{"description":"x","id":"s","name":"S"}],"url":"https://agent.example/a2a","version":"1.0.0"}';

test('SIGN-09: the signing payload of a 0.3 card is the whole card without signatures, empty members included (url, additionalInterfaces, security included)', () => {
  const card = { ...v03Card(), signatures: [{ protected: 'x', signature: 'y' }] };
  for (const member of ['url', 'preferredTransport', 'additionalInterfaces', 'security', 'protocolVersion']) assert.ok(member in cardSigningPayload(card), member);
  assert.ok(!('signatures' in cardSigningPayload(card)));
  assert.equal(canonicalize(cardSigningPayload({ ...EMPTY_MEMBERS_CARD, signatures: [] })), canonicalize(EMPTY_MEMBERS_CARD));
});

test('SIGN-09: a 0.3 card with empty members signed over cleanEmpty + JCS (node:crypto) verifies; tampering fails', async () => {
  const signed = signedOver(EMPTY_MEMBERS_CARD, CLEAN_PAYLOAD);
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  for (const tampered of [{ ...signed, url: 'https://attacker.example/a2a' }, { ...signed, preferredTransport: 'HTTP+JSON' }, { ...signed, name: 'Cafe agent' }]) {
    assert.equal(await reason(verifyAgentCard(tampered, { jwks })), 'bad-signature');
  }
});

test('SIGN-09: a 0.3 card signed as the Python 0.3 SDK does (defaults dropped, ASCII-escaped) verifies; tampering fails', async () => {
  const signed = signedOver(EMPTY_MEMBERS_CARD, PYTHON_PAYLOAD);
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  // Dropping a default-valued member does not change the Python payload; changing one does.
  assert.equal((await verifyAgentCard((({ protocolVersion: _p, ...rest }) => rest)(signed), { jwks })).verified, true);
  const tampered = [
    { ...signed, preferredTransport: 'GRPC' },
    { ...signed, securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'X-Key' } } },
    { ...signed, description: 'Answers in francais' },
    { ...signed, security: [{ key: ['admin'] }] },
  ];
  for (const card of tampered) assert.equal(await reason(verifyAgentCard(card, { jwks })), 'bad-signature', JSON.stringify(card));
});

test('SIGN-09: our signature of a 0.3 card with empty members is over JCS of the whole card, so an emptied security requirement is covered (checked with node:crypto)', async () => {
  const signed = await signAgentCard(EMPTY_MEMBERS_CARD, { key: privateKey, kid: KID });
  const [ours] = signed.signatures;
  const input = `${ours?.protected}.${base64UrlEncode(new TextEncoder().encode(canonicalize(EMPTY_MEMBERS_CARD)))}`;
  assert.equal(await reason(verifyAgentCard({ ...signed, security: [] }, { jwks })), 'bad-signature');
  assert.ok(verify('sha256', Buffer.from(input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(ours?.signature ?? '', 'base64url')));
});

/** Whether `signature` is an ES256 signature by our key over `text` (node:crypto, not our verifier). */
function signs(signature: { protected: string; signature: string } | undefined, text: string): boolean {
  const input = `${signature?.protected}.${base64UrlEncode(new TextEncoder().encode(text))}`;
  return verify('sha256', Buffer.from(input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature?.signature ?? '', 'base64url'));
}

test('SIGN-09: signAgentCard signs a hybrid card (1.0 card + 0.3 members) twice: over its 1.0 form, then over the whole card', async () => {
  const card = realisticCard();
  const hybrid = hybridAgentCard(card);
  const signed = await signAgentCard(hybrid, { key: privateKey, kid: KID });
  assert.equal(signed.signatures.length, 2);
  const [v10Form, v03Form] = signed.signatures;
  assert.ok(signs(v10Form, canonicalCard(card)), 'the 1.0 form of the hybrid card is the 1.0 card\'s');
  assert.ok(signs(v03Form, canonicalize(hybrid)), 'the 0.3 form: the whole card, its url, additionalInterfaces and security included');
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  // Rotation: append adds two more (one per form) and keeps the existing ones.
  assert.equal((await signAgentCard(signed, { key: privateKey, kid: KID, append: true })).signatures.length, 4);
});

test('SIGN-09: signCardVariants signs the 0.3 card over its 0.3 form and the hybrid card over both forms, not with the 1.0 card\'s signatures', async () => {
  const card = await signAgentCard(realisticCard(), { key: privateKey, kid: KID });
  const variants = await signCardVariants(card, (c) => signAgentCard(c, { key: privateKey, kid: KID }));
  const { signatures: v03Signatures, ...v03 } = variants['0.3'];
  assert.equal(v03Signatures?.length, 1);
  assert.ok(signs(v03Signatures?.[0], canonicalize(v03)));
  assert.deepEqual(await verifyAgentCard(variants['0.3'] as unknown as Record<string, unknown>, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  const { signatures: hybridSignatures, ...hybrid } = variants.hybrid;
  assert.equal(hybridSignatures?.length, 2);
  assert.ok(signs(hybridSignatures?.[1], canonicalize(hybrid)));
  assert.ok(!hybridSignatures?.some((s) => card.signatures.some((c) => c.signature === s.signature)), 'fresh signatures');
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

test('SIGN-09: a 0.3 signature over the JCS of the whole card (the 0.3 spec wording; a2a-kit signed so before) still verifies', async () => {
  const signed = signedIndependently(EMPTY_MEMBERS_CARD);
  assert.deepEqual(await verifyAgentCard(signed, { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
  assert.equal(await reason(verifyAgentCard({ ...signed, documentationUrl: 'https://attacker.example' }, { jwks })), 'bad-signature');
  assert.deepEqual(await verifyAgentCard(signedIndependently(v03Card()), { jwks, requireSignature: true }), { verified: true, kid: KID, alg: 'ES256' });
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
