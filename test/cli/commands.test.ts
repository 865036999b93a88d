/**
 * The client commands as real processes against `a2a serve` (the demo agent): `card`, `send`
 * (every demo behaviour, human and --json), `get`, `list`, `cancel`, and the exit codes —
 * 0 ok, 2 usage, 3 protocol error, 4 network/client error, 5 task FAILED/REJECTED/CANCELED.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AgentCard, ListTasksResponse, Message, Part, SendMessageResponse, Task } from '../../src/protocol/types.js';
import { serveHelp } from '../../src/cli/commands/serve.js';
import { runToExit, startServe, type A2AProcess } from './cliHelpers.js';

/** An in-memory store where `a2a serve` has --store (its default keeps tasks in ./.a2a). */
const MEMORY = serveHelp.includes('--store') ? ['--store', 'memory'] : [];

let server: A2AProcess | undefined;
let url = '';
before(async () => {
  const started = await startServe(MEMORY, { A2A_DEMO_SLOW_MS: '20000', A2A_DEMO_TICK_MS: '200' });
  server = started.proc;
  url = new URL(started.urls.card).origin;
});
after(() => server?.kill());

const a2a = (...args: string[]) => runToExit(args);

function json<T>(stdout: string): T {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    throw new Error(`not one JSON document: ${stdout}`);
  }
}

function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function sendTask(...args: string[]): Promise<Task> {
  const r = await a2a('send', url, ...args, '--json');
  const result = json<SendMessageResponse>(r.stdout);
  assert.ok('task' in result, r.stdout);
  return result.task;
}

