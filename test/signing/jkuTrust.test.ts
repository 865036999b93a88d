/**
 * Which `jku` a verifier follows when no keys are configured (SIGN-07, spec digest E6: never a
 * JWKS from an untrusted host). Real https servers with a test CA: an agent that publishes its
 * JWKS on its own origin, and an attacker host publishing its own key, named by the `jku` of a
 * card it signed. Checked through the real `a2a card` command and through our client
 * (`verifyCardSignatures: 'require'`, the default fetcher) in child processes that trust the CA.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { signAgentCard, jwksOf } from '../../src/signing/cardSigner.js';
import type { Jwks } from '../../src/signing/cardSignature.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { hasOpenssl, makePki, type TestPki } from '../auth/support.js';
import { runA2A } from '../cli/cliHelpers.js';
import { runFixture } from '../support/fixtureProcess.js';
import { realisticCard } from './fixtures/realisticCard.js';

const skip = hasOpenssl() ? false : 'openssl is not installed';

async function newKey(kid: string): Promise<{ jwk: Awaited<ReturnType<typeof exportJWK>>; kid: string; jwks: Jwks }> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { jwk, kid, jwks: await jwksOf([{ key: jwk, kid, alg: 'ES256' }]) };
}

let pki: TestPki;
let caFile = '';
const servers: https.Server[] = [];
let agent = '';
let attacker = '';
const hits = { agent: 0, attacker: 0 };

/** An https server on 127.0.0.1 (the test certificate names it) answering from `routes`. */
async function httpsHost(routes: (path: string, res: ServerResponse) => void): Promise<string> {
  const server = https.createServer({ cert: pki.serverCert, key: pki.serverKey }, (req, res) => routes(new URL(req.url ?? '/', 'https://x').pathname, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

before(async () => {
  if (skip) return;
  pki = makePki();
  caFile = join(pki.dir, 'test-ca.pem');
  writeFileSync(caFile, pki.caCert);
  const mine = await newKey('agent-key');
  const theirs = await newKey('attacker-key');
  const cards = new Map<string, AgentCard>();
  agent = await httpsHost((path, res) => {
    if (path === '/jwks.json') {
      hits.agent++;
      return json(res, mine.jwks);
    }
    if (path === '/endless-jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      const pump = () => {
        while (!res.destroyed && res.write(`${JSON.stringify(mine.jwks.keys[0])},`));
      };
      res.on('drain', pump);
      return pump();
    }
    const card = cards.get(path.replace(/\/\.well-known\/agent-card\.json$/, ''));
    return card ? json(res, card) : res.writeHead(404).end();
  });
  attacker = await httpsHost((path, res) => {
    hits.attacker++;
    return path === '/jwks.json' ? json(res, theirs.jwks) : res.writeHead(404).end();
  });
  // The agent's card, its key published on its own origin.
  cards.set('/same', await signAgentCard(realisticCard(), { key: mine.jwk, kid: mine.kid, jku: `${agent}/jwks.json` }));
  // A forged card on the agent's URL (a man in the middle, a compromised cache): signed by the
  // attacker, whose jku points at the attacker's own host.
  cards.set('/forged', await signAgentCard({ ...realisticCard(), name: 'Forged' }, { key: theirs.jwk, kid: theirs.kid, jku: `${attacker}/jwks.json` }));
  // Same origin, but the JWKS never ends: the download stops at 64 KiB.
  cards.set('/endless', await signAgentCard(realisticCard(), { key: mine.jwk, kid: mine.kid, jku: `${agent}/endless-jwks.json` }));
});

after(() => {
  for (const server of servers) server.close();
});

async function a2aCard(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = runA2A(['card', ...args], { NODE_EXTRA_CA_CERTS: caFile, NO_COLOR: '1' });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

async function client(url: string, mode: string): Promise<{ ok: boolean; reason?: string; message?: string; seen?: Array<{ verified: boolean; reason?: string }> }> {
  const { out, err } = await runFixture('test/signing/fixtures/resolveSignedCard.ts', [url, mode], { NODE_EXTRA_CA_CERTS: caFile });
  assert.ok(out.trim(), err);
  return JSON.parse(out) as { ok: boolean; reason?: string; message?: string };
}

test('a2a card --verify: a jku on the card\'s own https origin is followed; another host\'s only with --allow-jku or --trust-jku', { skip }, async () => {
  const same = await a2aCard([`${agent}/same`, '--verify', '--allow-private-jwks']);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /verified \(kid agent-key, ES256\)/);
  assert.ok(hits.agent >= 1);

  const before = hits.attacker;
  const forged = await a2aCard([`${agent}/forged`, '--verify', '--allow-private-jwks']);
  assert.equal(forged.code, 6, forged.stdout + forged.stderr);
  assert.match(forged.stdout, /NOT verified: no-key-source: no key for "attacker-key": the jku https:\/\/127\.0\.0\.1:\d+\/jwks\.json is not trusted/);
  assert.equal(hits.attacker, before, 'the attacker host was never asked');

  // Opting in: the card then picks its own key, and the forgery "verifies" (why it is not the default).
  const trusting = await a2aCard([`${agent}/forged`, '--trust-jku', '--allow-private-jwks']);
  assert.equal(trusting.code, 0, trusting.stdout + trusting.stderr);
  assert.match(trusting.stdout, /verified \(kid attacker-key/);
  const listed = await a2aCard([`${agent}/forged`, '--allow-jku', attacker, '--allow-private-jwks', '--json']);
  assert.equal(listed.code, 0, listed.stdout + listed.stderr);
  assert.equal((JSON.parse(listed.stdout) as { verification: { verified: boolean } }).verification.verified, true);
  const otherListed = await a2aCard([`${agent}/forged`, '--allow-jku', `${attacker}/other.json`, '--allow-private-jwks']);
  assert.equal(otherListed.code, 6, 'an exact URL entry allows that URL only');
});

test('client, verifyCardSignatures require: same-origin jku verifies; a foreign jku fails with no-key-source; if-present accepts it unverified', { skip }, async () => {
  const same = await client(`${agent}/same`, 'require');
  assert.deepEqual(same.seen, [{ verified: true, kid: 'agent-key', alg: 'ES256' }], JSON.stringify(same));

  const before = hits.attacker;
  const forged = await client(`${agent}/forged`, 'require');
  assert.equal(forged.ok, false);
  assert.equal(forged.reason, 'no-key-source');
  assert.match(String(forged.message), /failed signature verification \(no-key-source\).*not trusted/);
  const lenient = await client(`${agent}/forged`, 'if-present');
  assert.equal(lenient.ok, true);
  assert.deepEqual(lenient.seen, [{ verified: false, reason: 'no-key-source' }]);
  assert.equal(hits.attacker, before, 'the attacker host was never asked');
});

test('the default JWKS fetcher streams the document and stops at 64 KiB', { skip, timeout: 60_000 }, async () => {
  const endless = await client(`${agent}/endless`, 'require');
  assert.equal(endless.ok, false);
  assert.equal(endless.reason, 'jwks-unavailable');
  assert.match(String(endless.message), /larger than 65536 bytes/);
});
