/**
 * `a2a serve` as a real process: printed URLs, the card it serves and whether its interface URLs
 * answer, the built-in and custom agents, option handling, help and exit codes.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCard, Message, Part, Task } from '../../src/protocol/types.js';
import { runA2A, runToExit, startServe, type A2AProcess, type ServeUrls } from './cliHelpers.js';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { A2AError } from '../../src/protocol/errors.js';

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

async function serveWith(args: string[] = [], env: Record<string, string> = {}): Promise<ServeUrls> {
  const { proc, urls } = await startServe(args, env);
  procs.push(proc);
  return urls;
}

const V = { 'a2a-version': '1.0', 'content-type': 'application/json' };
let n = 0;
const message = (text: string, messageId = `cli-${process.pid}-${++n}`): Message => ({ messageId, role: 'ROLE_USER', parts: [{ text }] });

async function jsonRpc<T>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: V, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  assert.equal(res.status, 200);
  const env = (await res.json()) as { result?: T; error?: unknown };
  assert.equal(env.error, undefined, JSON.stringify(env.error));
  return env.result as T;
}

async function rest<T>(base: string, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, { method: 'POST', headers: V, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

async function fetchCard(url: string): Promise<AgentCard> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  return (await res.json()) as AgentCard;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

describe('a2a serve (demo agent)', () => {
  test('--json prints one JSON line with absolute localhost URLs of the card and both bindings', async () => {
    const urls = await serveWith();
    assert.deepEqual(Object.keys(urls).sort(), ['agent', 'card', 'jsonrpc', 'listening', 'push', 'rest', 'store']);
    assert.equal(urls.agent, 'a2a-kit demo agent');
    const push = (urls as unknown as Record<string, unknown>).push;
    assert.ok(typeof push === 'string' && push !== 'off', `the demo agent declares push notifications: ${String(push)}`);
    const card = new URL(urls.card);
    assert.equal(card.protocol, 'http:');
    assert.equal(card.hostname, 'localhost');
    assert.ok(Number(card.port) > 0, 'the real port, not 0');
    assert.equal(card.pathname, '/.well-known/agent-card.json');
    assert.equal(urls.jsonrpc, `http://localhost:${card.port}/a2a/jsonrpc`);
    assert.equal(urls.rest, `http://localhost:${card.port}/a2a/rest`);
  });

  test('the card at the printed URL lists absolute localhost interfaces that answer SendMessage', async () => {
    const urls = await serveWith();
    const card = await fetchCard(urls.card);
    assert.equal(card.name, 'a2a-kit demo agent');
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion]),
      [
        ['JSONRPC', urls.jsonrpc, '1.0'],
        ['HTTP+JSON', urls.rest, '1.0'],
      ],
    );
    for (const i of card.supportedInterfaces) {
      const u = new URL(i.url); // throws unless absolute
      assert.equal(u.hostname, 'localhost');
      assert.equal(u.port, new URL(urls.card).port);
    }
    const [rpcIface, restIface] = card.supportedInterfaces as unknown as [{ url: string }, { url: string }];

    const viaRpc = await jsonRpc<{ task: Task }>(rpcIface.url, 'SendMessage', { message: message('hi') });
    assert.equal(viaRpc.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(viaRpc.task.artifacts?.[0]?.name, 'echo');
    assert.equal(textOf(viaRpc.task.artifacts?.[0]?.parts), 'hi');

    const viaRest = await rest<{ task: Task }>(restIface.url, '/message:send', { message: message('hi') });
    assert.equal(viaRest.status, 200);
    assert.equal(viaRest.body.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(viaRest.body.task.artifacts?.[0]?.parts), 'hi');

    // The two bindings share one store: the REST task is visible over JSON-RPC.
    const again = await jsonRpc<Task>(rpcIface.url, 'GetTask', { id: viaRest.body.task.id });
    assert.equal(again.status.state, 'TASK_STATE_COMPLETED');
  });

  test('human output names the Agent Card, JSON-RPC and HTTP+JSON URLs', async () => {
    const proc = runA2A(['serve', '--port', '0', '--store', 'memory']);
    procs.push(proc);
    await proc.waitForLine(/HTTP\+JSON/);
    const out = proc.stdout;
    assert.match(out, /^a2a-kit demo agent is listening$/m);
    const card = /^\s+Agent Card\s+(http:\/\/localhost:\d+\/\.well-known\/agent-card\.json)$/m.exec(out)?.[1];
    const rpc = /^\s+JSON-RPC\s+(http:\/\/localhost:\d+\/a2a\/jsonrpc)$/m.exec(out)?.[1];
    const restUrl = /^\s+HTTP\+JSON\s+(http:\/\/localhost:\d+\/a2a\/rest)$/m.exec(out)?.[1];
    assert.ok(card && rpc && restUrl, out);
    assert.equal(out.trim().startsWith('{'), false, 'not JSON');
    const served = await fetchCard(card);
    assert.deepEqual(
      served.supportedInterfaces.map((i) => i.url),
      [rpc, restUrl],
    );
  });

  test('--public-url is written into the card (and the printed URLs); the listener still answers locally', async () => {
    const port = await freePort();
    const urls = await serveWith(['--port', String(port), '--public-url', 'https://agent.example.com/']);
    assert.equal(urls.card, 'https://agent.example.com/.well-known/agent-card.json');
    assert.equal(urls.jsonrpc, 'https://agent.example.com/a2a/jsonrpc');
    assert.equal(urls.rest, 'https://agent.example.com/a2a/rest');
    const card = await fetchCard(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
    assert.deepEqual(
      card.supportedInterfaces.map((i) => i.url),
      ['https://agent.example.com/a2a/jsonrpc', 'https://agent.example.com/a2a/rest'],
    );
    const { task } = await jsonRpc<{ task: Task }>(`http://127.0.0.1:${port}/a2a/jsonrpc`, 'SendMessage', { message: message('hi') });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('a2a serve --max-body', () => {
  test('R15 --max-body is also the gRPC request message limit: over it RESOURCE_EXHAUSTED on gRPC as 413 on HTTP, under it served on both', async () => {
    const urls = (await serveWith(['--max-body', '10000', '--grpc-port', '0'])) as ServeUrls & { grpc: string };
    const text = (size: number): string => `hi${' '.repeat(size)}`;
    const overHttp = await fetch(urls.jsonrpc, { method: 'POST', headers: V, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message(text(20_000)) } }) });
    assert.equal(overHttp.status, 413);
    const client = createGrpcClient(urls.grpc);
    try {
      await assert.rejects(
        client.sendMessage({ message: message(text(20_000)) }),
        // grpc-js's RESOURCE_EXHAUSTED "Received message larger than max (N vs 10000)", read by the client.
        (e: unknown) => A2AError.is(e) && e.reason === 'PAYLOAD_TOO_LARGE' && /larger than max \(\d+ vs 10000\)/.test(e.message),
      );
      const viaGrpc = await client.sendMessage({ message: message(text(5_000)) });
      assert.ok('task' in viaGrpc && viaGrpc.task.status.state === 'TASK_STATE_COMPLETED');
    } finally {
      client.close();
    }
    const viaHttp = await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message(text(5_000)) });
    assert.equal(viaHttp.task.status.state, 'TASK_STATE_COMPLETED');
  });

  test('a body over --max-body is answered 413; a small one is served', async () => {
    const urls = await serveWith(['--max-body', '500']);
    const big = await fetch(urls.jsonrpc, {
      method: 'POST',
      headers: V,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message(`hi${' '.repeat(600)}`) } }),
    });
    assert.equal(big.status, 413);
    const env = (await big.json()) as { error: { code: number } };
    assert.equal(env.error.code, -32600);
    const ok = await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message('hi') });
    assert.equal(ok.task.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('a2a serve --max-history-messages / --max-history-chars', () => {
  test('R16 a follow-up past --max-history-messages is refused with 429 RESOURCE_EXHAUSTED naming the cap; a bad value exits 2', async () => {
    const urls = await serveWith(['--max-history-messages', '1']);
    const first = await rest<{ task: Task }>(urls.rest, '/message:send', { message: message('ask your name?') });
    assert.equal(first.body.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const followUp = { ...message('Ada'), taskId: first.body.task.id, contextId: first.body.task.contextId };
    const refused = await rest<{ error: { status: string; details: { metadata?: Record<string, string> }[] } }>(urls.rest, '/message:send', { message: followUp });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.status, 'RESOURCE_EXHAUSTED');
    assert.deepEqual(
      refused.body.error.details.map((d) => d.metadata?.limit),
      ['historyMessages'],
    );
    const bad = await runToExit(['serve', '--store', 'memory', '--port', '0', '--max-history-chars', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--max-history-chars must be an integer ≥ 1/);
  });
});

describe('a2a serve --max-list-response-chars', () => {
  test('LIST-02 R16 a ListTasks page ends once its tasks pass --max-list-response-chars, with a token to the rest; a bad value exits 2', async () => {
    const urls = await serveWith(['--max-list-response-chars', '1']);
    for (const text of ['hi one', 'hi two']) await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message(text) });
    const first = await jsonRpc<{ tasks: Task[]; nextPageToken: string; totalSize: number }>(urls.jsonrpc, 'ListTasks', { pageSize: 10 });
    assert.equal(first.tasks.length, 1, 'one task always comes, however small the cap');
    assert.equal(first.totalSize, 2);
    const second = await jsonRpc<{ tasks: Task[]; nextPageToken: string }>(urls.jsonrpc, 'ListTasks', { pageSize: 10, pageToken: first.nextPageToken });
    assert.equal(second.tasks.length, 1);
    assert.notEqual(second.tasks[0]?.id, first.tasks[0]?.id);
    assert.equal(second.nextPageToken, '');
    const bad = await runToExit(['serve', '--store', 'memory', '--port', '0', '--max-list-response-chars', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--max-list-response-chars must be an integer ≥ 1/);
  });
});

describe('a2a serve --auth-required-stream-ms', () => {
  test('AUTHZ-03 A2 a stream stays open at AUTH_REQUIRED and follows the out-of-band resumption to COMPLETED; a bad value exits 2', async () => {
    const urls = await serveWith(['--agent', './test/cli/fixtures/outOfBandAuthAgent.ts', '--auth-required-stream-ms', '5000']);
    const res = await fetch(`${urls.rest}/message:stream`, { method: 'POST', headers: { ...V, accept: 'text/event-stream' }, body: JSON.stringify({ message: message('calendar') }) });
    const states = [...(await res.text()).matchAll(/"state":"TASK_STATE_(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(states.slice(-3), ['AUTH_REQUIRED', 'WORKING', 'COMPLETED']);
    const bad = await runToExit(['serve', '--store', 'memory', '--port', '0', '--auth-required-stream-ms', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--auth-required-stream-ms must be an integer from 0/);
  });
});

describe('a2a serve --heartbeat-ms', () => {
  test('R24 an idle stream carries a `: keep-alive` comment every N ms; a bad value exits 2', async () => {
    const urls = await serveWith(['--heartbeat-ms', '50'], { A2A_DEMO_SLOW_MS: '60000', A2A_DEMO_TICK_MS: '30000' });
    const controller = new AbortController();
    const res = await fetch(`${urls.rest}/message:stream`, { method: 'POST', headers: { ...V, accept: 'text/event-stream' }, body: JSON.stringify({ message: message('slow x') }), signal: controller.signal });
    let text = '';
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const started = Date.now();
    while ((text.match(/^: keep-alive$/gm) ?? []).length < 3 && Date.now() - started < 5_000) text += decoder.decode((await reader.read()).value, { stream: true });
    controller.abort();
    assert.ok((text.match(/^: keep-alive$/gm) ?? []).length >= 3, text);
    const bad = await runToExit(['serve', '--store', 'memory', '--port', '0', '--heartbeat-ms', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--heartbeat-ms must be an integer from 10/);
  });
});

describe('a2a serve --agent', () => {
  test('an agent that throws: stderr names the task and context and carries the stack', async () => {
    const { proc, urls } = await startServe(['--agent', 'conformance']);
    procs.push(proc);
    const { task } = await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message('x', `tck-reject-task-${process.pid}`) });
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    // The report is written before the FAILED task is: wait for the pipe to deliver it.
    for (let i = 0; i < 200 && !proc.stderr.includes('\n    at '); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(
      proc.stderr.startsWith(`a2a serve: error (agent, task ${task.id}, context ${task.contextId}): Error: rejected\n    at `),
      proc.stderr,
    );
    assert.match(proc.stderr, /conformance\.ts:\d+/, 'the stack points into the agent');
  });

  test('conformance: tck-complete-task-1 completes with "Hello from TCK"', async () => {
    const urls = await serveWith(['--agent', 'conformance']);
    assert.equal(urls.agent, 'a2a-kit conformance agent');
    const card = await fetchCard(urls.card);
    assert.equal(card.name, 'a2a-kit conformance agent');
    const { task } = await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message('anything', 'tck-complete-task-1') });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(task.status.message?.parts), 'Hello from TCK');
    // And over REST, another prefix.
    const viaRest = await rest<{ message: Message }>(urls.rest, '/message:send', { message: message('x', 'tck-message-response-7') });
    assert.equal(viaRest.status, 200);
    assert.equal(textOf(viaRest.body.message.parts), 'Direct message response');
  });

  test('a module path with a default export { card, executor }', async () => {
    const urls = await serveWith(['--agent', './test/cli/fixtures/echoAgent.ts']);
    assert.equal(urls.agent, 'fixture echo agent');
    const card = await fetchCard(urls.card);
    assert.equal(card.name, 'fixture echo agent');
    assert.equal(card.version, '9.9.9');
    assert.deepEqual(
      card.supportedInterfaces.map((i) => i.url),
      [urls.jsonrpc, urls.rest],
      'the host fills in the interfaces',
    );
    const { task } = await jsonRpc<{ task: Task }>(urls.jsonrpc, 'SendMessage', { message: message('ping') });
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'fixture: ping');
    assert.equal(textOf(task.status.message?.parts), 'fixture done');
  });

  test('a module exporting `agent`', async () => {
    const urls = await serveWith(['--agent', 'test/cli/fixtures/namedAgent.ts']);
    assert.equal(urls.agent, 'fixture named agent');
    const reply = await jsonRpc<{ message: Message }>(urls.jsonrpc, 'SendMessage', { message: message('pong') });
    assert.equal(textOf(reply.message.parts), 'named: pong');
  });

  test('a module exporting half an agent: exit 2, one line naming each wrong part (the card per the decoder)', async () => {
    const partial = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', './test/cli/fixtures/partialAgent.ts']);
    assert.equal(partial.code, 2);
    assert.equal(partial.stdout, '');
    assert.equal(
      partial.stderr,
      'a2a serve: --agent ./test/cli/fixtures/partialAgent.ts: card.description is required; card.version is required; card.capabilities is required; ' +
        'card.defaultInputModes is required; card.defaultOutputModes is required; card.skills is required; ' +
        'executor.execute is not a function (expected an object { card, executor } — see docs/agents.md)\n',
    );
  });

  test('a module that is not an agent, or a missing one, exits 2 with one line', async () => {
    const bad = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', './test/cli/fixtures/badAgent.ts']);
    assert.equal(bad.code, 2);
    // A card without an executor: the message says so (not the generic one).
    assert.equal(bad.stderr, 'a2a serve: --agent ./test/cli/fixtures/badAgent.ts: executor is missing (expected an object { card, executor } — see docs/agents.md)\n');
    assert.equal(bad.stdout, '');
    const nothing = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', './test/cli/fixtures/notAnAgent.ts']);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /^a2a serve: --agent \.\/test\/cli\/fixtures\/notAnAgent\.ts must export .*\{ card, executor \}.*\n$/);
    const missing = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', './test/cli/fixtures/nope.ts']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^a2a serve: --agent \.\/test\/cli\/fixtures\/nope\.ts: no such file \(.*nope\.ts\)\n$/);
  });

  test('a module taken for the other module format: exit 2, one line saying what to change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-module-format-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{"name": "commonjs-scope"}');
      writeFileSync(join(dir, 'commonjs.ts'), "const { defineAgent } = require('a2a-kit/server');\nmodule.exports = defineAgent;\n");
      writeFileSync(join(dir, 'esm.cjs'), 'export default { card: {}, executor: {} };\n');
      const commonjs = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', join(dir, 'commonjs.ts')]);
      assert.equal(commonjs.code, 2);
      assert.match(commonjs.stderr, /^a2a serve: --agent .*commonjs\.ts: the module failed to load: require is not defined in ES module scope.* \(it was loaded as an ES module: write import\/export, or rename it to \.cts for CommonJS\)\n$/);
      const esm = await runToExit(['serve', '--port', '0', '--store', 'memory', '--agent', join(dir, 'esm.cjs')]);
      assert.equal(esm.code, 2);
      assert.match(esm.stderr, /^a2a serve: --agent .*esm\.cjs: the module failed to load: Unexpected token 'export' \(a \.cjs file is CommonJS: rename it to \.mjs to write import\/export\)$/m, 'node may warn first');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Holds a port on 127.0.0.1 until the returned close() is called. */
