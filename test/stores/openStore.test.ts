/**
 * `--store` parsing and opening, the R2 recovery sweep and the retention timer, on the stores
 * available without a server (memory, SQLite). PostgreSQL's share is in postgres.test.ts.
 */
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SQLITE_PATH, StoreInUseError, StoreSpecError, describeStore, migrateStore, openStore, parseStoreSpec } from '../../src/stores/contract/openStore.js';
import { DEFAULT_RECOVERY_REASON, recoverInterrupted } from '../../src/stores/contract/recovery.js';
import { startRetention } from '../../src/stores/contract/retention.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { makeTask } from './contract.js';

test('parseStoreSpec: memory, sqlite, sqlite:PATH, postgres URLs with ?schema=; anything else is a usage error', () => {
  assert.deepEqual(parseStoreSpec('memory'), { kind: 'memory' });
  assert.deepEqual(parseStoreSpec('sqlite'), { kind: 'sqlite', path: DEFAULT_SQLITE_PATH });
  assert.deepEqual(parseStoreSpec('sqlite:/var/lib/a2a/x.db'), { kind: 'sqlite', path: '/var/lib/a2a/x.db' });
  assert.deepEqual(parseStoreSpec('sqlite:rel/x.db'), { kind: 'sqlite', path: 'rel/x.db' });
  assert.deepEqual(parseStoreSpec('postgres://u:p@db:5432/app'), { kind: 'postgres', url: 'postgres://u:p@db:5432/app' });
  assert.deepEqual(parseStoreSpec('postgresql://db/app?schema=agents&sslmode=require'), {
    kind: 'postgres',
    url: 'postgresql://db/app?sslmode=require',
    schema: 'agents',
  });
  for (const bad of ['', 'sqlite:', 'mysql://x', 'redis', 'postgres://[bad']) assert.throws(() => parseStoreSpec(bad), StoreSpecError, bad);
  assert.equal(describeStore(parseStoreSpec('postgres://u:secret@db/app?schema=s')), 'postgres://u:***@db/app (schema s)');
  assert.equal(describeStore(parseStoreSpec('sqlite')), `sqlite:${DEFAULT_SQLITE_PATH}`);
});

