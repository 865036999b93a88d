/**
 * `a2a webhook` as a real process: `listen` receives signed deliveries (fetch POSTs made here),
 * refuses bad signatures, tokens and bodies, dedupes retries, fails on purpose with
 * --fail-every, prints a line (or a JSON line) per delivery and stops after --count or on SIGTERM.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signWebhook } from '../../src/push/webhookSignature.js';
import { runA2A, runToExit, type A2AProcess } from './cliHelpers.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_' + Buffer.alloc(24, 7).toString('base64');

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

/** Starts `a2a webhook listen --port 0 …` and resolves with the URL it prints (stdout, or stderr with --json). */
async function listen(args: string[]): Promise<{ proc: A2AProcess; url: string }> {
  const proc = runA2A(['webhook', 'listen', '--port', '0', ...args]);
  procs.push(proc);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = /Listening for webhook deliveries on (http:\/\/\S+)/.exec(args.includes('--json') ? proc.stderr : proc.stdout);
    if (match?.[1]) return { proc, url: match[1] };
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      proc.kill();
      throw new Error(`no URL printed; stdout: ${proc.stdout} stderr: ${proc.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

const statusEvent = (taskId: string, text: string) => ({
  statusUpdate: { taskId, contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } } },
});

interface Post {
  event: unknown;
  seq: number;
  taskId: string;
  secrets?: string[];
  /** Sent instead of the computed signature. */
  signature?: string;
  body?: string;
  headers?: Record<string, string>;
}

async function post(url: string, p: Post): Promise<number> {
  const body = p.body ?? JSON.stringify(p.event);
  const id = `${p.taskId}.${p.seq}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/a2a+json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'a2a-task-id': p.taskId,
    'a2a-event-seq': String(p.seq),
    ...p.headers,
  };
  const signature = p.signature ?? (p.secrets ? signWebhook({ id, timestamp, body, secrets: p.secrets }) : undefined);
  if (signature) headers['webhook-signature'] = signature;
  const res = await fetch(url, { method: 'POST', headers, body });
  await res.arrayBuffer();
  return res.status;
}

