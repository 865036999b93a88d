/**
 * SEC-01: `a2a serve --tls-cert/--tls-key/--tls-ca` files are checked before anything listens.
 * A certificate whose public key is not the private key's — of another type too (an RSA
 * certificate with an EC key, or the reverse), which OpenSSL lets through and every handshake
 * then fails — is exit 2, one line; so is a `--tls-ca` (or an mtls scheme's `ca`) file without
 * a certificate. A matching pair, RSA or EC, serves HTTPS.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasOpenssl } from '../auth/support.js';
import { runA2A, runToExit } from './cliHelpers.js';

const skip = hasOpenssl() ? false : 'openssl is not available';
let dir = '';
const file = (name: string) => join(dir, name);

before(() => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'a2a-tls-files-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const selfSigned = (name: string, keyArgs: string[]) => ssl('req', '-x509', '-newkey', ...keyArgs, '-nodes', '-keyout', `${name}-key.pem`, '-out', `${name}-cert.pem`, '-days', '2', '-subj', '/CN=localhost');
  selfSigned('rsa', ['rsa:2048']);
  selfSigned('rsa2', ['rsa:2048']);
  selfSigned('ec', ['ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const serve = (args: string[]) => ['serve', '--store', 'memory', '--port', '0', ...args];
const pair = (cert: string, key: string) => ['--tls-cert', file(`${cert}-cert.pem`), '--tls-key', file(`${key}-key.pem`)];

/** Exit 2, one line on stderr matching `message`, and with --json the same as a usage error object. */
async function refused(args: string[], message: RegExp): Promise<void> {
  const r = await runToExit(serve(args));
  assert.equal(r.code, 2, `stdout: ${r.stdout} stderr: ${r.stderr}`);
  assert.match(r.stderr, /^a2a serve: [^\n]+\n$/, `one line: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.equal(r.stdout, '', 'nothing listens');
  const json = await runToExit(serve([...args, '--json']));
  assert.equal(json.code, 2, json.stderr);
  const { error } = JSON.parse(json.stdout) as { error: { type: string; message: string } };
  assert.equal(error.type, 'usage');
  assert.match(error.message, message);
}

describe('SEC-01 a2a serve TLS files are checked before anything listens', { skip, concurrency: 2 }, () => {
  test('SEC-01 an RSA certificate with an EC key, and an EC certificate with an RSA key → exit 2 (every handshake would fail)', async () => {
    await refused(pair('rsa', 'ec'), /--tls-cert\/--tls-key: the certificate's public key \(rsa\) does not match the private key \(ec\)/);
    await refused(pair('ec', 'rsa'), /--tls-cert\/--tls-key: the certificate's public key \(ec\) does not match the private key \(rsa\)/);
  });

  test('SEC-01 an RSA certificate with another RSA key → exit 2', async () => {
    await refused(pair('rsa', 'rsa2'), /--tls-cert\/--tls-key: /);
  });

  test('SEC-01 --tls-ca naming a private key, or a file with no certificate → exit 2; an mtls scheme\'s "ca" too', async () => {
    await refused([...pair('ec', 'ec'), '--tls-ca', file('rsa-key.pem')], /--tls-ca \S+rsa-key\.pem: no certificate in it/);
    writeFileSync(file('broken-ca.pem'), '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    await refused([...pair('ec', 'ec'), '--tls-ca', file('broken-ca.pem')], /--tls-ca \S+broken-ca\.pem: a certificate in it does not parse/);
    writeFileSync(file('auth.json'), JSON.stringify({ clients: { mtls: true, ca: 'ec-key.pem' } }));
    await refused([...pair('ec', 'ec'), '--auth-config', file('auth.json')], /--auth-config \S+auth\.json: "clients\.ca" \S+ec-key\.pem: no certificate in it/);
  });

  test('SEC-01 a matching pair (RSA, EC) with a CA file of certificates serves HTTPS', async () => {
    for (const kind of ['rsa', 'ec']) {
      const proc = runA2A(serve([...pair(kind, kind), '--tls-ca', file('rsa-cert.pem'), '--json']));
      try {
        const { jsonrpc } = JSON.parse(await proc.waitForLine(/^\{/)) as { jsonrpc: string };
        const status = await new Promise<number | undefined>((resolve, reject) => {
          https.get(new URL('/.well-known/agent-card.json', jsonrpc), { rejectUnauthorized: false }, (res) => resolve(res.resume().statusCode)).on('error', reject);
        });
        assert.equal(status, 200, kind);
      } finally {
        proc.kill();
      }
    }
  });
});
