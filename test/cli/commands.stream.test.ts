/**
 * `a2a stream` and `a2a subscribe` as real processes against `a2a serve`: live rendering of
 * states and artifact chunks (appended to the artifact on screen), the summary, one JSON
 * event per line with --json, exit codes of the task's outcome, and --verbose.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '../../src/client/client.js';
import type { SendMessageResponse, StreamResponse, Task } from '../../src/protocol/types.js';
import { serveHelp } from '../../src/cli/commands/serve.js';
import { runA2A, runToExit, startServe, type A2AProcess } from './cliHelpers.js';

/** An in-memory store where `a2a serve` has --store (its default keeps tasks in ./.a2a). */
const MEMORY = serveHelp.includes('--store') ? ['--store', 'memory'] : [];

let server: A2AProcess | undefined;
let url = '';
before(async () => {
  const started = await startServe(MEMORY, { A2A_DEMO_SLOW_MS: '6000', A2A_DEMO_TICK_MS: '500', A2A_DEMO_STREAM_DELAY_MS: '20' });
  server = started.proc;
  url = new URL(started.urls.card).origin;
});
after(() => server?.kill());

const a2a = (...args: string[]) => runToExit(args);

function events(stdout: string): StreamResponse[] {
  const lines = stdout.split('\n').filter(Boolean);
  return lines.map((line) => {
    try {
      return JSON.parse(line) as StreamResponse;
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
  });
}

async function startSlow(): Promise<Task> {
  const r = await a2a('send', url, 'slow watch me', '--no-wait', '--json');
  const result = JSON.parse(r.stdout) as SendMessageResponse;
  assert.ok('task' in result, r.stdout);
  return result.task;
}

const CHUNKS = Array.from({ length: 10 }, (_, i) => `chunk ${i + 1}/10: a story`);

describe('a2a stream', { concurrency: 3 }, () => {
  test('renders the task live: header, working state, one artifact with the 10 chunks in order, summary', async () => {
    const r = await a2a('stream', url, 'stream a story');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0] ?? '', /^task [0-9a-f-]{36} {2}context [0-9a-f-]{36}$/);
    assert.match(r.stdout, /^· working {2}Streaming 10 chunks$/m);
    assert.equal(r.stdout.match(/^▸ stream$/gm)?.length, 1, 'appended chunks continue the same artifact');
    const body = r.stdout.slice(r.stdout.indexOf('▸ stream\n') + '▸ stream\n'.length);
    assert.ok(body.startsWith(`${CHUNKS.join('\n')}\n`), body);
    assert.match(r.stdout, /^completed {2}task [0-9a-f-]{36}$/m);
    assert.match(r.stdout, /^1 artifact: stream \(10 parts\)$/m);
    assert.ok(!r.stdout.includes('\x1b') && !r.stdout.includes('⠋'), 'no spinner or colours on a pipe');
  });

  test('--json: one StreamResponse per line — the task, WORKING, 10 artifact chunks, COMPLETED', async () => {
    const r = await a2a('stream', url, 'stream a story', '--json', '--binding', 'rest');
    assert.equal(r.code, 0, r.stderr);
    const list = events(r.stdout);
    assert.ok('task' in (list[0] ?? {}), 'a task first');
    const chunks = list.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    assert.equal(chunks.length, 10);
    assert.deepEqual(
      chunks.map((c) => ('text' in (c.artifact.parts[0] ?? {}) ? (c.artifact.parts[0] as { text: string }).text : '')),
      CHUNKS.map((c) => `${c}\n`),
    );
    assert.equal(chunks[0]?.append, undefined);
    assert.ok(chunks.slice(1).every((c) => c.append === true));
    assert.equal(chunks[9]?.lastChunk, true);
    const last = list[list.length - 1];
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
  });

  test('a direct reply is printed as is; data and file artifacts are rendered', async () => {
    const msg = await a2a('stream', url, 'msg hello');
    assert.equal(msg.code, 0);
    assert.equal(msg.stdout, 'hello\n');
    const data = await a2a('stream', url, 'data abc');
    assert.match(data.stdout, /^▸ data\n\{\n {2}"echo": "abc",\n {2}"length": 3\n\}$/m);
    const file = await a2a('stream', url, 'file abc');
    assert.match(file.stdout, /^▸ file\n\[file\] echo\.txt · text\/plain · 3 B$/m);
  });

  test('fail → exit 5 with the reason in the summary; reject → exit 5', async () => {
    const fail = await a2a('stream', url, 'fail broken');
    assert.equal(fail.code, 5);
    assert.match(fail.stdout, /^failed {2}task \S+\nFailed as requested: broken$/m);
    const reject = await a2a('stream', url, 'reject nope', '--json');
    assert.equal(reject.code, 5);
    const last = events(reject.stdout).pop();
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_REJECTED');
  });

  test('ask → ends at input-required (exit 0) with the question and how to answer', async () => {
    const r = await a2a('stream', url, 'ask a question');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^input-required {2}task (\S+)\na question\?$/m);
    assert.match(r.stdout, /answer with: a2a send \S+ "<answer>" --task \S+/);
  });

  test('slow → progress lines while working, then the artifact and the final status', async () => {
    const r = await a2a('stream', url, 'slow job');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^· working {2}progress 0\/12$/m);
    assert.match(r.stdout, /^· working {2}progress 11\/12$/m);
    assert.match(r.stdout, /^▸ slow\nFinished slow work: job$/m);
    assert.match(r.stdout, /^completed {2}task \S+\nprogress 12\/12$/m);
  });
});

