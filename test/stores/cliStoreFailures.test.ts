/**
 * `--store` mistakes of an operator at start are reported in one line naming the store (its
 * password masked) with the exit code docs/cli.md gives — 2 for a `--store` that names something
 * unusable, 4 when the machine or the database refuses — never as a bug (exit 1). `a2a db` never
 * creates a SQLite file; `a2a serve` creates a private one (R23: push credentials stay secret).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describeStore, openStore, parseStoreSpec } from '../../src/stores/contract/openStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/index.js';
import { pgTestDatabase } from './pgSetup.js';

const A2A_BIN = fileURLToPath(new URL('../../bin/a2a.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-store-failures-'));
chmodSync(dir, 0o755);
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `a2a ARGS --json`, optionally under `prefix` (a shell with limits, another user). */
function a2a(args: string[], prefix: string[] = []): Run {
  const argv = [...prefix, process.execPath, A2A_BIN, ...args, '--json'];
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The `--json` error of a run that exited `code`, its message naming `label`. */
function refused(r: Run, code: number, label: string): string {
  assert.equal(r.code, code, `exit ${code}: ${r.stdout}${r.stderr}`);
  const { error } = JSON.parse(r.stdout) as { error: { type: string; message: string; exitCode: number } };
  assert.equal(error.exitCode, code);
  assert.equal(error.type, code === 2 ? 'usage' : 'client');
  assert.ok(error.message.startsWith(`--store ${label}: `), `${error.message} / ${label}`);
  return error.message;
}

const serve = (store: string, prefix: string[] = []) => a2a(['serve', '--port', '0', '--store', store], prefix);

function migrated(name: string): string {
  const path = join(dir, name);
  new SqliteTaskStore({ path }).db.close();
  return path;
}

test('a foreign SQLite file with a tasks table of its own: a2a serve and a2a db migrate exit 2 naming the store (was exit 1 "table tasks already exists")', () => {
  const path = join(dir, 'foreign.db');
  const db = new Database(path);
  db.exec('CREATE TABLE tasks (name TEXT)');
  db.close();
  for (const r of [serve(`sqlite:${path}`), a2a(['db', 'migrate', '--store', `sqlite:${path}`])]) {
    assert.match(refused(r, 2, `sqlite:${path}`), /not an a2a-kit task store: table tasks already exists/);
  }
});

test('a SQLite schema newer than the code: a2a serve and a2a db migrate exit 2 naming the store (was exit 1)', () => {
  const path = migrated('newer.db');
  const db = new Database(path);
  db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (999, ?, ?)').run('future', new Date().toISOString());
  db.close();
  for (const r of [serve(`sqlite:${path}`), a2a(['db', 'migrate', '--store', `sqlite:${path}`])]) {
    assert.match(refused(r, 2, `sqlite:${path}`), /schema version 999 is newer than this a2a-kit/);
  }
});

test('a SQLite --store path through a file (its directory cannot be made): exit 2 naming the store (was exit 1 "EEXIST … mkdir")', () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a directory');
  refused(serve(`sqlite:${file}/sub/tasks.db`), 2, `sqlite:${file}/sub/tasks.db`);
});

test('a full disk at start (the file may not grow: ulimit -f): exit 4 naming the store (was exit 1 "disk I/O error")', () => {
  const path = join(dir, 'nospace', 'tasks.db');
  refused(serve(`sqlite:${path}`, ['bash', '-c', 'ulimit -S -f 16; exec "$0" "$@"']), 4, `sqlite:${path}`);
});

