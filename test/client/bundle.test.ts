/**
 * The client runs in browsers, Deno, Bun and Workers (architecture decision 3): bundled for a
 * neutral platform it imports nothing from `node:*`, uses no Buffer, and a minimal client
 * (createClient + sendStreamingMessage) stays within 14.5 KB min+gzip — the protobuf runtime and
 * the generated code stay out. (12 KB until 2026-12-01, when the client began checking the shape
 * of every answer, capping card and SSE event sizes and bounding auth providers by the call's
 * deadline: ~12.8 KB; ~12.5 KB since the server-side error columns, the card verifier's glue and
 * the 0.3 fallback decision left the first download; 13 KB, reached by the checks down to each
 * part, until the client stopped following redirects (same-origin card redirects only), capped
 * unary and error bodies, checked JSON-RPC response ids and refused "."/".." path ids against
 * hostile servers: ~13.9 KB; 14 KB until the SSE idle watchdog against frozen servers, R24:
 * ~14.2 KB.)
 *
 * The budget is what a browser downloads first: bundled with code splitting (as every modern
 * bundler does for dynamic imports), the entry chunk plus the chunks it imports statically.
 * What is loaded on demand — the A2A 0.3 translation (src/compat, issue 9), the card signature
 * verifier — is measured and reported separately, and must stay out of that first download.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BUDGET = 14.5 * 1024;

interface Chunk {
  path: string;
  code: string;
  gzipped: number;
  inputs: string[];
  imports: Metafile['outputs'][string]['imports'];
}

/** Bundles `contents` with code splitting, in memory; the chunks by output path, and the entry's path. */
async function bundle(contents: string): Promise<{ chunks: Map<string, Chunk>; entry: string }> {
  const outdir = join(root, 'tmp', 'bundle-test');
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    write: false,
    splitting: true,
    outdir,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = (result.metafile as Metafile).outputs;
  const chunks = new Map<string, Chunk>();
  let entry = '';
  for (const [path, output] of Object.entries(outputs)) {
    const file = result.outputFiles.find((f) => f.path === join(root, path));
    assert.ok(file, `output file for ${path}`);
    chunks.set(path, { path, code: file.text, gzipped: gzipSync(file.text).length, inputs: Object.keys(output.inputs), imports: output.imports });
    // Dynamic import targets are entry points too; the bundle's own entry is stdin.
    if (output.entryPoint === 'entry.ts') entry = path;
  }
  assert.ok(entry, 'an entry chunk');
  return { chunks, entry };
}

/** The chunks reachable from `from` through imports of the given kinds. */
function reachable(chunks: Map<string, Chunk>, from: string[], kinds: string[]): Chunk[] {
  const seen = new Set<string>();
  const queue = [...from];
  while (queue.length > 0) {
    const path = queue.shift() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const i of chunks.get(path)?.imports ?? []) if (kinds.includes(i.kind) && chunks.has(i.path)) queue.push(i.path);
  }
  return [...seen].map((p) => chunks.get(p) as Chunk);
}

