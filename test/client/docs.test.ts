/**
 * docs/client.md is real: every ```ts block type-checks, and every block runs (as its own
 * process) against the demo agent, with the hosts of the examples pointed at live servers:
 * http://localhost:8080 → the demo agent, https://auth.example.com → an OAuth2 token endpoint.
 */
import { typecheckSnippets } from '../support/typecheckSnippets.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, type TestServer } from '../support/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs', 'client.md'), 'utf8');
const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
const clientEntry = join(root, 'src', 'client', 'index.ts');
const exportsClient = Boolean((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: Record<string, string> }).exports?.['./client']);

let server: TestServer;
let tokenServer: Server;
let tokenUrl: string;
let dir: string;

before(async () => {
  server = await startServer();
  tokenServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"t","token_type":"Bearer","expires_in":60}'));
  });
  await new Promise<void>((r) => tokenServer.listen(0, '127.0.0.1', r));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'a2a-kit-client-doc-'));
});
after(async () => {
  await server.close();
  await new Promise((r) => tokenServer.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

test('docs/client.md has examples, all importing the client entry point', () => {
  assert.ok(blocks.length >= 10, `${blocks.length} blocks`);
  for (const block of blocks) assert.match(block, /from 'a2a-kit\/client'/);
});

test('every TypeScript block of docs/client.md type-checks', () => {
  const here = join(root, 'test', 'client');
  // Until package.json exports ./client, the import is pointed at the sources.
  const source = (text: string) => (exportsClient ? text : text.replace(/from 'a2a-kit\/client'/g, "from '../../src/client/index.js'"));
  const problems = typecheckSnippets({ root, dir: here, prefix: '__client_md_block', blocks: blocks.map(source) });
  assert.deepEqual(problems, [], `docs/client.md blocks (numbered from 1):\n${problems.join('\n')}`);
});

test('every block of docs/client.md runs (in one process, in order)', async () => {
  const files = blocks.map((block, i) => {
    const file = join(dir, `block-${i + 1}.mts`);
    writeFileSync(
      file,
      block
        .replace(/from 'a2a-kit\/client'/g, `from '${pathToFileURL(clientEntry).href}'`)
        .replaceAll('http://localhost:8080', server.url)
        .replaceAll('https://auth.example.com', tokenUrl),
    );
    return pathToFileURL(file).href;
  });
  const runner = join(dir, 'run.mts');
  writeFileSync(
    runner,
    `for (const [i, file] of ${JSON.stringify(files)}.entries()) {\n` +
      `  try { await import(file); } catch (error) { console.error('block ' + (i + 1) + ' failed:', error); process.exit(1); }\n` +
      `  console.log('### block ' + (i + 1) + ' ran');\n` +
      `}\n`,
  );
  const { code, stdout, stderr } = await run(runner);
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  assert.equal(stderr, '', stderr);
  assert.equal(stdout.match(/^### block \d+ ran$/gm)?.length, blocks.length, stdout);
});