/** Another user than root, to whom a file mode means something, when the tests run as root. */
function unprivileged(): string[] | string {
  if (process.getuid?.() !== 0) return [];
  const prefix = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const r = spawnSync(prefix[0] as string, [...prefix.slice(1), process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(A2A_BIN)})`]);
  return r.status === 0 ? prefix : 'as root, and user 65534 (setpriv) cannot run this checkout';
}

test('an unwritable SQLite file (read-only file in a read-only directory): exit 2 naming the store (was exit 1 "attempt to write a readonly database")', (t) => {
  const prefix = unprivileged();
  if (typeof prefix === 'string') return t.skip(prefix);
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  const path = join(locked, 'tasks.db');
  new SqliteTaskStore({ path }).db.close();
  chmodSync(path, 0o444);
  chmodSync(locked, 0o555);
  refused(serve(`sqlite:${path}`, prefix), 2, `sqlite:${path}`);
});

test('a2a db purge and a2a db migrate on a SQLite path that does not exist: exit 2 naming the missing file, nothing created (was: a new empty database, success)', () => {
  const path = join(dir, 'typo', 'tasks.db');
  for (const args of [['purge', '--older-than-days', '1'], ['migrate']]) {
    const message = refused(a2a(['db', ...args, '--store', `sqlite:${path}`]), 2, `sqlite:${path}`);
    assert.match(message, new RegExp(`no database file at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(existsSync(join(dir, 'typo')), false);
  }
  // An existing (even empty) file is maintained as before.
  mkdirSync(join(dir, 'typo'));
  writeFileSync(path, '');
  assert.equal(a2a(['db', 'migrate', '--store', `sqlite:${path}`]).code, 0);
});

test('R23: a new SQLite store is private — the directories a2a-kit creates 0700, tasks.db, -wal and -shm 0600; an existing directory and file keep their modes', async () => {
  const umask = process.umask(0o022);
  try {
    const path = join(dir, 'private', 'nested', 'tasks.db');
    const store = new SqliteTaskStore({ path });
    await store.create('', { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } });
    const mode = (p: string) => statSync(p).mode & 0o777;
    assert.equal(mode(join(dir, 'private')), 0o700);
    assert.equal(mode(join(dir, 'private', 'nested')), 0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file), 0o600, file);
    await store.close();

    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o755 });
    const existing = join(shared, 'tasks.db');
    writeFileSync(existing, '', { mode: 0o640 });
    const again = new SqliteTaskStore({ path: existing });
    await again.close();
    assert.equal(mode(shared), 0o755);
    assert.equal(mode(existing), 0o640);
  } finally {
    process.umask(umask);
  }
});

test('PostgreSQL ?sslmode=require against a server without TLS: exit 4 naming the store, password masked (was exit 1)', async () => {
  // Answers PostgreSQL's SSLRequest with "N", as a server without TLS does.
  const server = createServer((socket) => socket.once('data', () => socket.end('N')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const url = `postgres://a2a:secret@127.0.0.1:${port}/agents?sslmode=require`;
    // Not spawnSync: the fake server answers from this process.
    const r = await spawnAsync(['serve', '--port', '0', '--store', url, '--json']);
    const message = refused(r, 4, `postgres://a2a:***@127.0.0.1:${port}/agents?sslmode=require`);
    assert.match(message, /does not support SSL/);
    assert.doesNotMatch(r.stdout + r.stderr, /secret/);
  } finally {
    server.close();
  }
});

test('a PostgreSQL schema newer than the code: a2a serve exits 4 naming the store (was exit 1)', async (t) => {
  const pg = await pgTestDatabase();
  if (typeof pg === 'string') return t.skip(pg);
  try {
    const schema = pg.schema();
    const url = new URL(pg.url);
    url.searchParams.set('schema', schema);
    const opened = await openStore(url.toString());
    await opened.close();
    const { default: pgLib } = await import('pg');
    const client = new pgLib.Client({ connectionString: pg.url });
    await client.connect();
    await client.query(`INSERT INTO "${schema}".schema_version (version, name) VALUES (999, 'future')`);
    await client.end();
    const r = await spawnAsync(['serve', '--port', '0', '--store', url.toString(), '--json']);
    // The CLI masks a user name without a password too (redact.ts).
    const label = describeStore(parseStoreSpec(url.toString())).replace(/\/\/[^@/]*@/, '//***@');
    assert.match(refused(r, 4, label), /schema version 999 is newer than this a2a-kit/);
  } finally {
    await pg.dispose();
  }
});

function spawnAsync(args: string[]): Promise<Run> {
  return new Promise<Run>((resolve) => {
    execFile(process.execPath, [A2A_BIN, ...args], { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
