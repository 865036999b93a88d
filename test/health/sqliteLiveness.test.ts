/**
 * Liveness while another process holds the SQLite write lock (OPS-HEALTH; docs/storage.md):
 * better-sqlite3 is synchronous, so a background write that waited busy_timeout (5 s) for the
 * lock would stall the event loop, /healthz included, and Kubernetes (1 s liveness timeout) would
 * restart a healthy instance. The push dispatcher's claims and retention do not wait: /healthz
 * answers at once while a second connection holds `BEGIN EXCLUSIVE` on the file, the dispatcher
 * reports the locked store once (one line), and delivers again once the lock is gone.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { serveAgent } from '../../src/node/serveAgent.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { StoreUnavailableError } from '../../src/protocol/errors.js';
import { formatError } from '../../src/server/errorHook.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { testCard } from '../server/support.js';
import { probe } from './support.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-live-'));
  dirs.push(dir);
  return join(dir, 'tasks.db');
}

test('OPS-HEALTH /healthz answers within 500 ms while another connection holds BEGIN EXCLUSIVE on the SQLite file (push on); the locked store is reported once, in one line', { timeout: 30_000 }, async () => {
  const path = tempFile();
  const store = new SqliteTaskStore({ path });
  const errors: unknown[] = [];
  const running = await serveAgent({
    agent: { card: testCard('live', { streaming: true, pushNotifications: true }), executor: createDemoAgent() },
    port: 0,
    onError: (error) => errors.push(error),
    handler: { store, push: { pollIntervalMs: 50 } },
  });
  const other = new Database(path, { timeout: 0 });
  try {
    assert.equal((await probe(running.url + '/healthz')).status, 200);
    other.exec('BEGIN EXCLUSIVE');
    const end = Date.now() + 2000;
    let probes = 0;
    while (Date.now() < end) {
      const began = performance.now();
      const res = await probe(running.url + '/healthz');
      const took = performance.now() - began;
      assert.equal(res.status, 200);
      assert.ok(took < 500, `/healthz took ${took.toFixed(0)} ms while the lock was held`);
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(probes >= 10, `${probes} probes`);
    other.exec('COMMIT');
    const locked = errors.filter((e) => e instanceof StoreUnavailableError);
    assert.ok(locked.length <= 1, `the locked store reported ${locked.length} times`);
    assert.equal(errors.length, locked.length, `no other error: ${errors.map(String).join('; ')}`);
    for (const e of locked) assert.doesNotMatch(formatError('a2a-kit', e), /\n/, 'one line, no stack');
    assert.equal(Number(store.db.pragma('busy_timeout', { simple: true })), 5000, 'busy_timeout restored');
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await running.close();
  }
});

test('OPS-HEALTH retention does not block the event loop while another connection holds the lock; it goes on once the lock is gone', { timeout: 30_000 }, async () => {
  const path = tempFile();
  const store = new SqliteTaskStore({ path });
  const other = new Database(path, { timeout: 0 });
  try {
    other.exec('BEGIN EXCLUSIVE');
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    const purged = store.purgeTerminal({ before: new Date() });
    await new Promise((resolve) => setTimeout(resolve, 600));
    other.exec('COMMIT');
    assert.equal(await purged, 0);
    clearInterval(ticker);
    assert.ok(longestGap < 300, `the event loop was blocked for ${longestGap.toFixed(0)} ms`);
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    store.close();
  }
});
