/**
 * The npm package works as installed. `npm pack` (its prepack builds dist/) is unpacked into a
 * fresh project as node_modules/a2a-kit, beside the repository's own dependencies (symlinked:
 * nothing is downloaded; tsx is left out until the last test). Then, with plain node (no tsx,
 * no NODE_OPTIONS, no source condition):
 * - the tarball holds dist (JS, .d.ts, maps with their sources), bin, proto, docs; no src/,
 *   test/, bench/, examples/;
 * - every exports subpath imports and has the same names as its TypeScript source;
 * - the installed `a2a` runs from dist: `a2a --help` exits 0;
 * - a strict consumer (exactOptionalPropertyTypes, noPropertyAccessFromIndexSignature,
 *   skipLibCheck false, lib ES2022 without DOM, nodenext) type-checks against the .d.ts;
 * - `a2a serve --agent ./agent.ts` says to install tsx when it is missing, and serves the
 *   module once tsx is installed beside it (or beside a2a-kit), also as an ES module in a project
 *   whose package.json has no "type": "module".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { spawnA2A } from './cli/cliHelpers.js';
import { assertCommonJsScopeAgent, writeCommonJsScopeProject } from './cli/commonjsScope.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_CONDITION = 'a2a-kit-source';

type ExportTarget = Record<string, string>;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, ExportTarget | string> };
const subpaths = Object.entries(manifest.exports).filter((entry): entry is [string, ExportTarget] => typeof entry[1] === 'object');

/** The environment of a plain `node`: no loader or condition inherited from this test process. */
const { NODE_OPTIONS: _nodeOptions, ...plainEnv } = process.env;

let work: string;
let project: string;
let installed: string;
let packedFiles: string[];

before(
  async () => {
    work = mkdtempSync(join(tmpdir(), 'a2a-kit-package-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(info, 'npm pack described the tarball');
    packedFiles = info.files.map((f) => f.path);
    project = join(work, 'project');
    const modules = join(project, 'node_modules');
    mkdirSync(modules, { recursive: true });
    await run('tar', ['-xzf', join(work, info.filename), '-C', modules]);
    installed = join(modules, 'a2a-kit');
    renameSync(join(modules, 'package'), installed);
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry.startsWith('.') || entry === 'a2a-kit' || entry === 'tsx') continue;
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry), 'dir');
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  },
  { timeout: 240_000 },
);

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds dist (JS, .d.ts, maps), bin, proto and docs, and no src/, test/, bench/ or examples/', () => {
  for (const file of ['package.json', 'README.md', 'bin/a2a.js', 'bin/typescriptAsModule.js', 'dist/cli/main.js', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'proto/a2a.proto', 'docs/agents.md']) {
    assert.ok(packedFiles.includes(file), `${file} is packed`);
  }
  const stray = packedFiles.filter((f) => /^(src|test|bench|examples|scripts|node_modules|\.a2a)\//.test(f));
  assert.deepEqual(stray, [], 'no sources, tests, benchmarks or examples in the package');
  for (const [subpath, target] of subpaths) {
    for (const [condition, file] of Object.entries(target)) {
      if (condition !== SOURCE_CONDITION) assert.ok(packedFiles.includes(file.slice(2)), `exports["${subpath}"].${condition} ${file} is packed`);
    }
  }
  const map = JSON.parse(readFileSync(join(installed, 'dist', 'index.js.map'), 'utf8')) as { sourcesContent?: string[] };
  assert.ok(map.sourcesContent?.[0]?.includes('export'), 'source maps carry their sources (src/ is not shipped)');
});

