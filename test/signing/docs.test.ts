/**
 * docs/signing.md is real: its ```ts blocks import only from the package's public subpaths
 * (no paths into src/), every name they import is exported there, the blocks type-check (next
 * to the hello agent, so `./agent.js` resolves), and the documented pair works through the
 * package names: `signCardWith` (a2a-kit/node) signs, `verifyAgentCard` (a2a-kit/signing)
 * verifies.
 */
import { typecheckSnippets } from '../support/typecheckSnippets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSigningKeys, signCardWith } from 'a2a-kit/node';
import { verifyAgentCard } from 'a2a-kit/signing';
import type { AgentCard } from 'a2a-kit';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs', 'signing.md'), 'utf8');
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string> }).exports;

/** `import { a, type B, c as d } from 'x'` → [x, [a, c]] (value imports only). */
function namedImports(block: string): [string, string[]][] {
  return [...block.matchAll(/^import (?!type )\{([^}]*)\} from '([^']+)';/gm)].map((m) => [
    m[2] ?? '',
    (m[1] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '' && !n.startsWith('type '))
      .map((n) => n.split(/\s+as\s+/)[0] ?? n),
  ]);
}

test('docs/signing.md imports from the package subpaths, and each name is exported there', async () => {
  assert.ok(blocks.length >= 3, `${blocks.length} blocks`);
  const imports = blocks.flatMap(namedImports);
  for (const block of blocks) assert.doesNotMatch(block, /from '\.{1,2}\/src\//, 'no import from the sources');
  assert.ok(imports.some(([from, names]) => from === 'a2a-kit/node' && names.includes('signCardWith')));
  assert.ok(imports.some(([from, names]) => from === 'a2a-kit/signing' && names.includes('verifyAgentCard')));
  for (const [from, names] of imports) {
    if (from.startsWith('./')) continue; // the reader's own agent module
    assert.match(from, /^a2a-kit(\/|$)/, `${from} is a package subpath`);
    const subpath = `.${from.slice('a2a-kit'.length)}`;
    assert.ok(exportsMap[subpath], `package.json exports ${subpath}`);
    const mod = (await import(from)) as Record<string, unknown>;
    for (const name of names) assert.ok(name in mod, `${from} exports ${name}`);
  }
});

test('every TypeScript block of docs/signing.md type-checks', () => {
  const problems = typecheckSnippets({ root, dir: join(root, 'examples', 'hello-agent'), prefix: '__signing_md_block', blocks });
  assert.deepEqual(problems, [], `docs/signing.md blocks (numbered from 1):\n${problems.join('\n')}`);
});

test('signCardWith from a2a-kit/node signs a card that verifyAgentCard from a2a-kit/signing verifies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-signing-doc-'));
  try {
    const keys = await generateSigningKeys();
    const keyFile = join(dir, 'signing-key.pem');
    writeFileSync(keyFile, keys.privateKey);
    const sign = await signCardWith(keyFile, { jku: 'https://agent.example.com/jwks.json' });
    const card: AgentCard = {
      name: 'signed',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const signed = await sign(card);
    assert.equal(signed.signatures?.length, 1);
    const result = await verifyAgentCard(signed, { jwks: keys.jwks });
    assert.equal(result.verified, true);
    assert.equal(result.kid, keys.kid);
    await assert.rejects(verifyAgentCard({ ...signed, name: 'tampered' }, { jwks: keys.jwks }), { reason: 'bad-signature' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
