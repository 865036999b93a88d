/**
 * R1 on SQLite: the real server as a child process is killed with SIGKILL at seeded random
 * moments (20 rounds) while clients send messages and read streams; after each kill the file
 * passes `PRAGMA integrity_check`, and after each restart every acknowledged task and event is
 * read back over the protocol, and every task's log is gapless and matches its snapshot's seq.
 * R2 (single instance): no task is left SUBMITTED or WORKING. A negative control runs the same
 * harness on the in-memory store and must see it fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCrashRounds } from './crashHarness.js';

const ROUNDS = Number(process.env.A2A_CRASH_ROUNDS ?? 20);
const SEED = Number(process.env.A2A_CRASH_SEED ?? 20261130);

test(`R1 sqlite: ${ROUNDS} rounds of kill -9 lose no acknowledged task or event (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-crash-sqlite-'));
  const path = join(dir, 'tasks.db');
  try {
    const stats = await runCrashRounds({
      storeConfig: { kind: 'sqlite', path },
      rounds: ROUNDS,
      seed: SEED,
      ...(process.env.A2A_TEST_VERBOSE ? { log: (line: string) => t.diagnostic(line) } : {}),
      afterKill: async (round) => {
        const db = new Database(path, { readonly: true });
        try {
          assert.equal(db.pragma('integrity_check', { simple: true }), 'ok', `integrity_check after kill ${round}`);
          const bad = db
            .prepare(
              `SELECT t.tenant, t.id, t.seq, count(e.seq) AS n, max(e.seq) AS top
               FROM tasks t LEFT JOIN events e ON e.tenant = t.tenant AND e.task_id = t.id
               GROUP BY t.tenant, t.id HAVING count(e.seq) <> t.seq OR max(e.seq) <> t.seq`,
            )
            .all();
          assert.deepEqual(bad, [], `task logs out of step with snapshots after kill ${round}`);
        } finally {
          db.close();
        }
      },
    });
    t.diagnostic(JSON.stringify(stats));
    assert.ok(stats.ackedEvents > 100, `only ${stats.ackedEvents} acknowledged events: the workload did not run`);
    assert.ok(stats.ackedFinals > 20, `only ${stats.ackedFinals} acknowledged unary results`);
    assert.ok(stats.cutStreams >= ROUNDS / 4, `streams were cut mid-flight in only ${stats.cutStreams} rounds`);
    assert.ok(stats.recovered > 0, 'no round left a task running for recovery to finish');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the crash harness notices loss: with the in-memory store the restart fails verification', { timeout: 60_000 }, async () => {
  await assert.rejects(runCrashRounds({ storeConfig: { kind: 'memory' }, rounds: 1, seed: SEED }), /not found/i);
});