describe('a2a card', { concurrency: 3 }, () => {
  test('pretty: name, version, description, interfaces (the chosen one marked), capabilities, skills', async () => {
    const r = await a2a('card', url);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^a2a-kit demo agent {2}v0\.1\.0$/m);
    assert.match(r.stdout, /A demo agent that exercises the A2A protocol/);
    assert.match(r.stdout, new RegExp(`^\\s+\\*\\s+JSONRPC\\s+1\\.0\\s+${url}/a2a/jsonrpc$`, 'm'));
    assert.match(r.stdout, new RegExp(`^\\s+HTTP\\+JSON\\s+1\\.0\\s+${url}/a2a/rest$`, 'm'));
    assert.match(r.stdout, /streaming yes · push notifications yes · extended card no/);
    assert.match(r.stdout, /^Skills \(9\)$/m);
    assert.match(r.stdout, /^\s+echo\s+Echo$/m);
    assert.match(r.stdout, /examples: "stream a story"/);
    assert.ok(!r.stdout.includes('\x1b'), 'no colours on a pipe');
    assert.equal(r.stderr, '');
  });

  test('--binding rest marks the HTTP+JSON interface', async () => {
    const r = await a2a('card', url, '--binding', 'rest');
    assert.match(r.stdout, /^\s+\*\s+HTTP\+JSON/m);
    assert.doesNotMatch(r.stdout, /^\s+\*\s+JSONRPC/m);
  });

  test('--json prints the card as received; the card URL itself works too', async () => {
    const r = await a2a('card', `${url}/.well-known/agent-card.json`, '--json');
    assert.equal(r.code, 0);
    const card = json<AgentCard>(r.stdout);
    assert.equal(card.name, 'a2a-kit demo agent');
    assert.equal(card.supportedInterfaces.length, 2);
    assert.equal(card.skills.length, 9);
  });

  test('no card there → exit 4, BAD_CARD with the HTTP status', async () => {
    const r = await a2a('card', `${url}/nothing/here.json`, '--json');
    assert.equal(r.code, 4);
    const { error } = json<{ error: { type: string; code: string; status: number } }>(r.stdout);
    assert.deepEqual([error.type, error.code, error.status], ['client', 'BAD_CARD', 404]);
    assert.match(r.stderr, /^a2a card: client error: BAD_CARD: No agent card at \S+ \(HTTP 404\)$/m);
  });

  test('--timeout against a server that never answers → exit 4 TIMEOUT (as a2a get), not NETWORK', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const r = await a2a('card', `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, '--timeout', '300', '--json');
      assert.equal(r.code, 4, r.stderr);
      assert.equal(json<{ error: { code: string } }>(r.stdout).error.code, 'TIMEOUT');
      assert.match(r.stderr, /^a2a card: client error: TIMEOUT: The call timed out$/m);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

describe('a2a send', { concurrency: 3 }, () => {
  test('hi → the completed task and its artifact; exit 0', async () => {
    const r = await a2a('send', url, 'hi');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^task\s+[0-9a-f-]{36}\s+completed$/m);
    assert.match(r.stdout, /^context\s+[0-9a-f-]{36}$/m);
    assert.match(r.stdout, /^artifact echo\n {2}hi$/m);
    assert.doesNotMatch(r.stdout, /^history/m, 'history only with --history');
  });

  test('--json: one JSON document, the SendMessageResponse', async () => {
    const task = await sendTask('hello world');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts?.[0]?.name, 'echo');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'hello world');
  });

  test('msg → the reply message (no task)', async () => {
    const r = await a2a('send', url, 'msg hello there');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'hello there\n');
    const j = await a2a('send', url, 'msg hello there', '--json');
    const result = json<{ message: Message }>(j.stdout);
    assert.equal(result.message.role, 'ROLE_AGENT');
    assert.equal(textOf(result.message.parts), 'hello there');
  });

  test('data → a JSON data artifact; file → a file summary', async () => {
    const data = await a2a('send', url, 'data xyz');
    assert.equal(data.code, 0);
    assert.match(data.stdout, /^artifact data\n {2}\{\n {4}"echo": "xyz",\n {4}"length": 3\n {2}\}$/m);
    const file = await a2a('send', url, 'file hello');
    assert.equal(file.code, 0);
    assert.match(file.stdout, /^artifact file\n {2}\[file\] echo\.txt · text\/plain · 5 B$/m);
    const task = await sendTask('file hello');
    assert.deepEqual(task.artifacts?.[0]?.parts, [{ raw: 'aGVsbG8=', filename: 'echo.txt', mediaType: 'text/plain' }]);
  });

  test('fail → exit 5 with the status message; reject → exit 5', async () => {
    const fail = await a2a('send', url, 'fail disk full');
    assert.equal(fail.code, 5);
    assert.match(fail.stdout, /^task\s+\S+\s+failed$/m);
    assert.match(fail.stdout, /^status\s+Failed as requested: disk full$/m);
    const reject = await a2a('send', url, 'reject no', '--json');
    assert.equal(reject.code, 5);
    assert.equal(json<{ task: Task }>(reject.stdout).task.status.state, 'TASK_STATE_REJECTED');
  });

  test('ask → input-required (exit 0) with how to answer; --task answers it on the same task', async () => {
    const r = await a2a('send', url, 'ask your name');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /input-required/);
    assert.match(r.stdout, /^status\s+your name\?$/m);
    const id = /^task\s+(\S+)/m.exec(r.stdout)?.[1] ?? '';
    assert.ok(r.stdout.includes(`answer with: a2a send ${url} "<answer>" --task ${id}`), r.stdout);
    const answered = await sendTask('Ada', '--task', id);
    assert.equal(answered.id, id);
    assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(answered.status.message?.parts), 'Thanks, got your answer: Ada');
    assert.equal(textOf(answered.artifacts?.[0]?.parts), 'Ada');
  });

  test('--data, --file, --context and --history shape the message and the result', async () => {
    const context = `ctx-${process.pid}-send`;
    const task = await sendTask('hi', '--data', '{"n": 1}', '--file', 'test/cli/fixtures/echoAgent.ts', '--context', context, '--history', '5');
    assert.equal(task.contextId, context);
    const parts = task.history?.[0]?.parts ?? [];
    assert.deepEqual(parts[0], { text: 'hi' });
    assert.deepEqual(parts[1], { data: { n: 1 } });
    assert.equal((parts[2] as { filename?: string }).filename, 'echoAgent.ts');
    assert.ok((parts[2] as { raw?: string }).raw?.length, 'the file bytes, base64');
    const human = await a2a('send', url, 'hi', '--history', '3');
    assert.match(human.stdout, /^history\s+1 message\n\s+user\s+hi$/m);
  });

  test('--no-wait returns the task while it works; --binding rest talks HTTP+JSON', async () => {
    const task = await sendTask('slow nowait', '--no-wait', '--binding', 'rest');
    assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);
    assert.equal((await a2a('cancel', url, task.id)).code, 0);
  });

  test('--timeout: a blocking send that takes longer → exit 4 TIMEOUT', async () => {
    const r = await a2a('send', url, 'slow long', '--timeout', '300', '--json');
    assert.equal(r.code, 4);
    assert.equal(json<{ error: { code: string } }>(r.stdout).error.code, 'TIMEOUT');
    assert.match(r.stderr, /TIMEOUT: The call timed out/);
  });
});

describe('a2a get, list, cancel', { concurrency: 3 }, () => {
  test('get: the task (exit 0), with --history its messages; --json', async () => {
    const created = await sendTask('hi');
    const r = await a2a('get', url, created.id, '--history', '10');
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`^task\\s+${created.id}\\s+completed$`, 'm'));
    assert.match(r.stdout, /^history\s+1 message$/m);
    const j = json<Task>((await a2a('get', url, created.id, '--json')).stdout);
    assert.equal(j.id, created.id);
    assert.equal(textOf(j.artifacts?.[0]?.parts), 'hi');
  });

  test('get of a FAILED task → exit 5', async () => {
    const failed = await sendTask('fail x');
    assert.equal((await a2a('get', url, failed.id)).code, 5);
  });

  test('list: tasks of a context as a table; --status (short names); --page-size with --all follows the pages', async () => {
    const context = `ctx-${process.pid}-list`;
    const ids = new Set<string>();
    for (const text of ['hi', 'fail x', 'hi', 'ask q']) ids.add((await sendTask(text, '--context', context)).id);

    const table = await a2a('list', url, '--context', context);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^TASK\s+CONTEXT\s+STATE\s+UPDATED\s+STATUS$/m);
    for (const id of ids) assert.match(table.stdout, new RegExp(`^${id}\\s+${context}\\s+\\S+`, 'm'));
    assert.match(table.stdout, /^4 of 4 tasks$/m);

    const completed = json<ListTasksResponse>((await a2a('list', url, '--context', context, '--status', 'completed', '--json')).stdout);
    assert.equal(completed.tasks.length, 2);
    assert.ok(completed.tasks.every((t) => t.status.state === 'TASK_STATE_COMPLETED'));
    for (const status of ['input-required', 'INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']) {
      const r = json<ListTasksResponse>((await a2a('list', url, '--context', context, '--status', status, '--json')).stdout);
      assert.deepEqual(
        r.tasks.map((t) => t.status.state),
        ['TASK_STATE_INPUT_REQUIRED'],
        status,
      );
    }

    const page = await a2a('list', url, '--context', context, '--page-size', '1');
    assert.match(page.stdout, /^1 of 4 tasks; next page: --page-token \S+ \(or --all\)$/m);
    const all = json<ListTasksResponse>((await a2a('list', url, '--context', context, '--page-size', '1', '--all', '--json')).stdout);
    assert.deepEqual(new Set(all.tasks.map((t) => t.id)), ids);
    assert.equal(all.nextPageToken, '');

    const since = json<ListTasksResponse>((await a2a('list', url, '--context', context, '--since', '2999-01-01T00:00:00Z', '--json')).stdout);
    assert.equal(since.tasks.length, 0);
    const none = await a2a('list', url, '--context', `${context}-empty`);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, 'no tasks\n');
  });

  test('cancel: a working task → canceled, exit 0; again → TASK_NOT_CANCELABLE exit 3; get → exit 5', async () => {
    const task = await sendTask('slow cancel me', '--no-wait');
    const r = await a2a('cancel', url, task.id);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^task\\s+${task.id}\\s+canceled$`, 'm'));
    const again = await a2a('cancel', url, task.id, '--json');
    assert.equal(again.code, 3);
    assert.equal(json<{ error: { code: string } }>(again.stdout).error.code, 'TASK_NOT_CANCELABLE');
    assert.equal((await a2a('get', url, task.id)).code, 5);
  });
});