describe('a2a webhook listen', () => {
  test('--json --secret --count 2: a good delivery, a bad signature (401), a retry (duplicate), then exit 0', async () => {
    const { proc, url } = await listen(['--json', '--secret', OTHER, '--secret', SECRET, '--count', '2']);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.doesNotMatch(url, /:0\//, '--port 0 prints the port picked');
    const event = statusEvent('task-a', 'looking it up');
    assert.equal(await post(url, { event, seq: 1, taskId: 'task-a', secrets: [SECRET] }), 204);
    assert.equal(await post(url, { event, seq: 2, taskId: 'task-a', signature: 'v1,' + Buffer.alloc(32).toString('base64') }), 401);
    assert.equal(await post(url, { event, seq: 2, taskId: 'task-a' }), 401, 'unsigned');
    // The retry of seq 1, signed anew (new timestamp) with the other secret: a duplicate.
    assert.equal(await post(url, { event, seq: 1, taskId: 'task-a', secrets: [OTHER] }), 204);
    const { code } = await proc.exited;
    assert.equal(code, 0, proc.stderr);
    const lines = proc.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines, [
      { id: 'task-a.1', seq: 1, taskId: 'task-a', event, duplicate: false, verified: true },
      { id: 'task-a.1', seq: 1, taskId: 'task-a', event, duplicate: true, verified: true },
    ]);
    assert.match(proc.stderr, /401 .*bad-signature/);
    assert.match(proc.stderr, /401 .*missing-headers/);
    assert.ok(!proc.stderr.includes(SECRET.slice(6)), 'the secret is never printed');
  });

  test('human lines; --token, --fail-every, bad bodies and wrong paths/methods are refused', async () => {
    const { proc, url } = await listen(['--token', 'tok', '--fail-every', '3', '--count', '3', '--path', '/hook']);
    assert.match(url, /\/hook$/);
    const tok = { 'x-a2a-notification-token': 'tok' };
    // Requests to the path are counted for --fail-every: the 3rd and 6th get 503.
    assert.equal(await post(url, { event: statusEvent('t-1', 'hello'), seq: 1, taskId: 't-1', headers: tok }), 204);
    assert.equal(await post(url, { event: statusEvent('t-1', 'again'), seq: 2, taskId: 't-1', headers: { 'x-a2a-notification-token': 'nope' } }), 401);
    assert.equal(await post(url, { event: statusEvent('t-1', 'again'), seq: 2, taskId: 't-1', headers: tok }), 503);
    assert.equal(await post(url, { event: {}, seq: 2, taskId: 't-1', headers: tok, body: '{"nope":1}' }), 400);
    assert.equal((await fetch(url.replace(/\/hook$/, '/other'), { method: 'POST', body: '{}' })).status, 404);
    assert.equal((await fetch(url)).status, 405);
    const artifact = {
      artifactUpdate: { taskId: 't-1', contextId: 'ctx-1', artifact: { artifactId: 'a-1', name: 'report', parts: [{ text: 'the data' }] }, lastChunk: true },
    };
    assert.equal(await post(url, { event: artifact, seq: 3, taskId: 't-1', headers: tok }), 204);
    const snapshot = { task: { id: 't-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [artifact.artifactUpdate.artifact] } };
    assert.equal(await post(url, { event: snapshot, seq: 4, taskId: 't-1', headers: tok }), 503);
    assert.equal(await post(url, { event: snapshot, seq: 4, taskId: 't-1', headers: tok }), 204, 'the retry');
    const { code } = await proc.exited;
    assert.equal(code, 0, proc.stderr);
    const lines = proc.stdout.split('\n').filter((l) => l.startsWith('#'));
    assert.deepEqual(lines, ['#1 task t-1 working "hello"', '#3 task t-1 artifact report (1 part, last chunk) "the data"', '#4 task t-1 completed (snapshot, 1 artifact)']);
    assert.match(proc.stdout, /checking: token/);
    assert.match(proc.stderr, /503 .*request 3: failing on purpose \(--fail-every 3\)/);
    assert.match(proc.stderr, /401 .*X-A2A-Notification-Token does not match/);
    assert.match(proc.stderr, /400 .*bad-body: .*must set one of task, message, statusUpdate, artifactUpdate/);
  });

  test('--auth and duplicates in human output; SIGTERM stops cleanly with exit 0', async () => {
    const { proc, url } = await listen(['--auth', 'Bearer xyz']);
    const event = statusEvent('t-2', '');
    assert.equal(await post(url, { event, seq: 1, taskId: 't-2' }), 401);
    assert.equal(await post(url, { event, seq: 1, taskId: 't-2', headers: { authorization: 'Bearer xy' } }), 401);
    assert.equal(await post(url, { event, seq: 1, taskId: 't-2', headers: { authorization: 'Bearer xyz' } }), 204);
    assert.equal(await post(url, { event, seq: 1, taskId: 't-2', headers: { authorization: 'bearer xyz' } }), 204);
    await proc.waitForLine(/duplicate/);
    proc.kill('SIGTERM');
    const { code } = await proc.exited;
    assert.equal(code, 0, proc.stderr);
    assert.deepEqual(
      proc.stdout.split('\n').filter((l) => l.startsWith('#')),
      ['#1 task t-2 working', '#1 task t-2 duplicate (already received; a retry)'],
    );
    assert.match(proc.stderr, /401 .*missing Authorization/);
  });

  test('usage: subcommands, bad secrets and options exit 2; secret prints a new whsec_ secret (--json: {"secret"}); --help', async () => {
    const none = await runToExit(['webhook']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /missing <subcommand>/);
    const unknown = await runToExit(['webhook', 'serve']);
    assert.equal(unknown.code, 2);
    const bad = await runToExit(['webhook', 'listen', '--secret', 'whsec_short']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /a2a webhook: --secret .*\(expected whsec_ followed by base64 of 24 to 64 bytes\)/);
    const port = await runToExit(['webhook', 'listen', '--port', '70000']);
    assert.equal(port.code, 2);
    const secret = await runToExit(['webhook', 'secret']);
    assert.equal(secret.code, 0);
    assert.match(secret.stdout, /^whsec_[A-Za-z0-9+/]{32}\n$/);
    // --json is JSON like every other command's output.
    const secretJson = await runToExit(['webhook', 'secret', '--json']);
    assert.equal(secretJson.code, 0);
    assert.match((JSON.parse(secretJson.stdout) as { secret: string }).secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const help = await runToExit(['webhook', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: a2a webhook listen/);
  });

  test('docs/push.md documents a2a webhook listen and every option of its help', async () => {
    const { readFile } = await import('node:fs/promises');
    const { webhookHelp } = await import('../../src/cli/commands/webhook.js');
    const doc = await readFile(new URL('../../docs/push.md', import.meta.url), 'utf8');
    assert.match(doc, /^## a2a webhook listen$/m);
    assert.match(doc, /^## Receiving deliveries \(verifier\)$/m);
    for (const option of new Set(webhookHelp.match(/--[a-z][a-z-]+/g) ?? [])) assert.ok(doc.includes(`\`${option}`), option);
  });

  test('package.json exports ./webhooks: the receiver API', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, Record<string, string>> };
    assert.deepEqual(pkg.exports['./webhooks'], { 'a2a-kit-source': './src/webhooks/index.ts', types: './dist/webhooks/index.d.ts', default: './dist/webhooks/index.js' });
    const mod = await import('a2a-kit/webhooks');
    for (const name of ['readDelivery', 'verifyWebhook', 'signWebhook', 'generateWebhookSecret', 'WebhookVerificationError', 'WebhookDeliveryError', 'tokenMatches', 'authorizationMatches']) {
      assert.equal(typeof (mod as Record<string, unknown>)[name], 'function', name);
    }
  });
});