test('plain node imports every exports subpath of the installed package, with the names of its source', async () => {
  const specifiers = subpaths.map(([subpath]) => `a2a-kit${subpath.slice(1)}`);
  const script = `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: plainEnv, maxBuffer: 16 * 1024 * 1024 });
  const names = JSON.parse(stdout) as Record<string, string[]>;
  for (const [subpath, target] of subpaths) {
    const source = target[SOURCE_CONDITION];
    assert.ok(source, `exports["${subpath}"] has a ${SOURCE_CONDITION} condition`);
    const expected = Object.keys((await import(pathToFileURL(join(root, source)).href)) as object).sort();
    assert.deepEqual(names[`a2a-kit${subpath.slice(1)}`], expected, `a2a-kit${subpath.slice(1)}`);
  }
  // What the docs present as public API, from the entry point they name.
  const some: Record<string, string[]> = {
    'a2a-kit': ['A2AError'],
    'a2a-kit/server': ['createA2AHandler', 'LocalEventBus'],
    'a2a-kit/client': ['createClient'],
    'a2a-kit/node': ['serveAgent', 'openStore', 'parseStoreSpec'],
    'a2a-kit/grpc': ['serveGrpc'],
    'a2a-kit/sqlite': ['SqliteTaskStore'],
    'a2a-kit/postgres': ['PostgresTaskStore', 'PostgresEventBus'],
    'a2a-kit/signing': ['verifyAgentCard'],
    'a2a-kit/webhooks': ['readDelivery'],
    'a2a-kit/compat': ['agentCardToV10', 'isV03Card', 'requestToV10', 'decodeRequest', 'selectV03DefaultPushConfig', 'resultToV10', 'agentCardToV03', 'partToV03', 'V03_METHODS', 'matchV03RestRoute'],
  };
  for (const [specifier, wanted] of Object.entries(some)) {
    for (const name of wanted) assert.ok(names[specifier]?.includes(name), `${specifier} exports ${name}`);
  }
});

test('the installed a2a command runs from dist on plain node: a2a --help exits 0', async () => {
  const bin = (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.a2a;
  assert.ok(bin, 'package.json names the a2a bin');
  assert.match(readFileSync(join(installed, bin), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  const { stdout } = await run(process.execPath, [join(installed, bin), '--help'], { cwd: project, env: plainEnv });
  assert.match(stdout, /^Usage: a2a <command>/);
});

test('a strict consumer type-checks against the published .d.ts (server, client, node, sqlite, postgres, grpc...)', async () => {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['ES2022'],
        types: ['node'],
        strict: true,
        exactOptionalPropertyTypes: true,
        noPropertyAccessFromIndexSignature: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(project, 'consumer.ts'),
    `import type { AgentCard, Task } from 'a2a-kit';
import { A2AError } from 'a2a-kit';
import { createA2AHandler, type AgentExecutor } from 'a2a-kit/server';
import { createClient } from 'a2a-kit/client';
import { v03Transport } from 'a2a-kit/client/v03';
import { openStore, serve, serveAgent } from 'a2a-kit/node';
import { agentCardToV10, isV03Card, requestToV10 } from 'a2a-kit/compat';
import { SqliteTaskStore } from 'a2a-kit/sqlite';
import { PostgresTaskStore } from 'a2a-kit/postgres';
import { serveGrpc } from 'a2a-kit/grpc';
import { verifyAgentCard } from 'a2a-kit/signing';
import { readDelivery } from 'a2a-kit/webhooks';

const executor: AgentExecutor = {
  async execute(ctx, task) {
    await task.reply(\`Hello, \${ctx.text}!\`);
  },
};
const card: AgentCard = {
  name: 'consumer',
  description: 'type-checks',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://localhost:8080/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const store = new SqliteTaskStore({ path: ':memory:' });
const handler = createA2AHandler({ agentCard: card, executor, store });
const server = await serve(handler, { port: 0 });
const client = await createClient(server.url);
const task: Task | undefined = undefined;
const opened = await openStore('memory');
const v03 = { name: 'old', url: 'http://localhost:8080/', version: '1', protocolVersion: '0.3.0' };
const translated: AgentCard | undefined = isV03Card(v03) ? agentCardToV10(v03) : undefined;
export const used = [A2AError, v03Transport, serveAgent, PostgresTaskStore, serveGrpc, verifyAgentCard, readDelivery, client, task, translated, requestToV10];
await opened.close();
await server.close();
`,
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, env: plainEnv }).catch((error: { stdout?: string; code?: number }) => error);
  assert.equal(result.stdout, '', `tsc found errors:\n${result.stdout}`);
});

test('a2a serve --agent ./agent.ts without tsx: exit 2 and one line saying to install tsx', { skip: nativeTypeScript() }, async () => {
  copyFileSync(join(root, 'examples', 'hello-agent', 'agent.ts'), join(project, 'agent.ts'));
  const a2a = spawnA2A({ bin: join(installed, 'bin', 'a2a.js'), args: ['serve', '--agent', './agent.ts', '--port', '0', '--store', 'memory'], cwd: project, env: plainEnv });
  const { code } = await a2a.exited;
  assert.equal(code, 2, a2a.stderr);
  assert.match(a2a.stderr, /--agent \.\/agent\.ts: a TypeScript module needs tsx to load: install it in your project \(npm install --save-dev tsx\)/);
  assert.doesNotMatch(a2a.stderr, /\n\s+at /, 'no stack trace');
});

test('a2a serve --agent ./agent.ts in a project whose package.json has no "type": "module" (npm init -y) loads it as an ES module', async () => {
  // Before the next test installs tsx beside a2a-kit: here tsx is found beside the module only.
  assert.ok(!existsSync(join(project, 'node_modules', 'tsx')));
  const commonjs = join(work, 'commonjs-scope');
  writeCommonJsScopeProject(commonjs, { 'a2a-kit': installed, tsx: join(root, 'node_modules', 'tsx') });
  const a2a = spawnA2A({ bin: join(commonjs, 'node_modules', 'a2a-kit', 'bin', 'a2a.js'), args: ['serve', '--agent', './agent.ts', '--port', '0', '--store', 'memory', '--json'], cwd: commonjs, env: plainEnv });
  try {
    const urls = JSON.parse(await a2a.waitForLine(/^\{/, 30_000)) as { card: string; jsonrpc: string };
    await assertCommonJsScopeAgent(urls.card, urls.jsonrpc);
  } finally {
    a2a.kill('SIGTERM');
    assert.equal((await a2a.exited).code, 0, a2a.stderr);
  }
});

test('a2a serve --agent ./agent.ts with tsx installed in the project serves the module', async () => {
  copyFileSync(join(root, 'examples', 'hello-agent', 'agent.ts'), join(project, 'agent.ts'));
  if (!existsSync(join(project, 'node_modules', 'tsx'))) symlinkSync(join(root, 'node_modules', 'tsx'), join(project, 'node_modules', 'tsx'), 'dir');
  const a2a = spawnA2A({ bin: join(installed, 'bin', 'a2a.js'), args: ['serve', '--agent', './agent.ts', '--port', '0', '--store', 'memory', '--json'], cwd: project, env: plainEnv });
  try {
    const urls = JSON.parse(await a2a.waitForLine(/^\{/, 30_000)) as { card: string; agent: string };
    assert.equal(urls.agent, 'Hello agent');
    const card = (await (await fetch(urls.card)).json()) as AgentCardName;
    assert.equal(card.name, 'Hello agent');
  } finally {
    a2a.kill('SIGTERM');
    assert.equal((await a2a.exited).code, 0, a2a.stderr);
  }
});

interface AgentCardName {
  name: string;
}

/** Node that strips TypeScript types itself (22.18+, 23.6+) loads the agent without tsx. */
function nativeTypeScript(): string | false {
  return (process.features as { typescript?: unknown }).typescript ? 'this node loads TypeScript itself' : false;
}
