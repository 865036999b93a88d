/**
 * R19 / R2: a SQLite file that cannot take a write — a full disk (SQLITE_FULL), a failing one or
 * a file that may not grow (SQLITE_IOERR_*) — is the store out of reach for now, as a lock held
 * by another process is: requests answer the retryable UNAVAILABLE, never INTERNAL; runs keep
 * trying their writes; /readyz says NOT_SERVING while writes fail and SERVING once they work
 * again. Without root: SQLITE_FULL from `PRAGMA max_page_count` in process; a whole `a2a serve`
 * under `ulimit -f` (its files may not grow past the limit, as on a full disk), raised while it
 * runs with `prlimit`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteTaskStore } from '../../src/stores/sqlite/index.js';
import { StoreUnavailableError } from '../../src/protocol/errors.js';

const A2A_BIN = fileURLToPath(new URL('../../bin/a2a.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-full-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const task = (id: string, text = '') => ({
  id,
  contextId: `ctx-${id}`,
  status: { state: 'TASK_STATE_WORKING' as const },
  history: [{ messageId: `m-${id}`, role: 'ROLE_USER' as const, parts: [{ text }] }],
});

test('R19: a task write or push config write SQLite cannot take (SQLITE_FULL, the database at max_page_count) fails with StoreUnavailableError, and works once there is room', async () => {
  const store = new SqliteTaskStore({ path: join(dir, 'max-pages.db') });
  try {
    await store.create('', task('t0'));
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.db.pragma(`max_page_count = ${pages}`);
    await assert.rejects(store.create('', task('t1', 'x'.repeat(64 * 1024))), (error: unknown) => error instanceof StoreUnavailableError && /cannot write/.test(error.message));
    const config = { id: 'c1', taskId: 't0', url: 'https://hooks.example/a', token: 'y'.repeat(64 * 1024) };
    await assert.rejects(store.putPushConfig('', config), StoreUnavailableError);
    store.db.pragma(`max_page_count = ${pages * 100}`);
    await store.ping();
    assert.equal((await store.create('', task('t1', 'x'.repeat(64 * 1024)))).record.version, 1);
  } finally {
    await store.close();
  }
});

/** `a2a serve` on a SQLite file under `ulimit -f` (soft, in KiB; the hard limit stays unlimited). */
async function serveLimited(path: string, kib: number) {
  const child = spawn('bash', ['-c', `ulimit -S -f ${kib}; exec "$0" "$@"`, process.execPath, A2A_BIN, 'serve', '--port', '0', '--json', '--store', `sqlite:${path}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const urls = await new Promise<{ rest: string; listening: string }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (d: string) => resolve(JSON.parse(d.split('\n')[0] ?? '') as { rest: string; listening: string }));
    child.once('exit', (code) => reject(new Error(`a2a serve exited ${code}: ${stderr}`)));
  });
  return { child, urls, stderr: () => stderr };
}

async function send(rest: string, messageId: string, text: string): Promise<{ status: number; body: { task?: { id: string; status: { state: string } }; error?: { status?: string } } }> {
  const res = await fetch(`${rest}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: { messageId, role: 'ROLE_USER', parts: [{ text }] } }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

const readiness = async (base: string) => (await fetch(`${base}/readyz`)).status;

test('R19 / R2: a2a serve on a file that can no longer grow: a send waits (never INTERNAL), /readyz says 503 while writes fail; once the file may grow again the send completes, /readyz says 200 and the same messageId answers that task', { timeout: 120_000 }, async () => {
  const path = join(dir, 'limited', 'tasks.db');
  const s = await serveLimited(path, 1024);
  try {
    const big = 'z'.repeat(48 * 1024);
    let pending: { messageId: string; answer: ReturnType<typeof send> } | undefined;
    for (let i = 0; i < 200 && !pending; i++) {
      const messageId = crypto.randomUUID();
      const answer = send(s.urls.rest, messageId, big);
      const first = await Promise.race([answer, new Promise<undefined>((resolve) => setTimeout(resolve, 1500))]);
      if (first) {
        // Before the fix: 500 INTERNAL "could not store the outcome of this task".
        assert.equal(first.status, 200, `send ${i}: ${JSON.stringify(first.body).slice(0, 300)}`);
        continue;
      }
      // The run is retrying its write. Its file may still have room once the WAL is checkpointed
      // (the readiness probe does that): then the send goes through and the loop goes on.
      if ((await readiness(s.urls.listening)) === 503) pending = { messageId, answer };
      else assert.equal((await answer).status, 200);
    }
    assert.ok(pending, 'the file filled up');
    assert.equal(await readiness(s.urls.listening), 503, 'NOT_SERVING while writes fail');
    execFileSync('prlimit', ['--pid', String(s.child.pid), '--fsize=unlimited:']);
    const done = await pending.answer;
    assert.equal(done.status, 200, JSON.stringify(done.body).slice(0, 300));
    assert.equal(done.body.task?.status.state, 'TASK_STATE_COMPLETED');
    // Readiness answers are reused for 500 ms (ServerHealth).
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await readiness(s.urls.listening), 200, 'SERVING again');
    const again = await send(s.urls.rest, pending.messageId, big);
    assert.equal(again.body.task?.id, done.body.task?.id);
    assert.equal(again.body.task?.status.state, 'TASK_STATE_COMPLETED');
    assert.doesNotMatch(s.stderr(), /could not store the outcome/);
  } finally {
    s.child.kill('SIGKILL');
  }
});
