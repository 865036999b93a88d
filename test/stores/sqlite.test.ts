/**
 * The store contract on SQLite (a fresh file per test), plus what only a file-backed store has:
 * migrations, pragmas, retention purge and integrity. The kill -9 durability test (R1) lives in
 * sqliteCrash.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ENQUEUE_SQL, SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { SQLITE_MIGRATIONS, migrateSqlite, schemaVersion } from '../../src/stores/sqlite/migrations.js';
import { makeTask, purgeScenario, runStoreContract } from './contract.js';
import { pushStatements } from '../../src/stores/contract/pushSql.js';
import { SQLITE_LEASE_DIALECT, leaseStatements } from '../../src/stores/contract/leaseSql.js';
import { assertUpgradedFromV2 } from './upgradeChecks.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'a2a-sqlite-'));
}

runStoreContract('sqlite', async () => {
  const dir = await tempDir();
  const path = join(dir, 'tasks.db');
  const store = new SqliteTaskStore({ path });
  return {
    store,
    reopen: async () => new SqliteTaskStore({ path }),
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

test('sqlite: opening creates the directory, applies every migration once, and sets WAL + synchronous=NORMAL', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'nested', 'deeper', 'a2a.db');
    const store = new SqliteTaskStore({ path });
    const latest = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version;
    assert.deepEqual(store.migration, { from: 0, to: latest, applied: SQLITE_MIGRATIONS.map((m) => m.version) });
    assert.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(store.db.pragma('synchronous', { simple: true }), 1); // NORMAL
    assert.equal(store.db.pragma('busy_timeout', { simple: true }), 5000);
    await store.close();
    const again = new SqliteTaskStore({ path, synchronous: 'FULL' });
    assert.deepEqual(again.migration, { from: latest, to: latest, applied: [] });
    assert.equal(again.db.pragma('synchronous', { simple: true }), 2); // FULL
    assert.equal(again.checkIntegrity(), 'ok');
    await again.close();
    await again.close(); // idempotent
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: migrations are versioned and incremental; a newer file is refused; migrate:false refuses an outdated one', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'm.db');
    const db = new Database(path);
    const extra = { version: (SQLITE_MIGRATIONS.at(-1)?.version ?? 0) + 1, name: 'test column', sql: 'ALTER TABLE tasks ADD COLUMN note TEXT' };
    assert.equal(schemaVersion(db), 0);
    assert.deepEqual(migrateSqlite(db, SQLITE_MIGRATIONS).applied, SQLITE_MIGRATIONS.map((m) => m.version));
    const r = migrateSqlite(db, [...SQLITE_MIGRATIONS, extra]);
    assert.deepEqual(r.applied, [extra.version]);
    assert.equal(schemaVersion(db), extra.version);
    const rows = db.prepare('SELECT version, name FROM schema_version ORDER BY version').all();
    assert.deepEqual(rows.at(-1), { version: extra.version, name: 'test column' });
    db.close();
    assert.throws(() => new SqliteTaskStore({ path }), /newer than this a2a-kit/);

    const fresh = join(dir, 'fresh.db');
    assert.throws(() => new SqliteTaskStore({ path: fresh, migrate: false }), /run "a2a db migrate"/);
    new Database(fresh).close();
    const store = new SqliteTaskStore({ path: fresh });
    await store.close();
    const strict = new SqliteTaskStore({ path: fresh, migrate: false });
    await strict.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a failing migration rolls back whole, leaving the previous version', async () => {
  const dir = await tempDir();
  try {
    const db = new Database(join(dir, 'f.db'));
    migrateSqlite(db);
    const v = schemaVersion(db);
    const bad = { version: v + 1, name: 'half', sql: 'CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);' };
    assert.throws(() => migrateSqlite(db, [...SQLITE_MIGRATIONS, bad]));
    assert.equal(schemaVersion(db), v);
    assert.deepEqual(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'`).get(), { n: 0 });
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: list queries use the indexes (no full scan, no temp b-tree for ORDER BY)', async () => {
  const dir = await tempDir();
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'plan.db') });
    const plans: Record<string, string> = {
      plain: `SELECT task_json FROM tasks WHERE tenant = ? AND status_ts <= ? AND (status_ts < ? OR id < ?) ORDER BY status_ts DESC, id DESC LIMIT 50`,
      context: `SELECT task_json FROM tasks WHERE tenant = ? AND context_id = ? AND status_ts <= ? AND (status_ts < ? OR id < ?) ORDER BY status_ts DESC, id DESC LIMIT 50`,
      state: `SELECT task_json FROM tasks WHERE tenant = ? AND state = ? AND status_ts >= ? ORDER BY status_ts DESC, id DESC LIMIT 50`,
    };
    for (const [name, sql] of Object.entries(plans)) {
      const detail = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x')) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join(' | ');
      assert.match(detail, /USING INDEX tasks_by_/, `${name}: ${detail}`);
      assert.doesNotMatch(detail, /TEMP B-TREE|SCAN tasks(?! USING)/, `${name}: ${detail}`);
    }
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: page 1000 costs about what page 1 costs (keyset, 20,000 tasks)', async () => {
  const dir = await tempDir();
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'pages.db') });
    const insert = store.db.transaction(() => {
      for (let i = 0; i < 20_000; i++) {
        const task = makeTask(`t${String(i).padStart(6, '0')}`, { at: Math.floor(i / 3) });
        // Straight through the store's own statement path would take longer; the shape is what matters.
        store.db
          .prepare(
            `INSERT INTO tasks (tenant, id, context_id, state, status_ts, version, seq, task_json, created_at, updated_at) VALUES ('', ?, ?, ?, ?, 1, 1, ?, '', '')`,
          )
          .run(task.id, task.contextId, task.status.state, task.status.timestamp, JSON.stringify(task));
      }
    });
    insert();
    let after: { timestamp: string; id: string } | undefined;
    const timings: number[] = [];
    let seen = 0;
    for (let page = 0; page < 1000; page++) {
      const start = process.hrtime.bigint();
      const r = await store.list({ tenant: '', pageSize: 20, ...(after ? { after } : {}) });
      timings.push(Number(process.hrtime.bigint() - start) / 1e6);
      seen += r.records.length;
      const last = r.records.at(-1);
      if (!last) break;
      after = { timestamp: last.task.status.timestamp ?? '', id: last.task.id };
      assert.equal(r.hasMore, page < 999);
    }
    assert.equal(seen, 20_000);
    const first = median(timings.slice(0, 50));
    const last = median(timings.slice(-50));
    // Generous bound: an OFFSET scan would make the last pages ~1000x the first.
    if (process.env.A2A_TEST_VERBOSE) console.log(`list page 1..50 median ${first.toFixed(3)} ms, page 951..1000 median ${last.toFixed(3)} ms`);
    assert.ok(last < first * 3 + 1, `first pages ${first.toFixed(3)} ms, last pages ${last.toFixed(3)} ms`);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: purgeTerminal deletes old terminal tasks and their events only', async () => {
  const dir = await tempDir();
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'purge.db') });
    await purgeScenario(store, async () => (store.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

test('sqlite: a version-1 file upgrades to the push schema with its tasks intact, and push works on it', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, 1));
    db.close();
    assert.throws(() => new SqliteTaskStore({ path, migrate: false }), /run "a2a db migrate"/);
    // Data written by the version-1 schema (inserted directly: today's store writes version 2).
    const raw = new Database(path);
    const task = makeTask('old', { state: 'TASK_STATE_WORKING' });
    raw
      .prepare(`INSERT INTO tasks (tenant, id, context_id, state, status_ts, version, seq, task_json, created_at, updated_at) VALUES ('', 'old', ?, ?, ?, 1, 1, ?, '', '')`)
      .run(task.contextId, task.status.state, task.status.timestamp, JSON.stringify(task));
    raw.prepare(`INSERT INTO events (tenant, task_id, seq, event_json) VALUES ('', 'old', 1, ?)`).run(JSON.stringify({ task }));
    raw.close();
    const store = new SqliteTaskStore({ path });
    assert.deepEqual(store.migration.applied, SQLITE_MIGRATIONS.slice(1).map((m) => m.version));
    assert.equal((await store.get('', 'old'))?.seq, 1);
    await store.putPushConfig('', { id: 'c', taskId: 'old', url: 'https://hooks.example/' });
    await store.append({ tenant: '', taskId: 'old', expectedVersion: 1, task, events: [{ task }] });
    const [d] = await store.claimDeliveries({ now: new Date(Date.now() + 60_000), limit: 5, lockMs: 1000 });
    assert.deepEqual(d && [d.taskId, d.configId, d.seq], ['old', 'c', 2]);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: push statements use their indexes (claim walks the due index in order, enqueue probes the config key)', async () => {
  const dir = await tempDir();
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'pushplan.db') });
    const plan = (sql: string): string =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 'x']))) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join(' | ');
    const statements = pushStatements('');
    const claim = plan(statements.claimable);
    assert.match(claim, /SCAN d USING INDEX push_deliveries_due|SEARCH d USING INDEX push_deliveries_due/, claim);
    assert.doesNotMatch(claim, /TEMP B-TREE/, claim);
    assert.match(claim, /SEARCH p USING PRIMARY KEY/, claim);
    const due = plan(statements.nextDue);
    assert.match(due, /push_deliveries_due/, due);
    assert.match(due, /push_deliveries_locked/, due);
    const enqueue = plan(ENQUEUE_SQL);
    assert.match(enqueue, /SEARCH c USING PRIMARY KEY \(tenant=\? AND task_id=\?\)/, enqueue);
    assert.doesNotMatch(enqueue, /SCAN/, enqueue);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a version-2 file upgrades to the lease schema with its tasks and push configs intact, and leases work on it', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'v2.db');
    const db = new Database(path);
    migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, 2));
    const task = makeTask('old', { state: 'TASK_STATE_WORKING' });
    db.prepare(`INSERT INTO tasks (tenant, id, context_id, state, status_ts, version, seq, task_json, created_at, updated_at) VALUES ('', 'old', ?, ?, ?, 1, 1, ?, '', '')`).run(
      task.contextId,
      task.status.state,
      task.status.timestamp,
      JSON.stringify(task),
    );
    db.prepare(`INSERT INTO events (tenant, task_id, seq, event_json) VALUES ('', 'old', 1, ?)`).run(JSON.stringify({ task }));
    db.prepare(`INSERT INTO push_configs (tenant, task_id, id, config_json) VALUES ('', 'old', 'c', ?)`).run(JSON.stringify({ id: 'c', taskId: 'old', url: 'https://hooks.example/' }));
    db.close();
    assert.throws(() => new SqliteTaskStore({ path, migrate: false }), /run "a2a db migrate"/);
    const store = new SqliteTaskStore({ path });
    try {
      assert.equal(store.migration.from, 2);
      assert.deepEqual(store.migration.applied, SQLITE_MIGRATIONS.slice(2).map((m) => m.version));
      await assertUpgradedFromV2(store, task);
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: lease statements use their indexes (candidates walk the expiry index in order, renew the owner index)', async () => {
  const dir = await tempDir();
  try {
    const store = new SqliteTaskStore({ path: join(dir, 'leaseplan.db') });
    const plan = (sql: string): string =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 1]))) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join(' | ');
    const statements = leaseStatements({ prefix: '', ...SQLITE_LEASE_DIALECT });
    const expired = plan(statements.expired);
    assert.match(expired, /SEARCH l USING INDEX leases_by_expiry/, expired);
    assert.doesNotMatch(expired, /TEMP B-TREE|SCAN/, expired);
    const stale = plan(statements.dropStale);
    assert.match(stale, /leases_by_expiry/, stale);
    assert.doesNotMatch(stale, /SCAN/, stale);
    const renew = plan(statements.renew);
    assert.match(renew, /leases_by_owner/, renew);
    for (const name of ['release', 'takeOver'] as const) assert.match(plan(statements[name]), /USING PRIMARY KEY \(tenant=\? AND task_id=\?\)/, name);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