function holdPort(): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

describe('setup mistakes: one line on stderr and the documented exit code (never 1)', { concurrency: true }, () => {
  async function fails(args: string[], code: number, message: RegExp): Promise<void> {
    const r = await runToExit(args);
    assert.equal(r.code, code, `stdout: ${r.stdout} stderr: ${r.stderr}`);
    assert.match(r.stderr, /^a2a (serve|db): [^\n]+\n$/, `one line: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }

  test('--port in use → exit 4, as a2a webhook listen; with --json a "client" error object', async () => {
    const held = await holdPort();
    try {
      await fails(['serve', '--store', 'memory', '--port', String(held.port)], 4, new RegExp(`port ${held.port} is in use on 127\\.0\\.0\\.1: .*--port`));
      const json = await runToExit(['serve', '--store', 'memory', '--port', String(held.port), '--json']);
      assert.equal(json.code, 4);
      const error = (JSON.parse(json.stdout.trim()) as { error: { type: string; exitCode: number } }).error;
      assert.deepEqual([error.type, error.exitCode], ['client', 4]);
    } finally {
      await held.close();
    }
  });

  test('--grpc-port in use → exit 4, without grpc-js\'s own log line', async () => {
    const held = await holdPort();
    try {
      await fails(['serve', '--store', 'memory', '--port', '0', '--grpc-port', String(held.port)], 4, new RegExp(`gRPC port ${held.port} is in use on 127\\.0\\.0\\.1: .*--grpc-port`));
    } finally {
      await held.close();
    }
  });

  test('--tenants: a missing file, a file that is not JSON → exit 2', async () => {
    await fails(['serve', '--store', 'memory', '--port', '0', '--tenants', './test/cli/fixtures/nope.json'], 2, /--tenants \.\/test\/cli\/fixtures\/nope\.json: no such file/);
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tenants-'));
    try {
      writeFileSync(join(dir, 'tenants.json'), '{"acme": ');
      await fails(['serve', '--store', 'memory', '--port', '0', '--tenants', join(dir, 'tenants.json')], 2, /--tenants .*tenants\.json: not JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--tls-cert/--tls-key: a missing file, a file that is not PEM → exit 2', async () => {
    await fails(['serve', '--store', 'memory', '--port', '0', '--tls-cert', 'nope.pem', '--tls-key', 'package.json'], 2, /--tls-cert nope\.pem: no such file/);
    await fails(['serve', '--store', 'memory', '--port', '0', '--tls-cert', 'package.json', '--tls-key', 'nope.pem'], 2, /--tls-key nope\.pem: no such file/);
    await fails(['serve', '--store', 'memory', '--port', '0', '--tls-cert', 'package.json', '--tls-key', 'package.json'], 2, /--tls-cert\/--tls-key: not a usable certificate and key/);
  });

  test('a card requiring authentication without --auth-config → exit 2 naming the flag', async () => {
    await fails(['serve', '--store', 'memory', '--port', '0', '--agent', './test/cli/fixtures/securedAgent.ts'], 2, /requires authentication .*--auth-config FILE/);
  });

  test('SEC-10 XCARD-03 an agent offering an extended card without authentication → exit 2, one line naming the fix', async () => {
    await fails(['serve', '--store', 'memory', '--port', '0', '--agent', './test/cli/fixtures/extendedCardAgent.ts'], 2, /offers an extended Agent Card, which only authenticated callers may read .*--auth-config FILE/);
  });

  test('a PostgreSQL store that is down → exit 4, the password masked (a2a db migrate, a2a serve)', async () => {
    const store = `postgres://a2a:s3cret-pw@127.0.0.1:${await freePort()}/agents`;
    const unreachable = /cannot reach the database of --store postgres:\/\/a2a:\*\*\*@127\.0\.0\.1:\d+\/agents: connection refused/;
    await fails(['db', 'migrate', '--store', store], 4, unreachable);
    await fails(['serve', '--port', '0', '--store', store], 4, unreachable);
    for (const args of [['db', 'migrate', '--store', store], ['serve', '--port', '0', '--store', store]]) {
      assert.doesNotMatch((await runToExit(args)).stderr, /s3cret/);
    }
  });
});

