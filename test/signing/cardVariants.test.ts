/**
 * SIGN-09: every card variant the server serves is signed over its own JSON. `a2a serve
 * --sign-key` over a real socket: the 1.0 card (`A2A-Version: 1.0`), the 0.3 card (`0.3`) and
 * the hybrid card (no A2A-Version: curl, browsers, the official 0.3 SDKs) each verify; the hybrid
 * card carries two signatures per key, one over its 1.0 form (what 1.0 verifiers, ours and the
 * official SDK's, check) and one over the whole card (what 0.3 verifiers check), and a tampered
 * member fails the verifier of every client that reads it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { DefaultAgentCardResolver as DefaultAgentCardResolver03 } from 'a2a-sdk-03/client';
import type { AgentCardSignature } from '../../src/protocol/types.js';
import type { Jwks } from '../../src/signing/cardSignature.js';
import { runToExit, startServe } from '../cli/cliHelpers.js';
import { leaves, mutate } from './fixtures/realisticCard.js';
import { verifiersFor, type Card } from './fixtures/verifiers.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-card-variants-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const generated = await runToExit(['keys', 'generate', '--out', dir, '--json']);
assert.equal(generated.code, 0, generated.stderr);
const keys = JSON.parse(generated.stdout) as { kid: string; privateKey: string; jwks: string };
const jwks = JSON.parse(readFileSync(keys.jwks, 'utf8')) as Jwks;
const { ours, officialSdk, v03Verifier } = verifiersFor(jwks);

/** The 0.3 members the hybrid card adds to the 1.0 card (src/compat/card03.ts). */
const V03_ONLY = ['protocolVersion', 'url', 'preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard', 'security'];

async function cardFor(url: string, version: string | undefined): Promise<Card> {
  const res = await fetch(url, version === undefined ? {} : { headers: { 'A2A-Version': version } });
  assert.equal(res.status, 200);
  return (await res.json()) as Card;
}

const { proc, urls } = await startServe(['--sign-key', keys.privateKey]);
after(() => proc.kill());

test('SIGN-09: a2a serve --sign-key signs the 1.0, 0.3 and hybrid cards, each over its own JSON', async () => {
  const v10 = await cardFor(urls.card, '1.0');
  assert.equal(v10.signatures?.length, 1);
  assert.equal(await ours(v10), 'verified');
  assert.equal(await officialSdk(v10), true);

  const v03 = await cardFor(urls.card, '0.3');
  assert.ok(typeof v03.url === 'string' && !('supportedInterfaces' in v03), 'the 0.3 shape');
  assert.equal(v03.signatures?.length, 1, 'one signature per key');
  assert.equal(await ours(v03), 'verified');
  assert.equal(v03Verifier(v03), true, 'over the whole 0.3 card');

  const hybrid = await cardFor(urls.card, undefined);
  assert.ok(typeof hybrid.url === 'string' && Array.isArray(hybrid.supportedInterfaces), 'the hybrid shape');
  assert.equal(hybrid.signatures?.length, 2, 'two signatures per key: the 1.0 form, then the 0.3 form');
  assert.equal(await ours(hybrid), 'verified');
  assert.equal(await officialSdk(hybrid), true);
  assert.equal(v03Verifier(hybrid), true);
});

test('SIGN-09: the official SDK clients fetch the card with A2A-Version 1.0 (1.x: the signed 1.0 card) and none (0.3: the hybrid card, now signed too)', async () => {
  const seen: { version: string | null; card: Card }[] = [];
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    seen.push({ version: new Headers(init?.headers).get('a2a-version'), card: (await res.clone().json()) as Card });
    return res;
  };
  await new DefaultAgentCardResolver({ fetchImpl: recording }).resolve(urls.card, '');
  await new DefaultAgentCardResolver03({ fetchImpl: recording }).resolve(urls.card, '');
  const [v1x, v03] = seen;
  assert.equal(v1x?.version, '1.0');
  assert.equal(v1x?.card.url, undefined, 'the 1.0 card');
  assert.equal(v1x?.card.signatures?.length, 1);
  assert.equal(v03?.version, null);
  assert.ok(typeof v03?.card.url === 'string' && Array.isArray(v03.card.supportedInterfaces), 'the hybrid card');
  assert.equal(v03Verifier(v03.card), true);
});

