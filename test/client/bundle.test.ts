/**
 * The client runs in browsers, Deno, Bun and Workers (architecture decision 3): bundled for a
 * neutral platform it imports nothing from `node:*`, uses no Buffer, and a minimal client
 * (createClient + sendStreamingMessage) stays within 12 KB min+gzip — the protobuf runtime and
 * the generated code stay out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BUDGET = 12 * 1024;

async function bundle(contents: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    write: false,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values((result.metafile as Metafile).outputs)[0];
  return { code: result.outputFiles[0]?.text ?? '', inputs: Object.keys(output?.inputs ?? {}) };
}

function assertPortable(code: string, inputs: string[]): void {
  assert.doesNotMatch(code, /\bnode:/, 'no node: imports');
  assert.doesNotMatch(code, /\bBuffer\b/, 'no Buffer');
  assert.doesNotMatch(code, /\brequire\(/, 'no require()');
  assert.deepEqual(inputs.filter((f) => /@bufbuild|src\/gen\/|protocol\/decode|protocol\/operations/.test(f)), []);
}

test('a minimal client (createClient + sendStreamingMessage) is portable and within 12 KB min+gzip', async (t) => {
  const { code, inputs } = await bundle(`
    import { createClient } from './src/client/index.ts';
    const client = await createClient('https://agent.example.com');
    for await (const event of client.sendStreamingMessage({ message: { messageId: '1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } })) {
      console.log(event);
    }
  `);
  assertPortable(code, inputs);
  const gzipped = gzipSync(code).length;
  t.diagnostic(`minimal client: ${code.length} bytes minified, ${gzipped} bytes min+gzip (budget ${BUDGET})`);
  assert.ok(gzipped <= BUDGET, `${gzipped} bytes min+gzip exceeds ${BUDGET}`);
});

test('the whole client entry point is portable too', async (t) => {
  const { code, inputs } = await bundle(`export * from './src/client/index.ts';`);
  assertPortable(code, inputs);
  t.diagnostic(`whole client: ${gzipSync(code).length} bytes min+gzip`);
});
