/**
 * The examples and the code in docs/agents.md are real:
 * - examples/hello-agent/main.ts runs as a child process and exits 0;
 * - examples/hello-agent/agent.ts is served by `a2a serve --agent` as documented;
 * - docs/agents.md shows both files verbatim;
 * - every ```ts block of docs/agents.md type-checks (as a module next to the hello agent, so
 *   `./agent.js` and the package's own name `a2a-kit` resolve as they would for a user), and so
 *   does every block of the other docs that imports `./agent.js`, and all of client.md, errors.md
 *   and signing.md;
 * - the "test without a port" block runs, and so do the cancellation and "Agents that call
 *   agents" blocks.
 */
import { typecheckSnippets } from './support/typecheckSnippets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Task } from '../src/protocol/types.js';
import type { AgentExecutor, RequestContext, TaskUpdater } from '../src/server/index.js';
import { collectTask, createClient, createMessage, type A2AClient } from '../src/client/index.js';
import { eventually } from './support/assertions.js';
import { startServer } from './support/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const exampleDir = join(root, 'examples', 'hello-agent');
const agentFile = join(exampleDir, 'agent.ts');
const mainFile = join(exampleDir, 'main.ts');
const agentsDoc = readFileSync(join(root, 'docs', 'agents.md'), 'utf8');
const tsBlocks = [...agentsDoc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

function run(file: string, args: string[] = [], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--conditions=a2a-kit-source', '--import', 'tsx', file, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

test('examples/hello-agent/main.ts runs and exits 0', async () => {
  const { code, stdout, stderr } = await run(mainFile);
  assert.equal(code, 0, `exit code ${code}\n${stdout}\n${stderr}`);
  assert.match(stdout, /ok - the answer completes the same task/);
});

test('a2a serve --agent examples/hello-agent/agent.ts serves the module', async () => {
  const child = spawn(process.execPath, [join(root, 'bin', 'a2a.js'), 'serve', '--agent', 'examples/hello-agent/agent.ts', '--store', 'memory', '--port', '0', '--json'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error(`a2a serve printed nothing\n${stderr}`)), 20_000);
      createInterface({ input: child.stdout }).once('line', (l) => {
        clearTimeout(timer);
        resolveLine(l);
      });
      child.once('exit', (code) => reject(new Error(`a2a serve exited with ${code}\n${stderr}`)));
    });
    const urls = JSON.parse(line) as { card: string; jsonrpc: string; rest: string; agent: string };
    assert.equal(urls.agent, 'Hello agent');
    const card = (await (await fetch(urls.card)).json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.protocolBinding, i.url]),
      [
        ['JSONRPC', urls.jsonrpc],
        ['HTTP+JSON', urls.rest],
      ],
    );
    const res = await fetch(`${urls.rest}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'Ada' }] } }),
    });
    const body = (await res.json()) as { task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
    assert.equal(body.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(body.task.artifacts[0]?.parts.map((p) => p.text).join(''), 'Hello, Ada!');
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, `a2a serve should exit 0 on SIGTERM\n${stderr}`);
  }
});

test('docs/agents.md shows examples/hello-agent/agent.ts and main.ts verbatim', () => {
  assert.ok(tsBlocks.includes(readFileSync(agentFile, 'utf8')), 'docs/agents.md must contain examples/hello-agent/agent.ts as a ```ts block');
  assert.ok(tsBlocks.includes(readFileSync(mainFile, 'utf8')), 'docs/agents.md must contain examples/hello-agent/main.ts as a ```ts block');
});

test('every TypeScript block of docs/agents.md type-checks', () => {
  assert.ok(tsBlocks.length >= 4);
  // Virtual files next to the hello agent: nothing is written to the repository.
  const problems = typecheckSnippets({ root, dir: exampleDir, prefix: '__agents_md_block', blocks: tsBlocks });
  assert.deepEqual(problems, [], `docs/agents.md blocks (numbered from 1):\n${problems.join('\n')}`);
});

