/**
 * bin/a2a.js in a checkout runs src/ through tsx with the a2a-kit-source export condition on: an
 * agent module that imports `a2a-kit/server` by name gets the sources, never dist/ (stale, or not
 * built at all). The installed package's bin (dist/, plain node) is test/package.test.ts's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, startServe } from './cliHelpers.js';

test('in a checkout, a2a serve --agent with a module importing a2a-kit/server by name resolves it to src/', async () => {
  const { proc, urls } = await startServe(['--agent', 'test/cli/fixtures/packageNameAgent.ts']);
  try {
    const card = (await (await fetch(urls.card)).json()) as { name: string; description: string };
    assert.equal(card.name, 'fixture package-name agent');
    assert.equal(card.description, pathToFileURL(join(REPO_ROOT, 'src', 'server', 'index.ts')).href);
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
});
