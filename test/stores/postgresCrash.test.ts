/**
 * R1 on PostgreSQL: the real server as a child process on a PostgresTaskStore is killed with
 * SIGKILL at seeded random moments (20 rounds) while clients send messages and read streams;
 * after each restart every acknowledged task and event is read back over the protocol, and
 * after each kill every task's log is gapless and matches its snapshot's seq. R2 (single
 * instance): no task is left SUBMITTED or WORKING.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { runCrashRounds } from './crashHarness.js';
import { pgTestDatabase } from './pgSetup.js';

const ROUNDS = Number(process.env.A2A_CRASH_ROUNDS ?? 20);
const SEED = Number(process.env.A2A_CRASH_SEED ?? 20261130);

const db = await pgTestDatabase();
if (typeof db !== 'string') after(() => db.dispose());

test(
  `R1 postgres: ${ROUNDS} rounds of kill -9 lose no acknowledged task or event (seed ${SEED})`,
  { timeout: 180_000, ...(typeof db === 'string' ? { skip: db } : {}) },
  async (t) => {
    if (typeof db === 'string') return;
    const schema = db.schema();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const stats = await runCrashRounds({
        storeConfig: { kind: 'postgres', url: db.url, schema },
        rounds: ROUNDS,
        seed: SEED,
        ...(process.env.A2A_TEST_VERBOSE ? { log: (line: string) => t.diagnostic(line) } : {}),
        afterKill: async (round) => {
          const bad = await client.query(
            `SELECT t.tenant, t.id, t.seq, count(e.seq) AS n, max(e.seq) AS top
             FROM "${schema}".tasks t LEFT JOIN "${schema}".events e ON e.tenant = t.tenant AND e.task_id = t.id
             GROUP BY t.tenant, t.id, t.seq HAVING count(e.seq) <> t.seq OR max(e.seq) <> t.seq`,
          );
          assert.deepEqual(bad.rows, [], `task logs out of step with snapshots after kill ${round}`);
        },
      });
      t.diagnostic(JSON.stringify(stats));
      assert.ok(stats.ackedEvents > 100, `only ${stats.ackedEvents} acknowledged events: the workload did not run`);
      assert.ok(stats.ackedFinals > 20, `only ${stats.ackedFinals} acknowledged unary results`);
      assert.ok(stats.cutStreams >= ROUNDS / 4, `streams were cut mid-flight in only ${stats.cutStreams} rounds`);
      assert.ok(stats.recovered > 0, 'no round left a task running for recovery to finish');
    } finally {
      await client.end();
    }
  },
);
