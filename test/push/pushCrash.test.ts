/**
 * R11 across kill -9: the real `a2a serve` (SQLite, and PostgreSQL when available) is killed with
 * SIGKILL while its deliveries are backing off against a receiver that is down; after a restart
 * on the same store the receiver comes up and every event is delivered, in seq order, under the
 * same ids. Nothing about the pending deliveries lived only in the killed process.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/assertions.js';
import { startReceiver } from '../support/webhookReceiver.js';
import { startServe } from '../cli/cliHelpers.js';
import { pgTestDatabase } from '../stores/pgSetup.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-push-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = await pgTestDatabase();
if (typeof db !== 'string') after(() => db.dispose());

const PUSH_FLAGS = ['--allow-private-webhooks', '--push-backoff-ms', '300', '--push-max-attempts', '100'];

async function sendWithWebhook(jsonrpc: string, webhook: string): Promise<string> {
  const res = await fetch(jsonrpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'stream a story' }] },
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: webhook, token: 'crash-test' } },
      },
    }),
  });
  const body = (await res.json()) as { result?: { task?: { id: string } }; error?: unknown };
  assert.ok(body.result?.task, `task created: ${JSON.stringify(body)}`);
  return body.result.task.id;
}

async function killMidBackoff(store: string): Promise<void> {
  let down = true;
  const receiver = await startReceiver({ respond: () => (down ? 503 : 200) });
  try {
    const first = await startServe(['--store', store, ...PUSH_FLAGS]);
    const taskId = await sendWithWebhook(first.urls.jsonrpc, receiver.url);
    // Let the task finish (its events are all in the outbox) and the worker fail a few times.
    await eventually(async () => (receiver.requests.length >= 3 ? true : undefined), 'failed attempts before the kill', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    const failedIds = new Set(receiver.requests.map((r) => r.headers['webhook-id']));

    down = false;
    const second = await startServe(['--store', store, ...PUSH_FLAGS]);
    try {
      const completed = (r: (typeof receiver.requests)[number]) =>
        r.status === 200 && (r.json as { statusUpdate?: { status: { state: string } } })?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED';
      await eventually(async () => (receiver.requests.some(completed) ? true : undefined), 'the COMPLETED update after the restart', 30_000);
      const acked = receiver.requests.filter((r) => r.status === 200);
      const seqs = acked.map((r) => Number(r.headers['a2a-event-seq']));
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), `every event acknowledged once, in order: ${seqs.join(',')}`);
      assert.ok(seqs.length >= 10, 'the stream task has many events');
      for (const r of acked) assert.equal(r.headers['a2a-task-id'], taskId);
      const ackedIds = new Set(acked.map((r) => r.headers['webhook-id']));
      for (const id of failedIds) assert.ok(ackedIds.has(id), `${String(id)} failed before the kill and was delivered after it under the same id`);
    } finally {
      second.proc.kill('SIGTERM');
      await second.proc.exited;
    }
  } finally {
    await receiver.close();
  }
}

test('R11 sqlite: kill -9 mid-backoff, restart, every delivery resumes in order', { timeout: 90_000 }, async () => {
  await killMidBackoff(`sqlite:${join(dir, 'push.db')}`);
});

test(
  'R11 postgres: kill -9 mid-backoff, restart, every delivery resumes in order',
  { timeout: 90_000, ...(typeof db === 'string' ? { skip: db } : {}) },
  async () => {
    if (typeof db === 'string') return;
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    await killMidBackoff(url.toString());
  },
);
