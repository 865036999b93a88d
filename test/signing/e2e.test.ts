/**
 * End to end: `a2a keys generate` → `a2a serve --sign-key` → `a2a card --verify --jwks FILE`,
 * our client against the signed server, and a tampered card that the client refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, resolveCard, A2AClientError, CardVerificationError } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { verifyAgentCard, type CardVerification, type Jwks } from '../../src/signing/cardSignature.js';
import { runToExit, startServe } from '../cli/cliHelpers.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-signed-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const generated = await runToExit(['keys', 'generate', '--out', dir, '--json']);
assert.equal(generated.code, 0, generated.stderr);
const keys = JSON.parse(generated.stdout) as { kid: string; privateKey: string; jwks: string };
const jwks = JSON.parse(readFileSync(keys.jwks, 'utf8')) as Jwks;

test('a2a serve --sign-key signs the card; a2a card --verify --jwks FILE verifies it', async (t) => {
  const { proc, urls } = await startServe(['--sign-key', keys.privateKey]);
  t.after(() => proc.kill());
  // What our client fetches (A2A-Version: 1.0): the 1.0 card, signed.
  const card = (await (await fetch(urls.card, { headers: { 'A2A-Version': '1.0' } })).json()) as AgentCard;
  assert.equal(card.signatures?.length, 1);
  assert.equal((await verifyAgentCard(card, { jwks })).verified, true);

  const ok = await runToExit(['card', urls.card, '--verify', '--jwks', keys.jwks]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`Signature\\n  verified \\(kid ${keys.kid}, ES256\\)`));

  const json = await runToExit(['card', urls.card, '--verify', '--jwks', keys.jwks, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as { verification: CardVerification; card: AgentCard };
  assert.deepEqual(report.verification, { verified: true, kid: keys.kid, alg: 'ES256' });
  assert.equal(report.card.name, card.name);

  // Without keys (no --jwks, no jku) nothing can be verified: exit 6.
  const noKey = await runToExit(['card', urls.card, '--verify']);
  assert.equal(noKey.code, 6, noKey.stdout + noKey.stderr);
  assert.match(noKey.stdout, /NOT verified: no-key-source/);

  // Our client verifies it (and requires it here).
  const seen: CardVerification[] = [];
  const resolved = await resolveCard(urls.card, { cache: false, cardVerification: { jwks }, verifyCardSignatures: 'require', onCardVerified: (r) => seen.push(r) });
  assert.deepEqual(seen, [{ verified: true, kid: keys.kid, alg: 'ES256' }]);
  assert.equal(resolved.signatures?.length, 1);
  const client = await createClient(urls.card, { cardCache: false, verifyCardSignatures: 'require', cardVerification: { jwks } });
  const reply = await client.sendMessage({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'msg hi' }] } });
  assert.ok(reply);
  // Default mode, no keys configured and no jku: accepted as unverified.
  await createClient(urls.card, { cardCache: false });
});

test('--sign-jku on another host: followed only with --allow-jku (the CLI fetch goes through the SSRF guard)', async (t) => {
  const jwksHost = createServer((_req, res) => res.end(JSON.stringify(jwks)));
  await new Promise<void>((resolve) => jwksHost.listen(0, '127.0.0.1', resolve));
  t.after(() => jwksHost.close());
  const jku = `http://127.0.0.1:${(jwksHost.address() as AddressInfo).port}/jwks.json`;
  const { proc, urls } = await startServe(['--sign-key', keys.privateKey, '--sign-jku', jku]);
  t.after(() => proc.kill());
  // E6: a jku on another origin than the card's is not a key source unless allow-listed.
  const untrusted = await runToExit(['card', urls.card, '--verify', '--allow-private-jwks']);
  assert.equal(untrusted.code, 6);
  assert.match(untrusted.stdout, /NOT verified: no-key-source: .*jku .* is not trusted/);
  const blocked = await runToExit(['card', urls.card, '--verify', '--allow-jku', jku]);
  assert.equal(blocked.code, 6);
  assert.match(blocked.stdout, /jwks-unavailable.*SSRF guard blocked/s);
  const allowed = await runToExit(['card', urls.card, '--allow-jku', jku, '--allow-private-jwks']);
  assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.match(allowed.stdout, /verified \(kid/);
});

test('a2a card --require-signature fails for an unsigned agent; --verify alone reports "not signed"', async (t) => {
  const { proc, urls } = await startServe();
  t.after(() => proc.kill());
  const required = await runToExit(['card', urls.card, '--require-signature', '--jwks', keys.jwks]);
  assert.equal(required.code, 6);
  assert.match(required.stdout, /NOT verified: unsigned/);
  const plain = await runToExit(['card', urls.card, '--verify']);
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, /Signature\n {2}not signed/);
  await assert.rejects(createClient(urls.card, { cardCache: false, verifyCardSignatures: 'require' }), (e: unknown) => A2AClientError.is(e, 'BAD_CARD_SIGNATURE'));
});

test('a tampered card fails verification in the client and in a2a card', async (t) => {
  const { proc, urls } = await startServe(['--sign-key', keys.privateKey]);
  t.after(() => proc.kill());
  const signed = (await (await fetch(urls.card, { headers: { 'A2A-Version': '1.0' } })).json()) as AgentCard;
  // A man in the middle points the client at another endpoint, keeping the signature.
  const tampered = { ...signed, supportedInterfaces: signed.supportedInterfaces.map((i) => ({ ...i, url: i.url.replace('localhost', 'evil.example') })) };
  const evil = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(tampered));
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  t.after(() => evil.close());
  const evilCard = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/.well-known/agent-card.json`;

  const error = await createClient(evilCard, { cardCache: false, cardVerification: { jwks } }).catch((e: unknown) => e);
  assert.ok(error instanceof CardVerificationError, String(error));
  assert.equal(error.code, 'BAD_CARD_SIGNATURE');
  assert.equal(error.reason, 'bad-signature');
  assert.equal(error.kid, keys.kid);
  assert.match(error.message, /failed signature verification \(bad-signature\)/);

  const cli = await runToExit(['card', evilCard, '--verify', '--jwks', keys.jwks]);
  assert.equal(cli.code, 6);
  assert.match(cli.stdout, /NOT verified: bad-signature/);
  assert.match(cli.stderr, /signature did not verify/);
});
