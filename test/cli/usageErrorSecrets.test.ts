/**
 * R23: a usage error that quotes an argument never shows a credential the command line or the
 * environment holds (`--api-key`, `--token`, `--auth`, a credential header, A2A_TOKEN), on stderr
 * nor in the --json error document: `a2a` masks them as the rest of the CLI does.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runA2A } from './cliHelpers.js';

const KEY = 'sk-SECRET123';
const URL = 'http://127.0.0.1:9';

async function usageError(args: string[], env: Record<string, string> = {}) {
  const proc = runA2A(args, { A2A_TOKEN: '', NO_COLOR: '1', ...env });
  const { code } = await proc.exited;
  assert.equal(code, 2, proc.stderr);
  const document = JSON.parse(proc.stdout) as { error: { type: string; message: string } };
  assert.equal(document.error.type, 'usage');
  for (const text of [proc.stdout, proc.stderr]) assert.ok(!text.includes('SECRET'), text);
  return { stderr: proc.stderr, message: document.error.message };
}

describe('R23: usage errors mask the credentials they would quote', { concurrency: 4 }, () => {
  test('the --api-key value given to another option (--timeout)', async () => {
    const r = await usageError(['send', URL, 'hi', '--api-key', KEY, '--timeout', KEY, '--json']);
    assert.equal(r.message, '--timeout must be an integer ≥ 1, got "***"');
    assert.match(r.stderr, /^a2a send: --timeout must be an integer ≥ 1, got "\*\*\*"$/m);
  });

  test('the --api-key=… value repeated as an extra argument', async () => {
    const r = await usageError(['send', URL, 'hi', `--api-key=${KEY}`, KEY, '--json']);
    assert.match(r.message, /^unexpected argument "\*\*\*"/);
  });

  test('A2A_TOKEN repeated as an extra argument', async () => {
    const r = await usageError(['get', URL, 'task-1', 'tok-SECRET456', '--json'], { A2A_TOKEN: 'tok-SECRET456' });
    assert.match(r.message, /^unexpected argument "\*\*\*"/);
  });

  test('a malformed credential header (-H "Authorization Bearer …")', async () => {
    const r = await usageError(['send', URL, 'hi', '-H', `Authorization Bearer ${KEY}`, '--json']);
    assert.equal(r.message, '--header must be NAME=VALUE, got "***"');
  });

  test('push create: the --token and the credentials of --auth "SCHEME CREDENTIALS"', async () => {
    const token = await usageError(['push', 'create', URL, 'task-1', 'https://hooks.example.com/a2a', '--token', 'hook-SECRET789', '--timeout', 'hook-SECRET789', '--json']);
    assert.match(token.message, /got "\*\*\*"/);
    const auth = await usageError(['push', 'create', URL, 'task-1', 'https://hooks.example.com/a2a', '--auth', 'Bearer abc-SECRET1', '--timeout', 'abc-SECRET1', '--json']);
    assert.match(auth.message, /got "\*\*\*"/);
  });
});