describe('errors and exit codes', { concurrency: 3 }, () => {
  test('protocol error: get of an unknown task → exit 3, TASK_NOT_FOUND with reason and message', async () => {
    const r = await a2a('get', url, 'no-such-task');
    assert.equal(r.code, 3);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^a2a get: the agent answered: TASK_NOT_FOUND: Task no-such-task not found$/m);
    const j = await a2a('get', url, 'no-such-task', '--json', '--binding', 'rest');
    assert.equal(j.code, 3);
    assert.deepEqual(json<{ error: unknown }>(j.stdout).error, {
      type: 'protocol',
      code: 'TASK_NOT_FOUND',
      message: 'Task no-such-task not found',
      status: 404,
      metadata: { taskId: 'no-such-task' },
      exitCode: 3,
    });
  });

  test('network error: nothing listening → exit 4, NETWORK', async () => {
    const port = await closedPort();
    for (const args of [['get', `http://127.0.0.1:${port}`, 'x'], ['send', `http://127.0.0.1:${port}`, 'hi'], ['card', `http://127.0.0.1:${port}`]]) {
      const r = await a2a(...args);
      assert.equal(r.code, 4, args.join(' '));
      assert.match(r.stderr, new RegExp(`client error: NETWORK: Could not reach http://127\\.0\\.0\\.1:${port}/\\.well-known/agent-card\\.json \\(.*ECONNREFUSED`));
    }
    const j = await a2a('list', `http://127.0.0.1:${port}`, '--json');
    assert.equal(json<{ error: { type: string; code: string } }>(j.stdout).error.code, 'NETWORK');
  });

  test('https:// to a plain HTTP server → exit 4, one line: TLS handshake failed (not OpenSSL internals)', async () => {
    const r = await a2a('send', url.replace(/^http:/, 'https:'), 'hi');
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /^a2a send: client error: NETWORK: Could not reach https:.* \(TLS handshake failed: is the server speaking plain HTTP\?\)\n$/);
    assert.doesNotMatch(r.stderr, /SSL routines|openssl/);
  });

  test('--binding grpc against an agent without a gRPC interface → exit 4 NO_COMPATIBLE_INTERFACE (or 2 without the binding)', async () => {
    const r = await a2a('send', url, 'hi', '--binding', 'grpc');
    if (r.code === 2) {
      assert.match(r.stderr, /gRPC binding not available/);
    } else {
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /NO_COMPATIBLE_INTERFACE: The agent offers JSONRPC 1\.0, HTTP\+JSON 1\.0/);
    }
  });

  const usage: [string[], RegExp][] = [
    [['send'], /missing <url> <text>/],
    [['send', 'URL'], /missing <text>/],
    [['send', 'http://x', 'a', 'b'], /unexpected argument "b"/],
    [['send', 'not a url', 'hi'], /<url> must be an absolute http\(s\) URL/],
    [['send', 'ftp://x', 'hi'], /<url> must be http\(s\)/],
    [['send', 'http://x', 'hi', '--data', '{nope'], /--data must be JSON/],
    [['send', 'http://x', 'hi', '--file', 'no/such/file.txt'], /--file: cannot read no\/such\/file\.txt \(ENOENT\)/],
    // Exit 2, not an internal error (exit 1): a --file URL that does not parse.
    [['send', 'http://x', 'hi', '--file', 'http://'], /--file: not a valid URL: http:\/\/$/m],
    [['send', 'http://x', 'hi', '--file', 'https://ex ample.com/a'], /--file: not a valid URL: https:\/\/ex ample\.com\/a$/m],
    [['stream', 'http://x', 'hi', '--file', 'http://[::1'], /--file: not a valid URL: http:\/\/\[::1$/m],
    [['send', 'http://x', 'hi', '--binding', 'soap'], /--binding must be jsonrpc, rest or grpc/],
    [['send', 'http://x', 'hi', '--history=-1'], /--history must be an integer ≥ 0, got "-1"/],
    [['send', 'http://x', 'hi', '--history', 'x'], /--history must be an integer ≥ 0/],
    [['send', 'http://x', 'hi', '--timeout', '0'], /--timeout must be an integer ≥ 1/],
    [['send', 'http://x', 'hi', '--header', 'novalue'], /--header must be NAME=VALUE/],
    [['stream', 'http://x', 'hi', '--no-wait'], /--no-wait is for a2a send/],
    [['get', 'http://x'], /missing <task>/],
    [['list', 'http://x', '--status', 'bogus'], /--status must be one of submitted, working, input-required/],
    [['list', 'http://x', '--page-size', '0'], /--page-size must be an integer from 1 to 100/],
    [['list', 'http://x', '--since', 'yesterday'], /--since must be an ISO 8601 time/],
    [['cancel', 'http://x', 't', '--bogus'], /unknown option --bogus \(an argument starting with "-" goes after "--"\)$/m],
    [['send', 'http://x', 'hi', '--history', '-1'], /--history needs a value \(one starting with "-" is written --history=-…\)$/m],
    [['send', 'http://x', 'hi', '--json=yes'], /--json takes no value$/m],
    [['card'], /missing <url>/],
    [['chat'], /missing <url>/],
    [['subscribe', 'http://x'], /missing <task>/],
    // An empty id never reaches the agent, nor starts a new task (send --task ""): exit 2, as push create --id "".
    [['send', 'http://x', 'hi', '--task', ''], /--task must not be empty$/m],
    [['stream', 'http://x', 'hi', '--context', ' '], /--context must not be empty$/m],
    [['chat', 'http://x', '--task', ''], /--task must not be empty$/m],
    [['list', 'http://x', '--context', ''], /--context must not be empty$/m],
    [['get', 'http://x', ''], /<task> must not be empty$/m],
    [['cancel', 'http://x', ' '], /<task> must not be empty$/m],
    [['subscribe', 'http://x', ''], /<task> must not be empty$/m],
    [['push', 'get', 'http://x', 't', ''], /<config-id> must not be empty$/m],
    [['push', 'delete', 'http://x', '', 'c'], /<task> must not be empty$/m],
  ];
  for (const [args, message] of usage) {
    test(`a2a ${args.join(' ')} → exit 2 with the message in one line, then the way to the help`, async () => {
      const r = await a2a(...args);
      assert.equal(r.code, 2, `stdout: ${r.stdout} stderr: ${r.stderr}`);
      const lines = r.stderr.split('\n');
      assert.deepEqual([lines.length, lines[1], lines[2]], [3, `see a2a ${args[0]} --help`, ''], r.stderr);
      assert.match(lines[0] ?? '', new RegExp(`^a2a ${args[0]}: `));
      assert.match(lines[0] ?? '', message);
      assert.equal(r.stdout, '');
    });
  }

  test('with --json a usage error is also the JSON error object on stdout', async () => {
    for (const args of [['send', 'http://x', 'hi', '--json', '--bogus'], ['get', 'http://x', '--json'], ['list', 'http://x', '--page-size', '0', '--json'], ['send', 'http://x', 'hi', '--file', 'http://', '--json']]) {
      const r = await a2a(...args);
      assert.equal(r.code, 2, r.stderr);
      const { error } = json<{ error: { type: string; message: string; exitCode: number } }>(r.stdout);
      assert.deepEqual([error.type, error.exitCode], ['usage', 2], args.join(' '));
      assert.ok(r.stderr.startsWith(`a2a ${args[0]}: ${error.message}\n`), r.stderr);
    }
    const text = await a2a('send', 'http://x', 'hi', '--bogus', '--', '--json');
    assert.equal(text.stdout, '', 'a --json after "--" is text, not the option');
  });

  test('with --json an unknown command, or none, is the JSON usage error on stdout too', async () => {
    for (const [args, message] of [
      [['frobnicate', '--json'], 'unknown command "frobnicate"'],
      [['--json'], 'missing <command> (options go after it: a2a <command> --json)'],
    ] as const) {
      const r = await a2a(...args);
      assert.equal(r.code, 2, r.stderr);
      const { error } = json<{ error: { type: string; message: string; exitCode: number } }>(r.stdout);
      assert.deepEqual(error, { type: 'usage', message, exitCode: 2 }, args.join(' '));
      assert.equal(r.stderr, `a2a: ${message}\nsee a2a --help\n`);
    }
  });

  test('a2a card --help lists exit code 6 (signature not verified)', async () => {
    const r = await a2a('card', '--help');
    assert.match(r.stdout, /Exit codes: .*\n.*,\n6 card signature not verified \(--verify\)/);
  });

  test('--help of every command: usage, options and examples on stdout, exit 0', async () => {
    const expected: Record<string, string[]> = {
      card: ['--json', '--binding'],
      send: ['--data', '--file', '--task', '--context', '--no-wait', '--history', '--header', '--api-key', 'A2A_TOKEN', '--timeout', '--verbose'],
      stream: ['--data', '--file', '--task', '--context', '--json'],
      get: ['--history'],
      list: ['--context', '--status', '--since', '--page-size', '--all'],
      cancel: ['--json'],
      subscribe: ['--json'],
      chat: ['/new', '/quit', '--no-stream', '--context'],
    };
    await Promise.all(
      Object.entries(expected).map(async ([command, options]) => {
        const r = await a2a(command, '--help');
        assert.equal(r.code, 0, command);
        assert.match(r.stdout, new RegExp(`^Usage: a2a ${command} <url>`), command);
        assert.match(r.stdout, new RegExp(`Examples:\\n[\\s\\S]*a2a ${command} http`), command);
        assert.match(r.stdout, /Exit codes: 0 ok, 2 usage, 3 error from the agent, 4 network or client error/);
        for (const option of options) assert.ok(r.stdout.includes(option), `${command} ${option}`);
        assert.equal(r.stderr, '');
      }),
    );
  });

  test('a2a --help lists the client commands', async () => {
    const r = await a2a('--help');
    for (const command of ['card', 'send', 'stream', 'chat', 'get', 'list', 'cancel', 'subscribe']) {
      assert.match(r.stdout, new RegExp(`^\\s+${command}\\s+\\S`, 'm'), command);
    }
  });
});
