/** `a2a keys generate`: the files it writes, and that a2a serve and a2a card use them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runToExit, startServe } from './cliHelpers.js';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a2a keys generate writes a private PEM (owner-only) and a public JWKS with kid, alg and use', async (t) => {
  const dir = tempDir(t);
  const run = await runToExit(['keys', 'generate', '--out', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { kid: string; alg: string; privateKey: string; jwks: string };
  assert.equal(out.alg, 'ES256');
  assert.match(readFileSync(out.privateKey, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
  if (process.platform !== 'win32') assert.equal(statSync(out.privateKey).mode & 0o077, 0);
  const jwks = JSON.parse(readFileSync(out.jwks, 'utf8')) as { keys: Record<string, string>[] };
  assert.equal(jwks.keys.length, 1);
  assert.deepEqual({ kid: jwks.keys[0]!.kid, alg: jwks.keys[0]!.alg, use: jwks.keys[0]!.use, kty: jwks.keys[0]!.kty, crv: jwks.keys[0]!.crv }, { kid: out.kid, alg: 'ES256', use: 'sig', kty: 'EC', crv: 'P-256' });
  assert.equal('d' in jwks.keys[0]!, false, 'no private part in the JWKS');

  // It does not overwrite without --force.
  const again = await runToExit(['keys', 'generate', '--out', dir]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /exists \(--force overwrites it\)/);
  assert.equal((await runToExit(['keys', 'generate', '--out', dir, '--force'])).code, 0);
});

test('a2a keys generate --alg EdDSA --format jwk --kid K; PS256 defaults to a JWK file', async (t) => {
  const dir = tempDir(t);
  const run = await runToExit(['keys', 'generate', '--alg', 'EdDSA', '--format', 'jwk', '--kid', 'k1', '--out', dir]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /EdDSA key k1/);
  const jwk = JSON.parse(readFileSync(join(dir, 'signing-key.jwk.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual([jwk.kty, jwk.crv, jwk.kid, jwk.alg, typeof jwk.d], ['OKP', 'Ed25519', 'k1', 'EdDSA', 'string']);
  const ps = join(dir, 'ps');
  assert.equal((await runToExit(['keys', 'generate', '--alg', 'PS256', '--out', ps])).code, 0);
  assert.ok(existsSync(join(ps, 'signing-key.jwk.json')));
});

/** The `a2a serve ...` command that `a2a keys generate` prints, as arguments after `serve`. */
function printedServeArgs(stdout: string): string[] {
  const command = /a2a serve ([^)]*)\)/.exec(stdout)?.[1];
  assert.ok(command, `no a2a serve hint in: ${stdout}`);
  return command.split(' ');
}

test('S-ROTATE: --kid K, then exactly the printed a2a serve command: a2a card --verify --jwks verifies (kid K, not the thumbprint)', async (t) => {
  const dir = tempDir(t);
  // Default format with --kid (a JWK file keeps the kid), and an explicit PEM (the hint adds --sign-kid).
  for (const [sub, extra] of [['jwk', []], ['pem', ['--format', 'pem']]] as const) {
    const out = join(dir, sub);
    const run = await runToExit(['keys', 'generate', '--out', out, '--kid', '2025-07', ...extra]);
    assert.equal(run.code, 0, run.stderr);
    const { proc, urls } = await startServe(printedServeArgs(run.stdout));
    t.after(() => proc.kill());
    const verify = await runToExit(['card', urls.card, '--verify', '--jwks', join(out, 'jwks.json')]);
    assert.equal(verify.code, 0, `${sub}: ${run.stdout}\n${verify.stdout}${verify.stderr}`);
    assert.match(verify.stdout, /verified \(kid 2025-07, ES256\)/);
    proc.kill();
  }
  assert.ok(existsSync(join(dir, 'jwk', 'signing-key.jwk.json')), '--kid alone writes the JWK form');
  assert.ok(existsSync(join(dir, 'pem', 'signing-key.pem')));
});

test('a2a keys: usage errors exit 2', async () => {
  for (const args of [['keys'], ['keys', 'rotate'], ['keys', 'generate', '--alg', 'HS256'], ['keys', 'generate', '--format', 'der']]) {
    const run = await runToExit(args);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
  }
  const help = await runToExit(['keys', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: a2a keys generate/);
});

test('docs/cli.md: the a2a keys examples work verbatim, in order, in one directory', async (t) => {
  const dir = tempDir(t);
  const doc = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
  const block = /^## a2a keys\n\n```sh\n([\s\S]*?)```/m.exec(doc)?.[1] ?? '';
  const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  assert.ok(lines.length >= 2, block);
  for (const line of lines) {
    const [command = '', ...args] = line.split(/\s+/);
    assert.equal(command, 'a2a', line);
    // Run where the docs' relative --out directories land in the temporary directory.
    const run = await runToExit(args.map((a, i) => (args[i - 1] === '--out' ? join(dir, a) : a)));
    assert.equal(run.code, 0, `${line}: ${run.stderr}`);
  }
});
