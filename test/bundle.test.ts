/**
 * Architecture decision 3: the root entry, the fetch server and a2a-kit/signing run on any
 * runtime. Bundled for a neutral platform, they import nothing from `node:*` and use no Buffer
 * (signing from key files is therefore in a2a-kit/node). (The client has its own budget test in
 * test/client/bundle.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

async function bundle(entry: string): Promise<string> {
  const result = await build({
    stdin: { contents: `export * from '${entry}';`, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

for (const entry of ['./src/index.ts', './src/server/index.ts', './src/signing/index.ts']) {
  test(`${entry} bundles for a neutral platform without node: imports or Buffer`, async () => {
    const code = await bundle(entry);
    assert.ok(code.length > 1000, 'something was bundled');
    assert.doesNotMatch(code, /from ["']node:|require\(["']node:|import\(["']node:/, 'no node: imports');
    assert.doesNotMatch(code, /\bBuffer\./, 'no Buffer');
  });
}

test('a fetch handler built from the server entry answers a request without Node APIs', async () => {
  const { createA2AHandler } = await import('../src/server/index.js');
  const handler = createA2AHandler({
    agentCard: {
      name: 'neutral',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://x.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    },
    executor: { execute: (_ctx, task) => task.reply('pong') },
  });
  const res = await handler.fetch(
    new Request('https://x.example/a2a/jsonrpc', {
      method: 'POST',
      headers: { 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'ping' }] } } }),
    }),
  );
  const body = (await res.json()) as { result: { message: { parts: { text: string }[] } } };
  assert.equal(body.result.message.parts[0]?.text, 'pong');
});
