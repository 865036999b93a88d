/**
 * `a2a chat` through piped stdin against `a2a serve`: a multi-turn conversation that keeps its
 * context, answers an INPUT_REQUIRED question on the same task, streams artifacts, /new, /quit,
 * errors that do not end the session, EOF → exit 0; with and without streaming. Also
 * `a2a send -` (the text from stdin).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import type { SendMessageResponse, StreamResponse, Task } from '../../src/protocol/types.js';
import { serveHelp } from '../../src/cli/commands/serve.js';
import { A2A_BIN, REPO_ROOT, startServe, type A2AProcess } from './cliHelpers.js';

/** An in-memory store where `a2a serve` has --store (its default keeps tasks in ./.a2a). */
const MEMORY = serveHelp.includes('--store') ? ['--store', 'memory'] : [];

let server: A2AProcess | undefined;
let url = '';
before(async () => {
  const started = await startServe(MEMORY);
  server = started.proc;
  url = new URL(started.urls.card).origin;
});
after(() => server?.kill());

/** `a2a <args>` with `input` piped to stdin (cliHelpers' runA2A leaves stdin closed). */
function withStdin(args: string[], input: string, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [A2A_BIN, ...args], { cwd: REPO_ROOT, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const chat = (input: string, ...args: string[]) => withStdin(['chat', url, ...args], input);

function jsonLines<T>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** The task of each turn, from --json stream events (each turn opens with a task snapshot). */
function turns(stdout: string): Task[] {
  const tasks: Task[] = [];
  for (const event of jsonLines<StreamResponse>(stdout)) {
    if ('task' in event) tasks.push(event.task);
    else if ('statusUpdate' in event) {
      const last = tasks[tasks.length - 1];
      if (last && last.id === event.statusUpdate.taskId) last.status = event.statusUpdate.status;
    }
  }
  return tasks;
}

describe('a2a chat (piped stdin)', { concurrency: 3 }, () => {
  test('a question (input required) and its answer on the same task → completed; EOF → exit 0', async () => {
    const r = await chat('ask something\nblue\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'agent: something?\n▸ answer\nblue\nagent: Thanks, got your answer: blue\n');
    assert.equal(r.stderr, '');
  });

  test('--json: the answer continues the asking task in the same context', async () => {
    const r = await chat('ask your name\nAda\n', '--json');
    assert.equal(r.code, 0, r.stderr);
    const events = jsonLines<StreamResponse>(r.stdout);
    const ids = new Set(events.map((e) => ('task' in e ? e.task.id : 'statusUpdate' in e ? e.statusUpdate.taskId : 'artifactUpdate' in e ? e.artifactUpdate.taskId : '')));
    assert.equal(ids.size, 1, 'one task across both turns');
    const states = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status.state] : []));
    assert.deepEqual(states, ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']);
    const contexts = new Set(events.map((e) => ('task' in e ? e.task.contextId : 'statusUpdate' in e ? e.statusUpdate.contextId : undefined)).filter(Boolean));
    assert.equal(contexts.size, 1);
  });

  test('the context is kept across turns; /new starts a new one; /quit ends the session', async () => {
    const kept = turns((await chat('hi\nhi again\n', '--json')).stdout);
    assert.equal(kept.length, 2);
    assert.notEqual(kept[0]?.id, kept[1]?.id, 'a completed task is not continued');
    assert.equal(kept[0]?.contextId, kept[1]?.contextId);

    const fresh = await chat('hi\n/new\nhi\n/quit\nhi never sent\n', '--json');
    assert.equal(fresh.code, 0);
    const tasks = turns(fresh.stdout);
    assert.equal(tasks.length, 2, '/quit stops reading');
    assert.notEqual(tasks[0]?.contextId, tasks[1]?.contextId);

    const human = await chat('hi\n/new\n/quit\n');
    assert.equal(human.stdout, '▸ echo\nhi\n(new conversation)\n');
  });

  test('artifacts stream as they arrive; replies, failures and session commands are shown', async () => {
    const r = await chat('stream abc\nmsg yo\nfail oops\n/help\n/bogus\n');
    assert.equal(r.code, 0, r.stderr);
    const chunks = Array.from({ length: 10 }, (_, i) => `chunk ${i + 1}/10: abc`).join('\n');
    assert.equal(r.stdout, `▸ stream\n${chunks}\nagent: yo\n(failed) Failed as requested: oops\n`);
    assert.match(r.stderr, /^\/new {2}new conversation · \/quit {2}leave/m);
    assert.match(r.stderr, /^unknown command \/bogus \(\/help lists them\)$/m);
  });

  test('--no-stream: SendMessage turns (one JSON response per line), same conversation', async () => {
    const r = await chat('ask what\nthat\n', '--no-stream', '--json');
    assert.equal(r.code, 0, r.stderr);
    const results = jsonLines<SendMessageResponse>(r.stdout);
    assert.equal(results.length, 2);
    const [asked, answered] = results.map((x) => ('task' in x ? x.task : undefined));
    assert.equal(asked?.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(answered?.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(answered?.id, asked?.id);
    const human = await chat('ask what\nthat\n', '--no-stream');
    assert.equal(human.stdout, 'agent: what?\n▸ answer\nthat\nagent: Thanks, got your answer: that\n');
  });

  test('an error is shown and the session goes on: --task of an unknown task, then a fresh turn', async () => {
    const r = await chat('hello\nhi\n', '--task', 'no-such-task');
    assert.equal(r.code, 0);
    assert.match(r.stderr, /^error: TASK_NOT_FOUND: Task no-such-task not found/m);
    assert.equal(r.stdout, '▸ echo\nhi\n');
  });

  test('no input → exit 0, nothing printed; an unreachable agent → exit 4', async () => {
    const empty = await chat('');
    assert.deepEqual([empty.code, empty.stdout, empty.stderr], [0, '', '']);
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const down = await withStdin(['chat', `http://127.0.0.1:${port}`], 'hi\n');
    assert.equal(down.code, 4);
    assert.match(down.stderr, /client error: NETWORK/);
  });
});

describe('a2a send - (text from stdin)', () => {
  test('reads the whole of stdin as the text', async () => {
    const r = await withStdin(['send', url, '-', '--json'], 'multi\nline text\n');
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as SendMessageResponse;
    assert.ok('task' in result);
    assert.deepEqual(result.task.artifacts?.[0]?.parts, [{ text: 'multi\nline text' }]);
  });

  test('an empty stdin sends nothing: usage error, exit 2', async () => {
    for (const input of ['', '\n']) {
      const r = await withStdin(['send', url, '-'], input);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /^a2a send: <text> is "-" but stdin is empty: nothing to send\n/);
      assert.equal(r.stdout, '');
    }
  });
});