test('SIGN-09: a tampered 0.3 card fails verification, whichever member changed', async () => {
  const v03 = await cardFor(urls.card, '0.3');
  for (const { path } of leaves((({ signatures: _s, ...rest }) => rest)(v03))) {
    const tampered = mutate(v03, path);
    assert.equal(await ours(tampered), 'bad-signature', path.join('.'));
    assert.equal(v03Verifier(tampered), false, path.join('.'));
  }
  assert.equal(await ours({ ...v03, url: 'https://attacker.example/a2a' }), 'bad-signature');
});

test('SIGN-09: a tampered hybrid card fails every verifier whose client reads the changed member', async () => {
  const hybrid = await cardFor(urls.card, undefined);
  for (const { path } of leaves((({ signatures: _s, ...rest }) => rest)(hybrid))) {
    const tampered = mutate(hybrid, path);
    // A 0.3 client reads the whole card: any change fails its verification.
    assert.equal(v03Verifier(tampered), false, path.join('.'));
    // A 1.0 client reads the 1.0 members, which the 1.0-form signature covers; the 0.3 members
    // are not 1.0 fields (SIGN-03), not part of what a 1.0 verifier checks, and not read by 1.0 clients.
    const v03Member = V03_ONLY.includes(String(path[0]));
    assert.equal(await ours(tampered), v03Member ? 'verified' : 'bad-signature', path.join('.'));
  }
  const evilEndpoint = { ...hybrid, url: 'https://attacker.example/a2a' };
  assert.equal(v03Verifier(evilEndpoint), false);
  const evilInterface = { ...hybrid, supportedInterfaces: (hybrid.supportedInterfaces as { url: string }[]).map((i) => ({ ...i, url: 'https://attacker.example/a2a' })) };
  assert.equal(await ours(evilInterface), 'bad-signature');
  assert.equal(await officialSdk(evilInterface), false);
  assert.equal(v03Verifier(evilInterface), false);
  const evilSkill = { ...hybrid, skills: [{ ...(hybrid.skills as object[])[0], description: 'exfiltrates' }] };
  assert.equal(await officialSdk(evilSkill), false);
});

test('SIGN-09: the two signatures of the hybrid card do not stand in for each other', async () => {
  const hybrid = await cardFor(urls.card, undefined);
  const [v10Form, v03Form] = hybrid.signatures as [AgentCardSignature, AgentCardSignature];
  // The 1.0-form signature alone: a 0.3 verifier finds nothing over the 0.3 members (its payload has no `url`).
  assert.equal(v03Verifier({ ...hybrid, signatures: [v10Form] }), false);
  assert.equal(await ours({ ...hybrid, signatures: [v10Form] }), 'verified');
  // The 0.3-form signature alone: the 1.0 verifiers compute the 1.0 form (no `url`), which it does not cover.
  assert.equal(await ours({ ...hybrid, signatures: [v03Form] }), 'bad-signature');
  assert.equal(await officialSdk({ ...hybrid, signatures: [v03Form] }), false);
  assert.equal(v03Verifier({ ...hybrid, signatures: [v03Form] }), true);
  // Nor on the 1.0 card: the 1.0 form of the hybrid is the 1.0 card's, so its 1.0 signature verifies there too.
  const v10 = await cardFor(urls.card, '1.0');
  assert.equal(await ours({ ...v10, signatures: [v03Form] }), 'bad-signature');
  assert.equal(await ours({ ...v10, signatures: [v10Form] } as Card), 'verified');
});

test('SIGN-09: a2a card --verify checks each variant (-H A2A-Version=0.3, and an empty A2A-Version for the hybrid)', async () => {
  const variants: [string[], (card: Card) => boolean][] = [
    [[], (card) => card.url === undefined],
    [['-H', 'A2A-Version=0.3'], (card) => typeof card.url === 'string' && card.supportedInterfaces === undefined],
    [['-H', 'A2A-Version='], (card) => typeof card.url === 'string' && Array.isArray(card.supportedInterfaces)],
  ];
  for (const [flags, isVariant] of variants) {
    const run = await runToExit(['card', urls.card, ...flags, '--require-signature', '--jwks', keys.jwks, '--json']);
    assert.equal(run.code, 0, `${flags.join(' ')}: ${run.stdout}${run.stderr}`);
    const report = JSON.parse(run.stdout) as { verification: { verified: boolean; kid: string }; card: Card };
    assert.ok(isVariant(report.card), `${flags.join(' ')} fetched the wrong variant`);
    assert.deepEqual(report.verification, { verified: true, kid: keys.kid, alg: 'ES256' });
  }
});
