/**
 * bin/a2a.js in a checkout runs src/ through tsx with the a2a-kit-source export condition on: an
 * agent module that imports `a2a-kit/server` by name gets the sources, never dist/ (stale, or not
 * built at all); and a .ts module loads as an ES module in any package scope. The installed
 * package's bin (dist/, plain node) is test/package.test.ts's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, startServe } from './cliHelpers.js';
import { assertCommonJsScopeAgent, writeCommonJsScopeProject } from './commonjsScope.js';

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

test('in a checkout, a2a serve loads a .ts --agent and --tenants module as an ES module where package.json has no "type": "module"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-commonjs-scope-'));
  try {
    writeCommonJsScopeProject(dir, { 'a2a-kit': REPO_ROOT });
    const agent = await startServe(['--agent', join(dir, 'agent.ts')]);
    try {
      await assertCommonJsScopeAgent(agent.urls.card, agent.urls.jsonrpc);
    } finally {
      agent.proc.kill('SIGTERM');
      await agent.proc.exited;
    }
    const tenants = await startServe(['--tenants', join(dir, 'tenants.ts')]);
    try {
      const urls = tenants.urls as typeof tenants.urls & { tenants: Record<string, string> };
      await assertCommonJsScopeAgent(urls.tenants.acme as string, urls.jsonrpc, 'acme');
    } finally {
      tenants.proc.kill('SIGTERM');
      await tenants.proc.exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
