/**
 * Where the PostgreSQL tests get a server: A2A_TEST_POSTGRES_URL when set (CI starts one with
 * scripts/ci-postgres.sh), else a throwaway cluster started here with the same script and
 * stopped at exit, else none (the tests skip, saying why: without binaries the script installs
 * them only with CI=true or A2A_TEST_INSTALL_POSTGRES=1, and otherwise names that variable). Each test file works in a database
 * of its own, dropped at the end; each store in a schema of its own.
 */
import { execFileSync } from 'node:child_process';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const SCRIPT = fileURLToPath(new URL('../../scripts/ci-postgres.sh', import.meta.url));

export interface PgTestDatabase {
  /** URL of the database made for this test file. */
  url: string;
  /** A fresh schema name. */
  schema(): string;
  /** Drops the database and stops a cluster started here. */
  dispose(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Resolves to a database, or to the reason there is none. */
export async function pgTestDatabase(): Promise<PgTestDatabase | string> {
  let serverUrl = process.env.A2A_TEST_POSTGRES_URL;
  let stopCluster: (() => void) | undefined;
  if (!serverUrl) {
    let out: string;
    try {
      out = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      return `A2A_TEST_POSTGRES_URL is not set and scripts/ci-postgres.sh could not start PostgreSQL: ${stderr.trim().split('\n').slice(-3).join(' / ')}`;
    }
    const env = Object.fromEntries([...out.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]));
    serverUrl = env.A2A_TEST_POSTGRES_URL;
    const dir = env.A2A_TEST_POSTGRES_DIR;
    if (!serverUrl || !dir) return `scripts/ci-postgres.sh printed no URL: ${out}`;
    stopCluster = () => {
      execFileSync('bash', [SCRIPT, 'stop', dir], { stdio: 'ignore', env: { ...process.env, A2A_TEST_POSTGRES_BIN: env.A2A_TEST_POSTGRES_BIN ?? '' } });
    };
    process.once('exit', () => stopCluster?.());
  }
  const database = `a2a_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
  } catch (error) {
    stopCluster?.();
    return `cannot create a test database on ${serverUrl.replace(/:[^:@/]*@/, ':***@')}: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await admin.end().catch(() => undefined);
  }
  let n = 0;
  return {
    url: withDatabase(serverUrl, database),
    schema: () => `s${++n}`,
    async dispose() {
      const c = new pg.Client({ connectionString: serverUrl });
      try {
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await c.end().catch(() => undefined);
      }
      const stop = stopCluster;
      stopCluster = undefined;
      stop?.();
    },
  };
}

/**
 * The database of a test file: `skip` is the reason there is none (false when there is one), and
 * the database is dropped after the file's tests. `db` is only for tests that do not skip.
 */
export async function pgTestFile(): Promise<{ skip: string | false; db: PgTestDatabase }> {
  const setup = await pgTestDatabase();
  if (typeof setup === 'string') return { skip: setup, db: undefined as unknown as PgTestDatabase };
  after(() => setup.dispose());
  return { skip: false, db: setup };
}
