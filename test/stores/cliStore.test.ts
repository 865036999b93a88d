/**
 * The storage side of the `a2a` command: `a2a serve --store sqlite:PATH` keeps tasks across a
 * kill -9 and marks the interrupted ones FAILED on restart (R2); `a2a db migrate` and
 * `a2a db purge` maintain the file; a bad --store is a usage error (exit 2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Task } from '../../src/protocol/types.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';

const A2A_BIN = fileURLToPath(new URL('../../bin/a2a.js', import.meta.url));

function a2a(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [A2A_BIN, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `a2a serve` on `store`. With `unreaped`, its parent is a `sleep` that never waits for it (sh
 * runs it in the background, then execs sleep), so after a kill -9 it stays a zombie: `pid` is
 * the server's, `kill` signals the server only.
 */
async function serveOn(store: string, options: { unreaped?: boolean; args?: string[] } = {}) {
  const argv = [A2A_BIN, 'serve', '--port', '0', '--json', '--store', store, ...(options.args ?? [])];
  const child = options.unreaped
    ? spawn('sh', ['-c', `"$0" "$@" & echo "$!" >&2; exec sleep 120`, process.execPath, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const out = await new Promise<{ jsonrpc: string; store: string }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (d: string) => resolve(JSON.parse(d.split('\n')[0] ?? '') as { jsonrpc: string; store: string }));
    child.once('exit', (code) => reject(new Error(`a2a serve exited ${code}: ${stderr}`)));
  });
  const rpc = async (method: string, params: unknown): Promise<unknown> => {
    const res = await fetch(out.jsonrpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const kill = (signal: NodeJS.Signals) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill(signal))));
  if (options.unreaped) {
    const pid = Number(/^(\d+)\n/.exec(stderr)?.[1]);
    return { out, rpc, pid, kill: async (signal: NodeJS.Signals) => void process.kill(pid, signal), reap: () => kill('SIGKILL'), stderr: () => stderr };
  }
  return { out, rpc, pid: child.pid ?? -1, kill, reap: async () => undefined, stderr: () => stderr };
}

function message(text: string) {
  return { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } };
}

