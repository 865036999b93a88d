/**
 * The store contract on PostgreSQL (a fresh schema per test, in a database made for this run),
 * plus migrations, retention purge and query plans. Needs a server: see pgSetup.ts.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { POSTGRES_MIGRATIONS, migratePostgres, schemaVersionPg } from '../../src/stores/postgres/migrations.js';
import { makeTask, purgeScenario, runStoreContract } from './contract.js';
import { pgTestDatabase } from './pgSetup.js';
import { pushStatements } from '../../src/stores/contract/pushSql.js';
import { migrateStore, openStore } from '../../src/stores/contract/openStore.js';
import { assertUpgradedFromV2, assertUpgradedFromV3, assertUpgradedFromV5, assertUpgradedFromV6, assertUpgradedFromV7, seedV2, seedV3, seedV5, seedV6, seedV7, type SeedSql } from './upgradeChecks.js';
import { streamOneArtifact } from './chunkContract.js';

const db = await pgTestDatabase();
const skip = typeof db === 'string' ? db : undefined;
if (typeof db !== 'string') after(() => db.dispose());

/** The seeds of upgradeChecks.ts on a pool, in `schema`. */
function seedOn(pool: pg.Pool, schema: string): SeedSql {
  return (sql, params) => pool.query(sql.replaceAll('{s}', `"${schema}"`), params);
}

function open(schema: string, extra: { migrate?: boolean } = {}): Promise<PostgresTaskStore> {
  if (typeof db === 'string') throw new Error(db);
  return PostgresTaskStore.open({ connectionString: db.url, schema, poolConfig: { max: 6 }, ...extra });
}

runStoreContract(
  'postgres',
  async () => {
    if (typeof db === 'string') throw new Error(db);
    const schema = db.schema();
    const store = await open(schema);
    return { store, reopen: () => open(schema), cleanup: () => store.close() };
  },
  skip ? { skip } : {},
);

