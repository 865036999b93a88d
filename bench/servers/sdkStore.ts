/**
 * The official @a2a-js/sdk server (servers/sdkApp.ts: same express handlers and echo agent as
 * servers/sdk.ts) on its SQL store, `DatabaseTaskStore` from `@a2a-js/sdk/server/database`
 * over Kysely; configured by the same env as servers/store.ts (servers/durable.ts):
 *
 *   BENCH_STORE=sqlite   BENCH_SQLITE_PATH=/tmp/x.db [BENCH_PREFILL=100000]   better-sqlite3 via SqliteDialect
 *   BENCH_STORE=postgres BENCH_POSTGRES_URL=postgres://…   pg Pool (10 connections, like ours) via
 *                        PostgresDialect; tables in a throwaway schema, dropped on exit
 *
 * The SDK's store does not create its tables: the SDK's own migration CLI (`a2a-db upgrade
 * --store tasks`) runs first, as an operator would. SQLite gets the journal settings our store
 * uses (WAL, synchronous=NORMAL); the SDK leaves them to whoever opens the database.
 *
 * BENCH_PREFILL=N saves N copies (ids `prefillId(i)`) of the task a real "hi" SendMessage
 * stored, through `DatabaseTaskStore.save`, 5,000 per Kysely transaction, in the scope the
 * express handlers use (no authentication: owner "unknown", no tenant).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import pg from 'pg';
import { Task } from '@a2a-js/sdk';
import { ServerCallContext, UnauthenticatedUser } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { prefill, sendHi, sqliteFileBytes, storeEnv } from './durable.js';
import { exitWithParent, reportReady } from './ipc.js';
import { listenSdk } from './sdkApp.js';

const env = storeEnv();
/** `a2a-db upgrade` for the task table: the SDK's migrations (its bin, not an export), as an operator runs them. */
const migrate = (url: string): void => {
  const cli = fileURLToPath(new URL('./cli/a2a_db.js', import.meta.resolve('@a2a-js/sdk')));
  execFileSync(process.execPath, [cli, 'upgrade', '--store', 'tasks', '--url', url], { stdio: ['ignore', 'ignore', 'inherit'] });
};

let dialect: Dialect;
let sqlite: Database.Database | undefined;
let cleanup = async (): Promise<void> => {};
if (env.kind === 'sqlite') {
  migrate(`sqlite:${env.sqlitePath}`);
  sqlite = new Database(env.sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  dialect = new SqliteDialect({ database: sqlite });
} else {
  const schema = env.schema('a2a_bench_sdk');
  // Every connection (the CLI's and the pool's) finds the tables through search_path.
  const url = new URL(env.postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const pool = new pg.Pool({ connectionString: url.href, max: 10 });
  await pool.query(`CREATE SCHEMA "${schema}"`);
  cleanup = async () => {
    // The SDK keeps writing a task's events after it answered; let that finish before the drop.
    for (let quiet = 0; quiet < 10; quiet = pool.waitingCount > 0 || pool.idleCount < pool.totalCount ? 0 : quiet + 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  };
  migrate(url.href);
  dialect = new PostgresDialect({ pool });
}
const db = new Kysely<unknown>({ dialect });
const store = new DatabaseTaskStore(db);

const server = await listenSdk(store);
let info: Record<string, number> = {};

if (env.prefill > 0) {
  const sample = await sendHi(server.urls.jsonrpc);
  const context = new ServerCallContext({ user: new UnauthenticatedUser() });
  const task = await store.load(sample.id, context);
  if (!task) throw new Error('prefill: the sample task was not stored (or not in the scope the handlers use)');
  info = await prefill<unknown>({
    count: env.prefill,
    sample,
    stored: Task.toJSON(task),
    writeBatch: (copies) =>
      db.transaction().execute(async (trx) => {
        const batch = new DatabaseTaskStore(trx);
        for (const { data } of copies) await batch.save(Task.fromJSON(data), context);
      }),
  });
  if (sqlite) info.fileBytes = sqliteFileBytes(sqlite, env.sqlitePath);
}

reportReady({ name: `sdk-${env.kind}`, ...server.urls, info });
exitWithParent(async () => {
  await server.close();
  await cleanup();
  await db.destroy();
});