test('every TypeScript block of the other docs that imports ./agent.js (a whole program), and every block of client.md, errors.md and signing.md, type-checks', () => {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md') && f !== 'agents.md');
  const blocks = docs.flatMap((f) => {
    const all = [...readFileSync(join(root, 'docs', f), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    const whole = ['client.md', 'errors.md', 'signing.md'].includes(f);
    return all.filter((b) => whole || /from '\.\/agent\.js'/.test(b)).map((b) => `// docs/${f}\n${b}`);
  });
  // docs/push.md "Turning it on" and docs/storage.md "Several instances from code" at least.
  assert.ok(blocks.filter((b) => b.includes("from './agent.js'")).length >= 2);
  const problems = typecheckSnippets({ root, dir: exampleDir, prefix: '__docs_block', blocks });
  assert.deepEqual(problems, [], `blocks (numbered from 1; each starts with its doc's name):\n${problems.join('\n')}`);
});

test('the "test without a port" block of docs/agents.md runs', async () => {
  const block = tsBlocks.find((b) => b.includes("from 'node:assert/strict'") && b.includes('handler.fetch('));
  assert.ok(block, 'docs/agents.md has a block testing an agent through handler.fetch');
  // Run it outside the repository with the package imports pointed at the sources.
  const dir = mkdtempSync(join(tmpdir(), 'a2a-kit-doc-'));
  try {
    const entry = (sub: string) => pathToFileURL(join(root, sub)).href;
    const source = block
      .replace(/from 'a2a-kit\/server'/g, `from '${entry('src/server/index.ts')}'`)
      .replace(/from 'a2a-kit'/g, `from '${entry('src/index.ts')}'`)
      .replace(/from '\.\/agent\.js'/g, `from '${pathToFileURL(agentFile).href}'`);
    assert.ok(!/from 'a2a-kit/.test(source) && !/from '\.\//.test(source), 'every import was rewritten');
    const file = join(dir, 'block.mts');
    writeFileSync(file, source);
    const { code, stdout, stderr } = await run(file);
    assert.equal(code, 0, `${stdout}\n${stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('AGENT-CANCEL: the cancellation block of docs/agents.md refuses a cancel from state the agent really has (during its last step only)', async (t) => {
  const block = tsBlocks.find((b) => b.includes('TaskNotCancelableError') && b.includes('async cancel(ctx, task)'));
  assert.ok(block, 'docs/agents.md has a cancellation block');
  const dir = mkdtempSync(join(tmpdir(), 'a2a-kit-doc-cancel-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const source = block
    .replace(/from 'a2a-kit\/server'/g, `from '${pathToFileURL(join(root, 'src/server/index.ts')).href}'`)
    .replace(/from 'a2a-kit'/g, `from '${pathToFileURL(join(root, 'src/index.ts')).href}'`);
  const file = join(dir, 'cancel.mts');
  writeFileSync(file, source);
  const { slowAgent } = (await import(pathToFileURL(file).href)) as { slowAgent: AgentExecutor };
  const cancel = slowAgent.cancel?.bind(slowAgent);
  assert.ok(cancel);

  t.mock.timers.enable({ apis: ['setTimeout'] });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  const written: string[] = [];
  const updater = {
    startWork: async (text: string) => void written.push(text),
    complete: async (text: string) => void written.push(text),
    cancel: async (text: string) => void written.push(`canceled: ${text}`),
  } as unknown as TaskUpdater;
  const signal = new AbortController().signal;
  // The stored task as the server hands it to cancel(): nothing in it was set by the agent.
  const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } as Task;
  const run = slowAgent.execute({ taskId: 't-1', contextId: 'c-1', signal } as RequestContext, updater);
  await flush();
  await cancel({ task, tenant: '', signal }, updater); // an early step: accepted
  assert.equal(written.at(-1), 'canceled: Stopped on request');
  for (let i = 0; i < 9; i++) {
    t.mock.timers.tick(1000);
    await flush();
  }
  assert.equal(written.at(-1), 'step 10/10: sending the results');
  await assert.rejects(cancel({ task, tenant: '', signal }, updater), (e: Error) => e.name === 'TaskNotCancelableError');
  t.mock.timers.tick(1000);
  await run;
  assert.equal(written.at(-1), 'All ten steps done');
});

test('AGENT-RELAY: the "Agents that call agents" block of docs/agents.md relays a researcher (the demo agent): a streamed artifact, a question and its answer, a forwarded cancel', async (t) => {
  const block = tsBlocks.find((b) => b.includes('export function orchestrator('));
  assert.ok(block, 'docs/agents.md has an "Agents that call agents" block');
  const dir = mkdtempSync(join(tmpdir(), 'a2a-kit-doc-relay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (sub: string) => pathToFileURL(join(root, sub)).href;
  const source = block
    .replace(/from 'a2a-kit\/server'/g, `from '${entry('src/server/index.ts')}'`)
    .replace(/from 'a2a-kit\/client'/g, `from '${entry('src/client/index.ts')}'`)
    .replace(/from 'a2a-kit'/g, `from '${entry('src/index.ts')}'`);
  assert.ok(!/from 'a2a-kit/.test(source), 'every import was rewritten');
  const file = join(dir, 'relay.mts');
  writeFileSync(file, source);
  const { orchestrator } = (await import(pathToFileURL(file).href)) as { orchestrator: (researcher: A2AClient) => AgentExecutor };

  const researcher = await startServer({ demo: { slowMs: 60_000 } });
  t.after(() => researcher.close());
  const remote = await createClient(researcher.url);
  const server = await startServer({ executor: orchestrator(remote) });
  t.after(() => server.close());
  const client = await createClient(server.url);
  const text = (task: Task | undefined) => (task?.status.message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');

  // Streamed artifact chunks, relayed whole.
  const streamed = await collectTask(client.streamText('stream whales'));
  assert.equal(streamed.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(streamed.artifacts?.[0]?.name, 'stream');
  assert.equal(streamed.artifacts?.[0]?.parts.length, 10);
  // No stream event carries task metadata: it is in the stored task.
  const researcherTaskId = (await client.getTask({ id: streamed.id })).metadata?.researcherTaskId;
  assert.equal(typeof researcherTaskId, 'string', 'the researcher task id is kept in the task metadata');
  assert.notEqual(researcherTaskId, streamed.id);
  assert.equal((await remote.getTask({ id: researcherTaskId as string })).status.state, 'TASK_STATE_COMPLETED');

  // The researcher's question, and the answer sent on to the researcher's task.
  const asked = await client.sendText('ask What should I look for');
  assert.ok('task' in asked);
  assert.equal(asked.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(text(asked.task), 'What should I look for?');
  const answered = await client.sendMessage({ message: createMessage({ text: 'songs', taskId: asked.task.id }) });
  assert.ok('task' in answered);
  assert.equal(answered.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(text(answered.task), 'Thanks, got your answer: songs');
  assert.equal(answered.task.metadata?.researcherTaskId, asked.task.metadata?.researcherTaskId, 'one researcher task for both runs');

  // A cancel forwarded to the researcher; no error is reported on the way.
  const started = await client.sendText('slow research', { configuration: { returnImmediately: true } });
  assert.ok('task' in started);
  const id = started.task.id;
  const slowId = await eventually(async () => (await client.getTask({ id })).metadata?.researcherTaskId, 'the researcher task to start');
  const before = server.errors.length;
  assert.equal((await client.cancelTask({ id })).status.state, 'TASK_STATE_CANCELED');
  await eventually(async () => ((await remote.getTask({ id: slowId as string })).status.state === 'TASK_STATE_CANCELED' ? true : undefined), 'the researcher task to be canceled');
  await server.handler.requestHandler.drain(5_000);
  assert.deepEqual(server.errors.slice(before), [], 'nothing reported to onError');
});