describe('arguments, help and exit codes', { concurrency: true }, () => {
  const SERVE_USAGE = /Usage: a2a serve \[options\]/;

  for (const [args, message] of [
    [['serve', '--port', 'abc'], /--port must be 0\.\.65535, got abc/],
    [['serve', '--port', '70000'], /--port must be 0\.\.65535/],
    [['serve', '--port=-1'], /--port must be 0\.\.65535, got -1/],
    [['serve', '--bogus'], /unknown option --bogus/],
    [['serve', '--max-body', '0'], /--max-body must be a positive integer/],
    [['serve', 'extra'], /unexpected argument|positional/i],
    [['serve', '--public-url', 'notaurl'], /--public-url must be an absolute http\(s\) URL, got "notaurl"/],
    [['serve', '--public-url', 'ftp://agent.example'], /--public-url must be http\(s\)/],
    // Not "gRPC port … is in use" (exit 4): what holds it would be our own HTTP listener.
    [['serve', '--store', 'memory', '--port', '18190', '--grpc-port', '18190'], /--grpc-port must differ from --port \(18190\): HTTP and gRPC listen on separate ports/],
  ] as const) {
    test(`a2a ${args.join(' ')} → exit 2, the message and "see a2a serve --help" on stderr`, async () => {
      const r = await runToExit([...args]);
      assert.equal(r.code, 2, `stdout: ${r.stdout} stderr: ${r.stderr}`);
      assert.match(r.stderr, /^a2a serve: [^\n]+\nsee a2a serve --help\n$/);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '', 'nothing on stdout, no server started');
    });
  }

  test(
    'a2a serve --port "" → exit 2',
    async () => {
      const proc = runA2A(['serve', '--port', '', '--json']);
      procs.push(proc);
      // Resolves at once when a2a exits; the long wait only matters on a loaded machine, where
      // starting tsx alone can take more than 10 s (a kill then made the code null, not 2).
      const started = await proc.waitForLine(/^\{"card"/, 60_000).then(
        () => true,
        () => false,
      );
      proc.kill();
      const { code } = await proc.exited;
      assert.equal(started, false, `a server started: ${proc.stdout}`);
      assert.equal(code, 2);
      assert.match(proc.stdout, /^\{"error":\{"type":"usage","message":"--port must be 0\.\.65535, got an empty value","exitCode":2\}\}\n$/, 'with --json, the error as JSON');
    },
  );

  test('a2a serve --help and -h → exit 0, usage with options and examples on stdout', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await runToExit(['serve', flag]);
      assert.equal(r.code, 0);
      assert.match(r.stdout, SERVE_USAGE);
      for (const option of ['--agent', '--host', '--port', '--public-url', '--max-body', '--json']) assert.ok(r.stdout.includes(option), option);
      assert.match(r.stdout, /Examples:\n\s+a2a serve\n/);
      assert.match(r.stdout, /a2a serve --agent conformance/);
      assert.equal(r.stderr, '');
    }
  });

  test('a2a --help / -h / help → exit 0 and list the commands', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await runToExit([flag]);
      assert.equal(r.code, 0, flag);
      assert.match(r.stdout, /^Usage: a2a <command> \[options\]/);
      assert.match(r.stdout, /^\s+serve\s+run an agent/m);
      assert.match(r.stdout, /a2a <command> --help/);
    }
  });

  test('a2a --help shows examples', async () => {
    const r = await runToExit(['--help']);
    assert.match(r.stdout, /Examples:/);
  });

  test('a2a with no command → exit 2 with the usage', async () => {
    const r = await runToExit([]);
    assert.equal(r.code, 2);
    assert.match(r.stdout + r.stderr, /Usage: a2a <command>/);
  });

  test('an unknown command → exit 2, the message and "see a2a --help" on stderr', async () => {
    const r = await runToExit(['frobnicate', '--x']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'a2a: unknown command "frobnicate"\nsee a2a --help\n');
    assert.equal(r.stdout, '');
  });
});
