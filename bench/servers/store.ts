/**
 * Our server (serveAgent + demo agent, like servers/ours.ts) on a durable store, from dist/,
 * opened and wired as `a2a serve --store …` does it (openStore with `serve: true`, then
 * wireStore: on PostgreSQL the PostgresEventBus and execution leases), so the rows measure what
 * users of `a2a serve` get. Configured by env (servers/durable.ts):
 *
 *   BENCH_STORE=sqlite   BENCH_SQLITE_PATH=/tmp/x.db [BENCH_PREFILL=100000]
 *   BENCH_STORE=postgres BENCH_POSTGRES_URL=postgres://…   (tables in a throwaway schema, dropped on exit)
 *
 * BENCH_PREFILL=N writes N tasks straight through the store API before reporting ready: N
 * copies (new ids) of the rows a real "hi" SendMessage leaves — task snapshot, its events, its
 * message id claim — with ids `prefillId(i)`. Ready.info then carries the file size.
 */
import type * as Demo from '../../src/cli/agents/demo.js';
import type * as Node from '../../src/node/index.js';
import type { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import type { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import type { StoreSpec } from '../../src/stores/contract/openStore.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import { prefill, sendHi, sqliteFileBytes, storeEnv } from './durable.js';
import { exitWithParent, reportReady } from './ipc.js';

const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const { demoAgent, demoCard } = (await import(dist('cli/agents/demo.js'))) as typeof Demo;
const { serveAgent, openStore, wireStore } = (await import(dist('node/index.js'))) as typeof Node;

const env = storeEnv();
const schema = env.schema('a2a_bench');
const spec: StoreSpec = env.kind === 'sqlite' ? { kind: 'sqlite', path: env.sqlitePath } : { kind: 'postgres', url: env.postgresUrl, schema };
const opened = await openStore(spec, { serve: true });
const store = opened.store;
const sqlite = env.kind === 'sqlite' ? (store as SqliteTaskStore) : undefined;
const wired = await wireStore(opened, { onBusError: (e) => console.error('bench store server: event bus error:', e) });

const server = await serveAgent({
  agent: { card: demoCard(), executor: demoAgent },
  port: 0,
  host: '127.0.0.1',
  publicUrl: 'http://127.0.0.1:0',
  handler: wired.handler,
});
const base = server.url;
const jsonrpc = `${base}/a2a/jsonrpc`;
let info: Record<string, number> = {};

if (env.prefill > 0) {
  // One real task, then its stored rows copied under new ids.
  const sample = await sendHi(jsonrpc);
  const record = await store.get('', sample.id);
  const [created, ...rest] = await store.events('', sample.id, 0);
  if (!record || !created || !('task' in created.event)) throw new Error('prefill: the sample task was not stored');
  interface Copy {
    created: Task;
    final: Task;
    rest: StreamResponse[];
  }
  info = await prefill<Copy>({
    count: env.prefill,
    sample,
    stored: { created: created.event.task, final: record.task, rest: rest.map((e) => e.event) } satisfies Copy,
    writeBatch: async (copies) => {
      sqlite?.db.exec('BEGIN');
      for (const { id, data } of copies) {
        await store.create('', data.created, { claim: { messageId: `msg-${id}`, fingerprint: 'bench' } });
        if (data.rest.length > 0) await store.append({ tenant: '', taskId: id, expectedVersion: 1, task: data.final, events: data.rest });
      }
      sqlite?.db.exec('COMMIT');
    },
  });
  if (sqlite) info.fileBytes = sqliteFileBytes(sqlite.db, env.sqlitePath);
}

reportReady({ name: `ours-${env.kind}`, url: base, jsonrpc, rest: `${base}/a2a/rest`, info });
exitWithParent(async () => {
  await server.close();
  await wired.close();
  if (env.kind === 'postgres') await (store as PostgresTaskStore).pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await opened.close();
});