describe('a2a subscribe', { concurrency: 3 }, () => {
  test('follows a running task to its end (exit 0); --json prints its events', async () => {
    const task = await startSlow();
    const human = runA2A(['subscribe', url, task.id]);
    const json = runA2A(['subscribe', url, task.id, '--json']);
    const [h, j] = await Promise.all([human.exited, json.exited]);
    assert.equal(h.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^task ${task.id} {2}context ${task.contextId}$`, 'm'));
    assert.match(human.stdout, /^▸ slow\nFinished slow work: watch me$/m);
    assert.match(human.stdout, new RegExp(`^completed {2}task ${task.id}$`, 'm'));
    assert.equal(j.code, 0, json.stderr);
    const list = events(json.stdout);
    assert.ok('task' in (list[0] ?? {}), 'the snapshot first');
    assert.ok(list.some((e) => 'artifactUpdate' in e));
    const last = list[list.length - 1];
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
  });

  test('a task canceled while followed → exit 5', async () => {
    const task = await startSlow();
    const follower = runA2A(['subscribe', url, task.id]);
    await follower.waitForLine(/^· working/);
    // Canceled from here rather than by another process: quicker than the slow task, even on a busy machine.
    const client = await createClient(url);
    assert.equal((await client.cancelTask({ id: task.id })).status.state, 'TASK_STATE_CANCELED');
    const { code } = await follower.exited;
    assert.equal(code, 5, follower.stdout + follower.stderr);
    assert.match(follower.stdout, /^canceled {2}task /m);
  });

  test('a finished task cannot be subscribed to → exit 3 UNSUPPORTED_OPERATION; unknown → TASK_NOT_FOUND', async () => {
    const done = JSON.parse((await a2a('send', url, 'hi', '--json')).stdout) as { task: Task };
    const r = await a2a('subscribe', url, done.task.id);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^a2a subscribe: the agent answered: UNSUPPORTED_OPERATION: /m);
    const unknown = await a2a('subscribe', url, 'no-such-task', '--json');
    assert.equal(unknown.code, 3);
    assert.equal((JSON.parse(unknown.stdout) as { error: { code: string } }).error.code, 'TASK_NOT_FOUND');
  });
});

describe('--verbose', { concurrency: 3 }, () => {
  test('shows the wire exchange on stderr (calls, HTTP method/URL/status, bodies), stdout stays clean', async () => {
    const r = await a2a('send', url, 'hi', '--json', '--verbose', '-H', 'X-Trace=t1');
    assert.equal(r.code, 0);
    assert.ok('task' in (JSON.parse(r.stdout) as SendMessageResponse), 'stdout is still one JSON document');
    assert.match(r.stderr, new RegExp(`^> GET ${url}/\\.well-known/agent-card\\.json$`, 'm'));
    assert.match(r.stderr, /^< 200 OK application\/json \(\d+ ms\)$/m);
    assert.match(r.stderr, new RegExp(`^\\* sendMessage via JSONRPC ${url}/a2a/jsonrpc$`, 'm'));
    assert.match(r.stderr, new RegExp(`^> POST ${url}/a2a/jsonrpc$`, 'm'));
    assert.match(r.stderr, /^> a2a-version: 1\.0$/m);
    assert.match(r.stderr, /^> x-trace: t1$/m);
    assert.match(r.stderr, /^> \{"jsonrpc":"2\.0","id":1,"method":"SendMessage"/m);
    assert.match(r.stderr, /^< \{"jsonrpc":"2\.0","id":1,"result":\{"task"/m);
    assert.match(r.stderr, /^\* sendMessage ok$/m);
    const long = r.stderr.split('\n').find((l) => l.startsWith('< {"name"'));
    assert.match(long ?? '', /… \(\+\d+ chars\)$/, 'long bodies are cut');
  });

  test('streams show their SSE lines; failures show the error; credentials are masked', async () => {
    const r = await runA2A(['stream', url, 'stream v', '--verbose', '--binding', 'rest', '--api-key', 'k-secret'], { A2A_TOKEN: 't-secret' });
    const { code } = await r.exited;
    assert.equal(code, 0);
    assert.match(r.stderr, new RegExp(`^> POST ${url}/a2a/rest/message:stream$`, 'm'));
    assert.match(r.stderr, /^< 200 OK text\/event-stream/m);
    assert.match(r.stderr, /^< data: \{"artifactUpdate"/m);
    assert.match(r.stderr, /^> authorization: Bearer \*\*\*$/m);
    assert.match(r.stderr, /^> x-api-key: \*\*\*$/m);
    assert.doesNotMatch(r.stderr, /secret/);
    const failed = await a2a('get', url, 'nope', '-v');
    assert.equal(failed.code, 3);
    assert.match(failed.stderr, /^\* getTask failed: TASK_NOT_FOUND: Task nope not found/m);
  });
});