function assertPortable(chunks: Iterable<Chunk>): void {
  for (const { path, code, inputs } of chunks) {
    assert.doesNotMatch(code, /\bnode:/, `no node: imports in ${path}`);
    assert.doesNotMatch(code, /\bBuffer\b/, `no Buffer in ${path}`);
    assert.doesNotMatch(code, /\brequire\(/, `no require() in ${path}`);
    assert.deepEqual(inputs.filter((f) => /@bufbuild|src\/gen\/|protocol\/decode|protocol\/operations/.test(f)), [], path);
  }
}

const sum = (chunks: Chunk[]) => chunks.reduce((n, c) => n + c.gzipped, 0);
const isCompat = (input: string) => input.startsWith('src/compat/');

const MINIMAL = `
  import { createClient } from './src/client/index.ts';
  const client = await createClient('https://agent.example.com');
  for await (const event of client.sendStreamingMessage({ message: { messageId: '1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } })) {
    console.log(event);
  }
`;

test('a minimal client (createClient + sendStreamingMessage): what a browser loads first is portable and within 14.5 KB min+gzip', async (t) => {
  const { chunks, entry } = await bundle(MINIMAL);
  const initial = reachable(chunks, [entry], ['import-statement']);
  assertPortable(chunks.values());
  const gzipped = sum(initial);
  t.diagnostic(`initial chunks (${initial.map((c) => c.path.split('/').pop()).join(', ')}): ${initial.reduce((n, c) => n + c.code.length, 0)} bytes minified, ${gzipped} bytes min+gzip (budget ${BUDGET})`);
  assert.ok(gzipped <= BUDGET, `${gzipped} bytes min+gzip exceeds ${BUDGET}`);
});

test('AD3 the first download holds what a client runs: no server-side error columns or route compiling, no card verifier glue, no 0.3 fallback logic', async () => {
  const { chunks, entry } = await bundle(MINIMAL);
  const initial = reachable(chunks, [entry], ['import-statement']);
  const inputs = initial.flatMap((c) => c.inputs);
  for (const module of ['src/protocol/errorTable.ts', 'src/client/cardVerification.ts']) {
    assert.ok(!inputs.includes(module), `${module} is not in the initial chunks`);
  }
  const code = initial.map((c) => c.code).join('\n');
  // ERROR_TABLE's HTTP and gRPC statuses are what servers answer with; clients read the JSON-RPC code and class only.
  assert.doesNotMatch(code, /FAILED_PRECONDITION|grpcStatus|httpStatus/, 'no server status columns');
  // REST_ROUTES split into segments is the server's matcher; the client builds nothing at load.
  assert.doesNotMatch(code, /segments/, 'no compiled REST routes');
  // Card signature outcomes and where to repeat a call over 0.3 are decided in the lazily loaded chunks.
  assert.doesNotMatch(code, /no-key-source|supportedVersions/, 'no card verifier glue, no 0.3 fallback logic');
});

test('VER-05 the A2A 0.3 translation (src/compat) is a lazily loaded chunk: not in the initial download, reachable by dynamic import', async (t) => {
  const { chunks, entry } = await bundle(MINIMAL);
  const initial = reachable(chunks, [entry], ['import-statement']);
  assert.deepEqual(initial.flatMap((c) => c.inputs.filter(isCompat)), [], 'no src/compat module in the initial chunks');
  const initialPaths = new Set(initial.map((c) => c.path));
  const lazy = reachable(chunks, [entry], ['import-statement', 'dynamic-import']).filter((c) => !initialPaths.has(c.path));
  // Every lazy chunk but the card signature verifier's (src/signing) is the 0.3 support.
  const v03 = lazy.filter((c) => !c.inputs.some((i) => i.startsWith('src/signing/')));
  const inputs = v03.flatMap((c) => c.inputs);
  for (const module of ['src/compat/requests.ts', 'src/compat/card.ts', 'src/compat/protoJson03.ts', 'src/client/jsonrpc03Transport.ts', 'src/client/rest03Transport.ts', 'src/client/v03Translate.ts']) {
    assert.ok(inputs.includes(module), `${module} is in a lazily loaded chunk`);
  }
  t.diagnostic(`0.3 chunks, loaded on first use: ${v03.map((c) => `${c.path.split('/').pop()} ${c.gzipped}`).join(', ')} — ${sum(v03)} bytes min+gzip in all`);
});

test('the whole client entry point is portable too', async (t) => {
  const { chunks, entry } = await bundle(`export * from './src/client/index.ts';`);
  assertPortable(chunks.values());
  t.diagnostic(`whole client: ${sum(reachable(chunks, [entry], ['import-statement']))} bytes min+gzip first, ${sum([...chunks.values()])} with every lazy chunk`);
});