describe('postgres store', skip ? { skip } : {}, () => {
  test('migrations: applied once, concurrently safe, versioned; newer schema refused; migrate:false refuses an outdated one', async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    // Four instances starting at once: the advisory lock lets exactly one apply each migration.
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(schema)));
    const applied = stores.map((s) => s.migration.applied);
    assert.equal(applied.filter((a) => a.length > 0).length, 1, JSON.stringify(applied));
    assert.deepEqual(applied.flat(), POSTGRES_MIGRATIONS.map((m) => m.version));
    const pool = stores[0]?.pool as pg.Pool;
    assert.equal(await schemaVersionPg(pool, schema), POSTGRES_MIGRATIONS.at(-1)?.version);
    const extra = { version: (POSTGRES_MIGRATIONS.at(-1)?.version ?? 0) + 1, name: 'test column', sql: 'ALTER TABLE {s}.tasks ADD COLUMN note text' };
    assert.deepEqual((await migratePostgres(pool, { schema, migrations: [...POSTGRES_MIGRATIONS, extra] })).applied, [extra.version]);
    await assert.rejects(open(schema), /newer than this a2a-kit/);
    const bad = { version: extra.version + 1, name: 'half', sql: 'CREATE TABLE {s}.half (x int); SELECT * FROM nowhere' };
    await assert.rejects(migratePostgres(pool, { schema, migrations: [...POSTGRES_MIGRATIONS, extra, bad] }));
    assert.equal(await schemaVersionPg(pool, schema), extra.version);
    const half = await pool.query('SELECT to_regclass($1) AS t', [`"${schema}".half`]);
    assert.equal(half.rows[0].t, null, 'a failed migration leaves nothing behind');
    for (const s of stores) await s.close();

    const fresh = db.schema();
    await assert.rejects(open(fresh, { migrate: false }), /run "a2a db migrate"/);
    await (await open(fresh)).close();
    await (await open(fresh, { migrate: false })).close();
  });

  test('list queries of an owner use the indexes, a context with a state its index (EXPLAIN on a table with 5,000 tasks)', async () => {
    if (typeof db === 'string') return;
    const store = await open(db.schema());
    try {
      const s = `"${store.schema}"`;
      await store.pool.query(
        `INSERT INTO ${s}.tasks (tenant, id, owner, context_id, state, status_ts, version, seq, task_json)
         SELECT 't' || (g % 5), 'id' || g, 'u' || (g % 2), 'c' || (g % 50), CASE WHEN g % 3 = 0 THEN 'TASK_STATE_COMPLETED' ELSE 'TASK_STATE_WORKING' END,
                to_char(timestamp '2025-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 1, 1, '{}'
         FROM generate_series(1, 5000) g`,
      );
      await store.pool.query(`ANALYZE ${s}.tasks`);
      // Issue 8: the server's ListTasks always filters on the caller's owner; each shape has an
      // index led by (tenant, owner).
      const plans = [
        `SELECT task_json FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND status_ts <= '2025-01-01T01:00:00.000Z' AND (status_ts < '2025-01-01T01:00:00.000Z' OR id < 'x') ORDER BY status_ts DESC, id DESC LIMIT 51`,
        `SELECT task_json FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND context_id = 'c1' ORDER BY status_ts DESC, id DESC LIMIT 51`,
        `SELECT task_json FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND state = 'TASK_STATE_WORKING' AND status_ts >= '2025-01-01T00:10:00.000Z' ORDER BY status_ts DESC, id DESC LIMIT 51`,
        // A context and a state: the context's index (SQLite's planner took the state index and
        // read every task of the owner in that state; PostgreSQL's statistics pick the context).
        `SELECT task_json FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND context_id = 'c1' AND state = 'TASK_STATE_WORKING' ORDER BY status_ts DESC, id DESC LIMIT 51`,
        `SELECT task_json FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND context_id = 'c1' AND state = 'TASK_STATE_WORKING' AND status_ts >= '2025-01-01T00:10:00.000Z' AND status_ts <= '2025-01-01T01:00:00.000Z' AND (status_ts < '2025-01-01T01:00:00.000Z' OR id < 'x') ORDER BY status_ts DESC, id DESC LIMIT 51`,
        `SELECT count(*) FROM ${s}.tasks WHERE tenant = 't1' AND owner = 'u1' AND context_id = 'c1' AND state = 'TASK_STATE_WORKING'`,
      ];
      const indexes = ['tasks_by_owner', 'tasks_by_owner_context', 'tasks_by_owner_state', 'tasks_by_owner_context', 'tasks_by_owner_context', 'tasks_by_(owner_)?context'];
      for (const [i, sql] of plans.entries()) {
        const plan = (await store.pool.query(`EXPLAIN ${sql}`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
        assert.match(plan, new RegExp(`(Index (Only )?Scan (Backward )?using|Bitmap Index Scan on) ${indexes[i]} `), plan);
        assert.doesNotMatch(plan, /Seq Scan/, plan);
        if (indexes[i]?.includes('context')) assert.doesNotMatch(plan, /tasks_by_owner_state|tasks_active/, plan);
        // The owner's keyset page reads the index in order: no sort, however deep the page.
        if (i === 0) assert.doesNotMatch(plan, /Sort/, plan);
      }
      // Page 1000 costs about what page 1 costs.
      await store.pool.query(
        `INSERT INTO ${s}.tasks (tenant, id, owner, context_id, state, status_ts, version, seq, task_json)
         SELECT 'deep', id, CASE WHEN n % 2 = 0 THEN 'alice' ELSE 'bob' END, 'c', 'TASK_STATE_COMPLETED', at, 1, 1,
                json_build_object('id', id, 'status', json_build_object('state', 'TASK_STATE_COMPLETED', 'timestamp', at))::text
         FROM (SELECT g AS n, 'id' || lpad(g::text, 6, '0') AS id,
                      to_char(timestamp '2025-01-01' + (g / 3) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
               FROM generate_series(1, 20000) g) rows`,
      );
      await store.pool.query(`ANALYZE ${s}.tasks`);
        const query = { tenant: 'deep', owner: 'alice', pageSize: 10 }; // every other task
      const total = 10_000;
      let cursor: { timestamp: string; id: string } | undefined;
      const timings: number[] = [];
      let seen = 0;
      for (let page = 0; page < 1000; page++) {
        const start = process.hrtime.bigint();
        const r = await store.list({ ...query, ...(cursor ? { after: cursor } : {}) });
        timings.push(Number(process.hrtime.bigint() - start) / 1e6);
        seen += r.records.length;
        assert.equal(r.totalSize, total);
        const last = r.records.at(-1);
        if (!last) break;
        cursor = { timestamp: last.task.status.timestamp ?? '', id: last.task.id };
      }
      assert.equal(seen, total);
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
      const first = median(timings.slice(0, 50));
      const last = median(timings.slice(-50));
      if (process.env.A2A_TEST_VERBOSE) console.log(`postgres owner list page 1..50 median ${first.toFixed(3)} ms, page 951..1000 median ${last.toFixed(3)} ms`);
      assert.ok(last < first * 3 + 1, `first pages ${first.toFixed(3)} ms, last pages ${last.toFixed(3)} ms`);
    } finally {
      await store.close();
    }
  });

  test('purgeTerminal deletes old terminal tasks and their events only', async () => {
    if (typeof db === 'string') return;
    const store = await open(db.schema());
    try {
      await purgeScenario(store, async () => (await store.pool.query(`SELECT count(*)::int AS n FROM "${store.schema}".events`)).rows[0].n as number);
    } finally {
      await store.close();
    }
  });

  test('openStore("postgres://…?schema=…"): migrates, recovers interrupted tasks, purges', async () => {
    if (typeof db === 'string') return;
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    assert.ok((await migrateStore(url.toString())).applied.length > 0);
    const opened = await openStore(url.toString(), { migrate: false });
    try {
      assert.ok(opened.store instanceof PostgresTaskStore);
      await opened.store.create('t', makeTask('run', { state: 'TASK_STATE_WORKING' }));
      await opened.store.create('t', makeTask('done', { state: 'TASK_STATE_COMPLETED' }));
      assert.deepEqual(
        (await opened.recover()).recovered.map((r) => r.taskId),
        ['run'],
      );
      assert.equal((await opened.store.get('t', 'run'))?.task.status.state, 'TASK_STATE_FAILED');
      assert.equal(await opened.purge?.(new Date('2100-01-01')), 2);
    } finally {
      await opened.close();
    }
  });

  test('listActive finds SUBMITTED and WORKING tasks in every tenant', async () => {
    if (typeof db === 'string') return;
    const store = await open(db.schema());
    try {
      await store.create('a', makeTask('w', { state: 'TASK_STATE_WORKING' }));
      await store.create('b', makeTask('s', { state: 'TASK_STATE_SUBMITTED' }));
      await store.create('b', makeTask('i', { state: 'TASK_STATE_INPUT_REQUIRED' }));
      await store.create('c', makeTask('d', { state: 'TASK_STATE_COMPLETED' }));
      const active = (await store.listActive()).map((r) => `${r.tenant}/${r.taskId}`).sort();
      assert.deepEqual(active, ['a/w', 'b/s']);
    } finally {
      await store.close();
    }
  });
});