test('a2a serve --store sqlite:PATH: tasks survive kill -9, interrupted ones end FAILED; a2a db migrate / purge', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-store-'));
  const path = join(dir, 'data', 'tasks.db');
  try {
    // a2a db never creates a SQLite file: a deploy step that migrates first makes an empty one.
    mkdirSync(join(dir, 'data'));
    writeFileSync(path, '');
    const migrated = a2a(['db', 'migrate', '--store', `sqlite:${path}`, '--json']);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.ok((JSON.parse(migrated.stdout) as { applied: number[] }).applied.length > 0);

    let s = await serveOn(`sqlite:${path}`);
    assert.equal(s.out.store, `sqlite:${path}`);
    const done = ((await s.rpc('SendMessage', message('hello'))) as { task: Task }).task;
    const slow = ((await s.rpc('SendMessage', { ...message('slow job'), configuration: { returnImmediately: true } })) as { task: Task }).task;
    await s.kill('SIGKILL');

    s = await serveOn(`sqlite:${path}`);
    try {
      assert.deepEqual(await s.rpc('GetTask', { id: done.id }), done);
      const after = (await s.rpc('GetTask', { id: slow.id })) as Task;
      assert.equal(after.status.state, 'TASK_STATE_FAILED');
      assert.match(s.stderr(), /marked 1 interrupted task\(s\) FAILED/);
    } finally {
      await s.kill('SIGTERM');
    }

    assert.match(a2a(['db', 'migrate', '--store', `sqlite:${path}`]).stdout, /up to date/);
    const purged = a2a(['db', 'purge', '--store', `sqlite:${path}`, '--older-than-days', '0.000001', '--json']);
    assert.equal(purged.code, 0, purged.stderr);
    assert.equal((JSON.parse(purged.stdout) as { purged: number }).purged, 2);

    const bad = a2a(['serve', '--store', 'mysql://nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--store must be memory, sqlite, sqlite:PATH or postgres/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('one a2a serve per SQLite file: a second is refused (exit 4, one line); a2a db runs beside it; after kill -9 a restart at once — the old pid an unreaped zombie — serves and fails the interrupted task', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-one-'));
  const path = join(dir, 'tasks.db');
  const store = `sqlite:${path}`;
  const first = await serveOn(store, { unreaped: true });
  try {
    const slow = ((await first.rpc('SendMessage', { ...message('slow job'), configuration: { returnImmediately: true } })) as { task: Task }).task;

    const second = a2a(['serve', '--port', '0', '--store', store]);
    assert.equal(second.code, 4, second.stderr);
    assert.equal(second.stderr, `a2a serve: another a2a serve (pid ${first.pid}) serves ${path}; use PostgreSQL to run several instances\n`);
    // Maintenance and reads are not servers: they run beside it and leave its claim alone.
    assert.equal(a2a(['db', 'migrate', '--store', store]).code, 0);
    assert.equal(a2a(['db', 'purge', '--store', store, '--older-than-days', '30']).code, 0);
    assert.equal(a2a(['serve', '--port', '0', '--store', store]).code, 4, 'still refused after a2a db ran and closed');

    await first.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (existsSync('/proc/self/stat')) {
      const state = readFileSync(`/proc/${first.pid}/stat`, 'utf8').split(') ')[1]?.charAt(0);
      assert.equal(state, 'Z', 'the killed server is a zombie while the new one starts');
    }
    const next = await serveOn(store);
    try {
      assert.doesNotMatch(next.stderr(), /not recovering/);
      assert.match(next.stderr(), /marked 1 interrupted task\(s\) FAILED/);
      assert.equal(((await next.rpc('GetTask', { id: slow.id })) as Task).status.state, 'TASK_STATE_FAILED');
    } finally {
      await next.kill('SIGTERM');
    }
  } finally {
    await first.kill('SIGKILL').catch(() => undefined);
    await first.reap();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a2a serve --retention-days 30 purges an old finished task right after it starts (not an hour later)', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-retention-'));
  const path = join(dir, 'tasks.db');
  const seed = new SqliteTaskStore({ path });
  const old = '2020-01-01T00:00:00.000Z';
  await seed.create('', { id: 'old', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: old } });
  await seed.close();
  const s = await serveOn(`sqlite:${path}`, { args: ['--retention-days', '30'] });
  try {
    const deadline = Date.now() + 10_000;
    let left: unknown = {};
    while (left !== undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = await s.rpc('GetTask', { id: 'old' });
    }
    assert.equal(left, undefined, 'the old task was purged');
  } finally {
    await s.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
});

test('a2a serve --store memory --retention-days: finished tasks leave GetTask and ListTasks after the cutoff (was ignored: unbounded memory)', { timeout: 60_000 }, async () => {
  // 0.000001 days = 86 ms: the tasks made right after start are past it at the first purge (~1 s in).
  const s = await serveOn('memory', { args: ['--retention-days', '0.000001'] });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await s.rpc('SendMessage', message(`hello ${i}`))) as { task: Task }).task.id);
    const deadline = Date.now() + 10_000;
    let listed: Task[] = [{} as Task];
    while (listed.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      listed = ((await s.rpc('ListTasks', {})) as { tasks: Task[] }).tasks;
    }
    assert.deepEqual(listed, [], 'ListTasks no longer returns the finished tasks');
    for (const id of ids) assert.equal(await s.rpc('GetTask', { id }), undefined, `GetTask ${id}`);
  } finally {
    await s.kill('SIGTERM');
  }
});

test('a2a serve refuses a corrupt SQLite file at start: one line, exit 2 (instead of -32603 to every request)', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-corrupt-'));
  const path = join(dir, 'tasks.db');
  try {
    const seed = new SqliteTaskStore({ path });
    for (let i = 0; i < 300; i++) await seed.create('', { id: `t${i}`, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() }, history: [{ messageId: `m${i}`, role: 'ROLE_USER', parts: [{ text: 'x'.repeat(300) }] }] });
    await seed.close();
    // Garbage over the last pages (b-tree pages of the tables), the header and schema left intact.
    const bytes = readFileSync(path);
    const page = 4096;
    bytes.fill(0xa5, bytes.length - 4 * page, bytes.length - page);
    writeFileSync(path, bytes);
    const r = spawnSync(process.execPath, [A2A_BIN, 'serve', '--port', '0', '--store', `sqlite:${path}`], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(r.status, 2, `exit 2: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^a2a serve: --store sqlite:${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the database file is corrupt \\(quick_check: .+\\); restore it from a backup\\n$`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
