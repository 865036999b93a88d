/**
 * Rows 6-10 (selected with --rows like 1-5):
 *   6-7  gRPC SendMessage / SendStreamingMessage: ours (serveGrpc) vs the SDK's gRPC server vs a
 *        bare grpc-js server replaying our answer bytes (the "ceiling" column);
 *   8-9  JSON-RPC SendMessage -> Task on our server with SqliteTaskStore / PostgresTaskStore and
 *        on the SDK's server with its DatabaseTaskStore on the same engine; note: each one's
 *        ratio to its in-memory row 1;
 *   10   JSON-RPC GetTask on random ids among 100,000 tasks stored in SQLite (ours and the SDK's),
 *        unloaded latency, bytes per task.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { GrpcLoadClient, runGrpc, sendRequest, streamJson, unaryJson } from './grpcLoad.js';
import { H2GrpcClient } from './h2Load.js';
import { probeLatency } from './latencyProbe.js';
import { runHttp } from './load.js';
import { measureOrder } from './sampling.js';
import { prefillId, type GrpcCannedConfig } from './servers/ipc.js';
import type { BenchContext, Name, RowResult, Target } from './run.js';

export interface ExtraRow {
  key: string;
  title: string;
  run: (ctx: BenchContext, index: number) => Promise<RowResult | undefined>;
}

const GRPC_CONCURRENCY = 64;
const STREAM_EVENTS = 13;
const PREFILL = 100_000;
const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/* eslint-disable @typescript-eslint/no-explicit-any */
const grpcCheck = {
  unary: (j: any): string | undefined =>
    j.task?.status?.state !== 'TASK_STATE_COMPLETED' ? `state ${j.task?.status?.state}` : j.task.artifacts?.[0]?.parts?.[0]?.text !== 'hi' ? 'artifact does not echo "hi"' : undefined,
  stream: (events: any[]): string | undefined => {
    if (events.length !== STREAM_EVENTS) return `${events.length} events, expected ${STREAM_EVENTS}`;
    if (!events[0]?.task) return 'first event is not a task';
    if (events[STREAM_EVENTS - 1]?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') return 'last event is not COMPLETED';
    if (events.filter((e) => e.artifactUpdate).length !== 10) return 'not 10 artifact updates';
    return undefined;
  },
};

interface GrpcServers {
  targets: Target[];
  /** The lean HTTP/2 load clients (h2Load.ts), one connection per server. */
  clients: Map<Target, H2GrpcClient>;
}

/**
 * The three gRPC servers, started afresh for each of rows 6 and 7 (as the HTTP rows: no row
 * inherits the tasks an earlier one left in memory), verified on both methods with a grpc-js
 * client (answers decoded and checked deeply), then loaded with the lean client.
 */
async function startGrpc(ctx: BenchContext): Promise<GrpcServers> {
  const roles: [Name, string][] = [
    ['ours', 'ours'],
    ['sdk', 'sdk'],
    ['ceiling', 'bare'],
  ];
  const targets = await Promise.all(roles.map(([role, kind]) => ctx.start(role, { script: 'grpc', args: [kind], name: `grpc-${kind}` })));
  const verify = async (t: Target): Promise<{ unary: Buffer; stream: Buffer[] }> => {
    const client = new GrpcLoadClient(t.ready.url);
    try {
      const unary = await client.unary(sendRequest('hi'));
      const stream = await client.stream(sendRequest('stream x'));
      const problem = grpcCheck.unary(unaryJson(unary)) ?? grpcCheck.stream(streamJson(stream));
      if (problem) throw new Error(`${t.name}: ${problem}`);
      return { unary, stream };
    } finally {
      client.close();
    }
  };
  const [ours, sdk, bare] = targets as [Target, Target, Target];
  const recorded = await verify(ours);
  await verify(sdk);
  await ctx.configure(bare, { type: 'canned-grpc', unary: recorded.unary.toString('base64'), stream: recorded.stream.map((b) => b.toString('base64')) } satisfies GrpcCannedConfig);
  await verify(bare);
  const clients = new Map(targets.map((t) => [t, new H2GrpcClient(t.ready.url)]));
  console.error(`gRPC servers answer correctly; ${GRPC_CONCURRENCY} concurrent calls on one HTTP/2 connection each (lean HTTP/2 load client, bench/h2Load.ts)`);
  return { targets, clients };
}

function grpcRow(key: string, title: string, streaming: boolean): ExtraRow {
  return {
    key,
    title,
    run: async (ctx, index) => {
      const { targets, clients } = await startGrpc(ctx);
      const unit = streaming ? 'events/s' : 'req/s';
      const result: RowResult = { index, row: key, title, unit, results: {}, labels: { ceiling: 'bare grpc-js' } };
      const clientCpu: string[] = [];
      try {
        for (const t of measureOrder(targets, index)) {
          const client = clients.get(t)!;
          const m = await ctx.measured(title, unit, t, (duration) =>
            runGrpc({ client, streaming, text: streaming ? 'stream x' : 'hi', concurrency: GRPC_CONCURRENCY, duration, expectedEvents: STREAM_EVENTS }),
          );
          result.results[t.role] = m;
          clientCpu.push(`${t.role === 'ceiling' ? 'bare' : t.role} ${fmt(m.extra?.clientCpuUsPerCall ?? NaN)}`);
        }
      } finally {
        for (const c of clients.values()) c.close();
        await Promise.all(targets.map(ctx.stop));
      }
      result.note = `load client CPU µs/${streaming ? 'stream' : 'call'}: ${clientCpu.join(', ')}`;
      return ctx.ratios(result);
    },
  };
}

/** A PostgreSQL URL: A2A_TEST_POSTGRES_URL, or a throwaway cluster from scripts/ci-postgres.sh. */
function postgresUrl(root: string): { url?: string; reason?: string } {
  if (process.env.A2A_TEST_POSTGRES_URL) return { url: process.env.A2A_TEST_POSTGRES_URL };
  let out: string;
  try {
    out = execFileSync('bash', [`${root}scripts/ci-postgres.sh`, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error).trim().split('\n').slice(-3).join(' / ');
    return { reason: `A2A_TEST_POSTGRES_URL is not set and scripts/ci-postgres.sh start failed: ${stderr}` };
  }
  const value = (name: string) => out.match(new RegExp(`export ${name}='([^']*)'`))?.[1];
  const url = value('A2A_TEST_POSTGRES_URL');
  const dir = value('A2A_TEST_POSTGRES_DIR');
  if (dir) {
    process.on('exit', () => {
      try {
        execFileSync('bash', [`${root}scripts/ci-postgres.sh`, 'stop', dir], { stdio: 'ignore', timeout: 30_000 });
      } catch {
        /* best effort */
      }
    });
  }
  return url ? { url } : { reason: `scripts/ci-postgres.sh start printed no URL: ${out.slice(0, 200)}` };
}

type StoreRole = 'ours' | 'sdk';
const STORE_SERVERS: { role: StoreRole; script: string; label: string }[] = [
  { role: 'ours', script: 'store', label: 'ours' },
  { role: 'sdk', script: 'sdkStore', label: 'SDK' },
];

interface StoreRun {
  /** The row's number: which server goes first (measureOrder). */
  index: number;
  store: 'sqlite' | 'postgres';
  /** BENCH_* env both servers get; BENCH_SQLITE_PATH is added per server (its own file in `dir`). */
  env: Record<string, string>;
  dir: string;
  timeoutMs?: number;
  /** The database process doing part of the servers' work (PostgreSQL), see StartOptions. */
  outOfProcess?: string;
}

/**
 * Our server (servers/store.ts) and the SDK's with its DatabaseTaskStore (servers/sdkStore.ts),
 * on the same engine, one at a time (ours first on odd rows, measureOrder): start, `use`, stop. When the SDK's server answers wrong
 * (`use` throws), that is returned in `problems` for the row note; a wrong answer from ours aborts.
 */
async function eachStoreServer<T>(ctx: BenchContext, run: StoreRun, use: (t: Target) => Promise<T>): Promise<{ results: Partial<Record<StoreRole, T>>; problems: string[] }> {
  const results: Partial<Record<StoreRole, T>> = {};
  const problems: string[] = [];
  for (const { role, script, label } of measureOrder(STORE_SERVERS, run.index)) {
    const env = run.store === 'sqlite' ? { ...run.env, BENCH_SQLITE_PATH: join(run.dir, `${role}.db`) } : run.env;
    const t = await ctx.start(role, { script, env, name: `${role}-${run.store}`, timeoutMs: run.timeoutMs, ...(run.outOfProcess ? { outOfProcess: run.outOfProcess } : {}) });
    try {
      results[role] = await use(t);
    } catch (error) {
      if (role === 'ours') throw error;
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      console.error(`  !! ${label} store server answers wrong, not measured: ${message}`);
      problems.push(`${label} not measured: ${message}`);
    } finally {
      await ctx.stop(t);
    }
  }
  return { results, problems };
}

/** A temp dir for the SQLite files of one row, removed afterwards. */
async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(os.tmpdir(), 'a2a-bench-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function storeSendRow(store: 'sqlite' | 'postgres', title: string): ExtraRow {
  const key = `rpc-task-${store}`;
  return {
    key,
    title,
    run: (ctx, index) =>
      inTempDir(async (dir) => {
        const memory = await ctx.memoryBaseline();
        let env: Record<string, string> = { BENCH_STORE: 'sqlite' };
        let outOfProcess: string | undefined;
        if (store === 'postgres') {
          const pg = postgresUrl(ctx.root);
          if (!pg.url) {
            console.error(`  skipping "${title}": ${pg.reason}`);
            return { index, row: key, title, unit: 'req/s', results: {}, note: `skipped: ${pg.reason}` };
          }
          env = { BENCH_STORE: 'postgres', BENCH_POSTGRES_URL: pg.url };
          outOfProcess = 'PostgreSQL';
        }
        const row = ctx.sendTaskRow;
        const run: StoreRun = { index, store, env, dir, ...(outOfProcess ? { outOfProcess } : {}) };
        const { results, problems } = await eachStoreServer(ctx, run, async (t) => {
          await ctx.sample(row, t, '');
          return ctx.measured(title, 'req/s', t, (d) => ctx.measureHttp(row, t, '', d));
        });
        const shares = STORE_SERVERS.filter(({ role }) => results[role] && memory[role]).map(
          ({ role, label }) => `${label} ${fmt(results[role]!.rps / memory[role]!.rps, 2)}x its in-memory (row 1: ${fmt(memory[role]!.rps)} req/s)`,
        );
        const kept = outOfProcess ? [`median of each server's attempts; rate/core left out (${outOfProcess}'s CPU is not counted)`] : [];
        return ctx.ratios({ index, row: key, title, unit: 'req/s', results, note: [...shares, ...kept, ...problems].join('; '), ...(outOfProcess ? { outOfProcess } : {}) });
      }),
  };
}

const sqliteGetRow: ExtraRow = {
  key: 'rpc-get-sqlite-100k',
  title: `JSON-RPC GetTask, SQLite, ${PREFILL / 1000}k tasks`,
  run: (ctx, index) =>
    inTempDir(async (dir) => {
      const title = sqliteGetRow.title;
      const randomId = () => prefillId(Math.floor(Math.random() * PREFILL));
      const row = ctx.getTaskRow;
      const verify = (b: string) => b.includes(row.marker) && !b.includes('"error"');
      const run: StoreRun = { index, store: 'sqlite', env: { BENCH_STORE: 'sqlite', BENCH_PREFILL: String(PREFILL) }, dir, timeoutMs: 180_000 };
      const { results, problems } = await eachStoreServer(ctx, run, async (t) => {
        await ctx.sample(row, t, randomId());
        const m = await ctx.measured(title, 'req/s', t, (duration) =>
          runHttp({
            url: row.endpoint(t.ready),
            headers: row.headers,
            body: row.body('', prefillId(0)),
            nextBody: () => row.body('', randomId()),
            connections: ctx.connections,
            duration,
            verify,
          }),
        );
        // The goal (p99 < 5 ms at 100k tasks) is about the lookup, not the queue at 64 connections.
        const idle = await probeLatency({ url: row.endpoint(t.ready), headers: row.headers, body: () => row.body('', randomId()), verify, count: 2000 });
        const info = t.ready.info ?? {};
        const tasks = info.tasks ?? NaN;
        const bytes = info.fileBytes ?? NaN;
        return {
          m,
          note: `unloaded p50 ${fmt(idle.p50, 2)} ms p99 ${fmt(idle.p99, 2)} ms; ${fmt(bytes / tasks)} B/task (${fmt(bytes / 1e6, 1)} MB / ${tasks} tasks, prefill ${fmt(info.prefillSeconds ?? NaN, 1)} s)`,
        };
      });
      const notes = STORE_SERVERS.filter(({ role }) => results[role]).map(({ role, label }) => `${label}: ${results[role]!.note}`);
      return ctx.ratios({
        index,
        row: sqliteGetRow.key,
        title,
        unit: 'req/s',
        results: { ours: results.ours?.m, sdk: results.sdk?.m },
        note: [...notes, 'random ids', ...problems].join('; '),
      });
    }),
};

export const EXTRA_ROWS: ExtraRow[] = [
  grpcRow('grpc-unary', `gRPC SendMessage -> Task (${GRPC_CONCURRENCY} calls)`, false),
  grpcRow('grpc-stream', `gRPC SendStreamingMessage (events/s, ${GRPC_CONCURRENCY} calls)`, true),
  storeSendRow('sqlite', 'JSON-RPC SendMessage -> Task, SQLite'),
  storeSendRow('postgres', 'JSON-RPC SendMessage -> Task, PostgreSQL'),
  sqliteGetRow,
];
