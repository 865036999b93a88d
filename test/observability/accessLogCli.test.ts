/**
 * OBS-03: `a2a serve --access-log` writes one JSON line per A2A call on stdout, after the
 * `--json` listening line (still stdout's first line), with the principal id and the outcome,
 * never a credential: no API key, no Authorization value, no query string. `--metrics` serves
 * GET /metrics. A real process, API key authentication from --auth-config.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type A2AProcess, type ServeUrls } from '../cli/cliHelpers.js';

const KEY = 'access-log-key-7c1f3b';
const BEARER = 'bearer-secret-9e4a21';
let proc: A2AProcess | undefined;
let urls: ServeUrls & { metrics?: string };

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-access-log-'));
  writeFileSync(
    join(dir, 'agent.mts'),
    `export default {
  card: {
    name: 'logged', description: 'd', version: '1', capabilities: { streaming: true },
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
    securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: { apiKey: {} } }],
  },
  executor: { async execute(ctx, task) { await task.complete('hello ' + (ctx.principal ? ctx.principal.id : '-')); } },
};
`,
  );
  const sha = createHash('sha256').update(KEY).digest('hex');
  writeFileSync(join(dir, 'auth.json'), JSON.stringify({ apiKey: { keys: { [`sha256:${sha}`]: 'log-client' } } }));
  const started = await startServe(['--agent', join(dir, 'agent.mts'), '--auth-config', join(dir, 'auth.json'), '--access-log', '--metrics']);
  proc = started.proc;
  urls = started.urls;
});

after(() => proc?.kill());

function rpc(method: string, params: object, headers: Record<string, string>): Promise<Response> {
  return fetch(urls.jsonrpc as string, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

test('OBS-03 access log lines: one per call, after the --json line, without credentials', async () => {
  const p = proc as A2AProcess;
  const msg = { message: { messageId: 'log-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
  const ok = await rpc('SendMessage', msg, { 'x-api-key': KEY, authorization: `Bearer ${BEARER}` });
  assert.equal(ok.status, 200);
  const taskId = ((await ok.json()) as { result: { task: { id: string } } }).result.task.id;
  const refused = await rpc('GetTask', { id: taskId }, { 'x-api-key': 'wrong-key-123' });
  assert.equal(refused.status, 401);
  const rest = await fetch(`${urls.rest}/tasks/${taskId}?historyLength=1&api_key=${KEY}`, { headers: { 'a2a-version': '1.0', 'x-api-key': KEY } });
  assert.equal(rest.status, 200);

  await p.waitForLine(/"operation":"getTask".*"outcome":"ok"/);
  const lines = p.stdout.split('\n').filter((l) => l !== '');
  assert.ok('listening' in JSON.parse(lines[0] as string), 'the listening line comes first');
  const log = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(log.length, 3, p.stdout);
  const [sent, denied, got] = log as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  assert.equal(sent.binding, 'JSONRPC');
  assert.equal(sent.operation, 'sendMessage');
  assert.equal(sent.outcome, 'ok');
  assert.equal(sent.principal, 'log-client');
  assert.equal(sent.task_id, taskId);
  assert.equal(typeof sent.duration_ms, 'number');
  assert.ok(!Number.isNaN(Date.parse(sent.time as string)));
  assert.equal(denied.outcome, 'UNAUTHENTICATED');
  assert.equal(denied.principal, null);
  assert.equal(got.binding, 'HTTP+JSON');
  assert.equal(got.operation, 'getTask');
  assert.equal(got.principal, 'log-client');
  for (const secret of [KEY, BEARER, 'wrong-key-123', 'Bearer', 'historyLength', 'api_key']) assert.equal(p.stdout.includes(secret), false, secret);
});

test('OBS-02 a2a serve --metrics serves the exposition and prints its URL', async () => {
  assert.match(urls.metrics ?? '', /\/metrics$/);
  const res = await fetch(urls.metrics as string);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /^a2a_calls_total\{binding="JSONRPC",operation="sendMessage",outcome="ok"\} 1$/m);
});