describe('postgres push store', skip ? { skip } : {}, () => {
  test('a version-1 schema upgrades to the push schema with its tasks intact, and push works on it', async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const first = await open(schema);
    await first.close();
    // Rebuild the schema at version 1 only.
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 1) });
      const task = makeTask('old', { state: 'TASK_STATE_WORKING' });
      await pool.query(`INSERT INTO "${schema}".tasks (tenant, id, context_id, state, status_ts, version, seq, task_json) VALUES ('', 'old', $1, $2, $3, 1, 1, $4)`, [
        task.contextId,
        task.status.state,
        task.status.timestamp,
        JSON.stringify(task),
      ]);
      await pool.query(`INSERT INTO "${schema}".events (tenant, task_id, seq, event_json) VALUES ('', 'old', 1, $1)`, [JSON.stringify({ task })]);
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.deepEqual(store.migration.applied, POSTGRES_MIGRATIONS.slice(1).map((m) => m.version));
        await store.putPushConfig('', { id: 'c', taskId: 'old', url: 'https://hooks.example/' });
        await store.append({ tenant: '', taskId: 'old', expectedVersion: 1, task, events: [{ task }] });
        const [d] = await store.claimDeliveries({ now: new Date(Date.now() + 60_000), limit: 5, lockMs: 1000 });
        assert.deepEqual(d && [d.taskId, d.configId, d.seq], ['old', 'c', 2]);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test('a version-2 schema upgrades to the lease schema with its tasks and push configs intact, and leases work on it', async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 2) });
      const task = makeTask('old', { state: 'TASK_STATE_WORKING' });
      await seedV2(seedOn(pool, schema), task);
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.equal(store.migration.from, 2);
        assert.deepEqual(store.migration.applied, POSTGRES_MIGRATIONS.slice(2).map((m) => m.version));
        await assertUpgradedFromV2(store, task);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test('a version-3 schema upgrades to task owners: every existing task and message id belongs to the anonymous owner', async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 3) });
      const task = makeTask('old', { state: 'TASK_STATE_WORKING' });
      await seedV3(seedOn(pool, schema), task);
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.equal(store.migration.from, 3);
        assert.deepEqual(store.migration.applied, POSTGRES_MIGRATIONS.slice(3).map((m) => m.version));
        const column = await pool.query(
          `SELECT is_nullable, column_default, collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tasks' AND column_name = 'owner'`,
          [schema],
        );
        assert.deepEqual(column.rows, [{ is_nullable: 'NO', column_default: "''::text", collation_name: 'C' }]);
        const indexes = await pool.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'tasks_by_%' ORDER BY indexname`, [schema]);
        assert.deepEqual(
          indexes.rows.map((r: { indexname: string }) => r.indexname),
          ['tasks_by_context', 'tasks_by_owner', 'tasks_by_owner_context', 'tasks_by_owner_state'],
        );
        await assertUpgradedFromV3(store, task);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test("TENANT-06 a version-5 schema upgrades to context owners: its contexts stay their tasks' owners, through retention", async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 5) });
      await seedV5(seedOn(pool, schema));
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.deepEqual([store.migration.from, store.migration.applied], [5, [6, 7, 8]]);
        await assertUpgradedFromV5(store);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test("IDEM-02 ERR-04 a version-6 schema upgrades to message ids per owner: each id is its task owner's, others may use it, retention deletes it", async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 6) });
      await seedV6(seedOn(pool, schema));
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.deepEqual([store.migration.from, store.migration.applied], [6, [7, 8]]);
        const key = await pool.query(
          `SELECT a.attname FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
           WHERE c.conname = 'messages_pkey' AND c.connamespace = $1::regnamespace ORDER BY array_position(c.conkey, a.attnum)`,
          [schema],
        );
        assert.deepEqual(key.rows.map((r: { attname: string }) => r.attname), ['tenant', 'owner', 'message_id']);
        const column = await pool.query(
          `SELECT is_nullable, column_default, collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'messages' AND column_name = 'owner'`,
          [schema],
        );
        assert.deepEqual(column.rows, [{ is_nullable: 'NO', column_default: null, collation_name: 'C' }]);
        await assertUpgradedFromV6(store);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test('STREAM-10 a version-7 schema upgrades to snapshot lag: its tasks read back unchanged, chunks appended after it read back whole, message ids work as before', async () => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migratePostgres(pool, { schema, migrations: POSTGRES_MIGRATIONS.slice(0, 7) });
      await seedV7(seedOn(pool, schema));
      await assert.rejects(open(schema, { migrate: false }), /run "a2a db migrate"/);
      const store = await open(schema);
      try {
        assert.deepEqual([store.migration.from, store.migration.applied], [7, [8]]);
        await assertUpgradedFromV7(store);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  test('STREAM-10 2,000 appended chunks of one artifact rewrite the task snapshot a few times, not once per chunk (linear, not quadratic, in the artifact)', async () => {
    if (typeof db === 'string') return;
    const store = await open(db.schema());
    try {
      const s = `"${store.schema}"`;
      // Counts every write of task_json (an UPDATE that sets the column; the INSERT of the task is not one).
      await store.pool.query(`CREATE TABLE ${s}.snapshot_writes (n bigint NOT NULL, chars bigint NOT NULL);
        INSERT INTO ${s}.snapshot_writes VALUES (0, 0);
        CREATE FUNCTION ${s}.count_snapshot_write() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN UPDATE ${s}.snapshot_writes SET n = n + 1, chars = chars + length(NEW.task_json); RETURN NEW; END $$;
        CREATE TRIGGER count_snapshot_writes AFTER UPDATE OF task_json ON ${s}.tasks FOR EACH ROW EXECUTE FUNCTION ${s}.count_snapshot_write();`);
      const final = await streamOneArtifact(store, 2000);
      const row = (await store.pool.query<{ n: string; chars: string }>(`SELECT n, chars FROM ${s}.snapshot_writes`)).rows[0];
      const [n, chars] = [Number(row?.n), Number(row?.chars)];
      // Rewriting the snapshot per chunk wrote it 2,000 times, ~1,000 final snapshots' worth of characters.
      assert.ok(n <= 12, `${n} snapshot writes for 2,000 chunks`);
      assert.ok(chars <= 5 * final, `${chars} snapshot characters written for a final snapshot of ${final}`);
    } finally {
      await store.close();
    }
  });

  test('claims use the due index with 20,000 pending deliveries, and many parallel claimers split them', async () => {
    if (typeof db === 'string') return;
    const store = await open(db.schema());
    const others = await Promise.all([open(store.schema), open(store.schema)]);
    try {
      const s = `"${store.schema}"`;
      // 2,000 tasks × 1 config × 10 events, written directly (the shape is what matters).
      await store.pool.query(`INSERT INTO ${s}.push_configs (tenant, task_id, id, config_json)
        SELECT '', 't' || g, 'c', json_build_object('id', 'c', 'taskId', 't' || g, 'url', 'https://h.example/')::text FROM generate_series(1, 2000) g`);
      await store.pool.query(`INSERT INTO ${s}.events (tenant, task_id, seq, event_json)
        SELECT '', 't' || g, k, '{}' FROM generate_series(1, 2000) g, generate_series(1, 10) k`);
      await store.pool.query(`INSERT INTO ${s}.push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
        SELECT '', 't' || g, 'c', k, now() - interval '1 hour' + g * interval '1 millisecond', now() FROM generate_series(1, 2000) g, generate_series(1, 10) k`);
      for (const table of ['push_deliveries', 'push_configs', 'events']) await store.pool.query(`ANALYZE ${s}.${table}`);
      const claimSql = pushStatements(`${s}.`).claimable.replace('@now', `now()`).replace('@now', 'now()').replace('@limit', '50');
      const plan = (await store.pool.query(`EXPLAIN ${claimSql}`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
      assert.match(plan, /Index Scan using push_deliveries_due/, plan);
      const handles = [store, ...others];
      const claimed = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (handles[i % 3] as PostgresTaskStore).claimDeliveries({ now: new Date(), limit: 100, lockMs: 60_000 })),
      );
      const all = claimed.flat().map((d) => `${d.taskId}#${d.seq}`);
      assert.equal(new Set(all).size, all.length, 'no delivery handed out twice');
      assert.ok(all.every((k) => k.endsWith('#1')), 'only heads of line');
      assert.equal(all.length, 1200);
    } finally {
      for (const o of others) await o.close();
      await store.close();
    }
  });
});
