/**
 * Our server (serveAgent + demo agent, like servers/ours.ts) on a durable store, from dist/:
 *
 *   BENCH_STORE=sqlite   BENCH_SQLITE_PATH=/tmp/x.db [BENCH_PREFILL=100000]
 *   BENCH_STORE=postgres BENCH_POSTGRES_URL=postgres://…   (tables in a throwaway schema, dropped on exit)
 *
 * BENCH_PREFILL=N writes N tasks straight through the store API before reporting ready: N
 * copies (new ids) of the rows a real "hi" SendMessage leaves — task snapshot, its events, its
 * message id claim — with ids `prefillId(i)`. Ready.info then carries the file size.
 */
import { statSync } from 'node:fs';
import type * as Demo from '../../src/cli/agents/demo.js';
import type * as ServeAgent from '../../src/node/serveAgent.js';
import type * as Sqlite from '../../src/stores/sqlite/sqliteStore.js';
import type * as Postgres from '../../src/stores/postgres/postgresStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import { exitWithParent, prefillId, reportReady } from './ipc.js';

const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const { demoAgent, demoCard } = (await import(dist('cli/agents/demo.js'))) as typeof Demo;
const { serveAgent } = (await import(dist('node/serveAgent.js'))) as typeof ServeAgent;

const kind = process.env.BENCH_STORE;
let store: TaskStore;
let sqlite: Sqlite.SqliteTaskStore | undefined;
let cleanup = async (): Promise<void> => {};
if (kind === 'sqlite') {
  const { SqliteTaskStore } = (await import(dist('stores/sqlite/sqliteStore.js'))) as typeof Sqlite;
  store = sqlite = new SqliteTaskStore({ path: process.env.BENCH_SQLITE_PATH ?? '' });
} else if (kind === 'postgres') {
  const { PostgresTaskStore } = (await import(dist('stores/postgres/postgresStore.js'))) as typeof Postgres;
  const schema = `a2a_bench_${process.pid}`;
  const pg = await PostgresTaskStore.open({ connectionString: process.env.BENCH_POSTGRES_URL, schema });
  store = pg;
  cleanup = async () => {
    await pg.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  };
} else {
  throw new Error(`BENCH_STORE must be sqlite or postgres, not ${kind}`);
}

const server = await serveAgent({
  agent: { card: demoCard(), executor: demoAgent },
  port: 0,
  host: '127.0.0.1',
  publicUrl: 'http://127.0.0.1:0',
  handler: { store },
});
const base = server.url;
const jsonrpc = `${base}/a2a/jsonrpc`;
const info: Record<string, number> = {};

const prefill = Number(process.env.BENCH_PREFILL ?? 0);
if (prefill > 0) {
  // One real task, then its stored rows copied under new ids.
  const res = await fetch(jsonrpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
  });
  const task = ((await res.json()) as { result: { task: { id: string; contextId: string } } }).result.task;
  const record = await store.get('', task.id);
  const events = await store.events('', task.id, 0);
  if (!record || events.length === 0) throw new Error('prefill: the sample task was not stored');
  const template = JSON.stringify({ final: record.task, events: events.map((e) => e.event) });
  const started = performance.now();
  const BATCH = 5000;
  for (let from = 0; from < prefill; from += BATCH) {
    sqlite?.db.exec('BEGIN');
    for (let i = from; i < Math.min(prefill, from + BATCH); i++) {
      const id = prefillId(i);
      const copy = JSON.parse(template.replaceAll(task.id, id).replaceAll(task.contextId, `ctx-${id}`));
      const [first, ...rest] = copy.events;
      await store.create('', first.task, { claim: { messageId: `msg-${id}`, fingerprint: 'bench' } });
      if (rest.length > 0) await store.append({ tenant: '', taskId: id, expectedVersion: 1, task: copy.final, events: rest });
    }
    sqlite?.db.exec('COMMIT');
  }
  info.prefillSeconds = (performance.now() - started) / 1000;
  info.tasks = prefill + 1;
  if (sqlite && process.env.BENCH_SQLITE_PATH) {
    sqlite.db.pragma('wal_checkpoint(TRUNCATE)');
    info.fileBytes = statSync(process.env.BENCH_SQLITE_PATH).size;
  }
}

reportReady({ name: `ours-${kind}`, url: base, jsonrpc, rest: `${base}/a2a/rest`, info });
exitWithParent(async () => {
  await cleanup();
  await server.close();
});