test('openStore: memory and sqlite (file and directories created, migrations on open, migrateStore idempotent)', async () => {
  const mem = await openStore('memory');
  assert.ok(mem.store instanceof MemoryTaskStore);
  assert.deepEqual(await mem.recover(), { recovered: [] });
  // Retention works on the memory store too (--retention-days with --store memory).
  await mem.store.create('', makeTask('done', { state: 'TASK_STATE_COMPLETED' }));
  assert.equal(await mem.purge?.(new Date('2100-01-01')), 1);
  assert.equal(await mem.store.get('', 'done'), undefined);
  await mem.close();

  const dir = await mkdtemp(join(tmpdir(), 'a2a-open-'));
  try {
    const path = join(dir, '.a2a', 'tasks.db');
    const first = await migrateStore(`sqlite:${path}`);
    assert.equal(first.label, `sqlite:${path}`);
    assert.ok(first.applied.length > 0);
    assert.ok((await stat(path)).isFile());
    assert.deepEqual((await migrateStore(`sqlite:${path}`)).applied, []);
    const opened = await openStore({ kind: 'sqlite', path }, { migrate: false });
    assert.ok(opened.store instanceof SqliteTaskStore);
    await opened.store.create('', makeTask('x', { state: 'TASK_STATE_COMPLETED' }));
    assert.equal(await opened.purge?.(new Date('2100-01-01')), 1);
    await opened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('R2 recoverInterrupted: SUBMITTED and WORKING tasks in every tenant become FAILED with a reason, as a logged event', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-recover-'));
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'r.db') });
    const working = makeTask('w', { state: 'TASK_STATE_WORKING', at: 1 });
    working.status.message = { messageId: 'progress', role: 'ROLE_AGENT', parts: [{ text: 'half way' }] };
    await store.create('a', working);
    await store.create('b', makeTask('s', { state: 'TASK_STATE_SUBMITTED' }));
    await store.create('b', makeTask('i', { state: 'TASK_STATE_INPUT_REQUIRED' }));
    await store.create('c', makeTask('d', { state: 'TASK_STATE_COMPLETED' }));
    let n = 0;
    const recovered = await recoverInterrupted(store, { newId: () => `rec-${++n}`, now: () => '2030-01-01T00:00:00.000Z' });
    assert.deepEqual(
      recovered.map((r) => [r.tenant, r.taskId, r.from, r.seq]).sort(),
      [
        ['a', 'w', 'TASK_STATE_WORKING', 2],
        ['b', 's', 'TASK_STATE_SUBMITTED', 2],
      ],
    );
    const w = await store.get('a', 'w');
    assert.equal(w?.task.status.state, 'TASK_STATE_FAILED');
    assert.equal(w?.task.status.timestamp, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(w?.task.status.message?.parts, [{ text: DEFAULT_RECOVERY_REASON }]);
    // The superseded progress message moves into history (C6), like any status change.
    assert.equal(w?.task.history?.at(-1)?.messageId, 'progress');
    const [event] = await store.events('a', 'w', 1);
    assert.equal(event?.seq, 2);
    assert.ok(event && 'statusUpdate' in event.event && event.event.statusUpdate.status.state === 'TASK_STATE_FAILED');
    assert.equal((await store.get('b', 'i'))?.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal((await store.get('c', 'd'))?.version, 1);
    assert.deepEqual(await recoverInterrupted(store), [], 'a second sweep finds nothing');
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('retention: purges terminal tasks older than maxAge on demand and on its timer; stop() ends it', async () => {
  const calls: Date[] = [];
  let purged = 0;
  const retention = startRetention({
    purge: async (before) => {
      calls.push(before);
      return 2;
    },
    maxAgeMs: 60_000,
    intervalMs: 20,
    now: () => Date.parse('2030-01-01T00:01:00.000Z'),
    onPurged: (n) => (purged += n),
  });
  assert.equal(await retention.runOnce(), 2);
  assert.equal(calls[0]?.toISOString(), '2030-01-01T00:00:00.000Z');
  // Wait for at least two timer runs (polling, so a busy machine only makes it slower).
  for (const deadline = Date.now() + 5_000; calls.length < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
  retention.stop();
  const count = calls.length;
  assert.ok(count >= 3, `timer ran ${count - 1} times`);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(calls.length, count, 'no purge after stop()');
  assert.equal(purged, count * 2);
  assert.throws(() => startRetention({ purge: async () => 0, maxAgeMs: 0 }), RangeError);
});

test('retention: the first purge runs shortly after start, not one interval (1 h for 30 days) later', async () => {
  const calls: Date[] = [];
  const startedAt = Date.now();
  const retention = startRetention({ purge: async (before) => (calls.push(before), 0), maxAgeMs: 30 * 86_400_000 });
  try {
    for (const deadline = Date.now() + 10_000; calls.length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    assert.equal(calls.length, 1, 'one purge soon after start');
    assert.ok(Math.abs(calls[0]!.getTime() - (startedAt - 30 * 86_400_000)) < 10_000, 'of tasks older than 30 days');
  } finally {
    retention.stop();
  }
});

test('one server per SQLite file: a second server is refused naming the first; a reader opens it but does not recover under a live server; once the server is killed a new one claims the file and recovers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-guard-'));
  const path = join(dir, 'g.db');
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/holdStore.ts', import.meta.url)), path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => d.includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    await assert.rejects(openStore(`sqlite:${path}`, { serve: true }), (e: unknown) => {
      assert.ok(e instanceof StoreInUseError);
      assert.equal(e.message, `another a2a serve (pid ${child.pid}) serves ${path}; use PostgreSQL to run several instances`);
      return true;
    });
    const mine = await openStore(`sqlite:${path}`);
    await mine.store.create('', makeTask('busy', { state: 'TASK_STATE_WORKING' }));
    const skipped = await mine.recover();
    assert.deepEqual(skipped.recovered, []);
    assert.match(skipped.skipped ?? '', new RegExp(`pid ${child.pid}`));
    assert.deepEqual((mine.store as SqliteTaskStore).db.prepare('SELECT pid FROM instances').all(), [{ pid: child.pid }], 'a reader is not registered');
    await mine.close();

    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    const next = await openStore(`sqlite:${path}`, { serve: true });
    const result = await next.recover();
    assert.equal(result.skipped, undefined);
    assert.deepEqual(
      result.recovered.map((r) => r.taskId),
      ['busy'],
    );
    await next.close();
  } finally {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('one server per SQLite file: rows of dead processes, of reused pids and of other hosts (a container restarted under a new name) do not block a server', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-guard2-'));
  try {
    const path = join(dir, 'g.db');
    const seed = new SqliteTaskStore({ path });
    seed.db.prepare('INSERT INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run('old-container-7f3a', 1, '2025-01-01T00:00:00.000Z');
    seed.db.prepare('INSERT INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run(hostname(), 2 ** 22 + 12345, '2025-01-01T00:00:00.000Z');
    // A live pid (our parent) recorded with another start time: the pid was reused.
    if (existsSync('/proc/self/stat')) seed.db.prepare('INSERT INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run(hostname(), process.ppid, '2001-01-01T00:00:00.000Z');
    await seed.create('', makeTask('left', { state: 'TASK_STATE_WORKING' }));
    await seed.close();
    const opened = await openStore(`sqlite:${path}`, { serve: true });
    const result = await opened.recover();
    assert.equal(result.skipped, undefined);
    assert.deepEqual(
      result.recovered.map((r) => r.taskId),
      ['left'],
    );
    assert.deepEqual((opened.store as SqliteTaskStore).db.prepare('SELECT host, pid FROM instances').all(), [{ host: hostname(), pid: process.pid }]);
    await opened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
