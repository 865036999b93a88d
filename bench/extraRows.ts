/**
 * Rows 6-10 (selected with --rows like 1-5):
 *   6-7  gRPC SendMessage / SendStreamingMessage: ours (serveGrpc) vs the SDK's gRPC server vs a
 *        bare grpc-js server replaying our answer bytes (the "ceiling" column);
 *   8-9  JSON-RPC SendMessage -> Task on our server with SqliteTaskStore / PostgresTaskStore,
 *        as a ratio to our in-memory row 1;
 *   10   JSON-RPC GetTask on random ids among 100,000 tasks stored in SQLite, bytes per task.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { GrpcLoadClient, runGrpc, sendRequest, streamJson, unaryJson } from './grpcLoad.js';
import { probeLatency } from './latencyProbe.js';
import { runHttp } from './load.js';
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

/** The three gRPC servers, started once for rows 6 and 7, verified on both methods. */
let grpcServers: Promise<{ targets: Target[]; clients: Map<Target, GrpcLoadClient> }> | undefined;
async function startGrpc(ctx: BenchContext): Promise<{ targets: Target[]; clients: Map<Target, GrpcLoadClient> }> {
  const roles: [Name, string][] = [
    ['ours', 'ours'],
    ['sdk', 'sdk'],
    ['ceiling', 'bare'],
  ];
  const targets = await Promise.all(roles.map(([role, kind]) => ctx.start(role, { script: 'grpc', args: [kind], name: `grpc-${kind}` })));
  const clients = new Map(targets.map((t) => [t, new GrpcLoadClient(t.ready.url)]));
  const verify = async (t: Target): Promise<{ unary: Buffer; stream: Buffer[] }> => {
    const client = clients.get(t)!;
    const unary = await client.unary(sendRequest('hi'));
    const stream = await client.stream(sendRequest('stream x'));
    const problem = grpcCheck.unary(unaryJson(unary)) ?? grpcCheck.stream(streamJson(stream));
    if (problem) throw new Error(`${t.name}: ${problem}`);
    return { unary, stream };
  };
  const [ours, sdk, bare] = targets as [Target, Target, Target];
  const recorded = await verify(ours);
  await verify(sdk);
  await ctx.configure(bare, { type: 'canned-grpc', unary: recorded.unary.toString('base64'), stream: recorded.stream.map((b) => b.toString('base64')) } satisfies GrpcCannedConfig);
  await verify(bare);
  console.error(`gRPC servers answer correctly; ${GRPC_CONCURRENCY} concurrent calls on one HTTP/2 connection each`);
  return { targets, clients };
}

function grpcRow(key: string, title: string, streaming: boolean, last: boolean): ExtraRow {
  return {
    key,
    title,
    run: async (ctx, index) => {
      grpcServers ??= startGrpc(ctx);
      const { targets, clients } = await grpcServers;
      const unit = streaming ? 'events/s' : 'req/s';
      const result: RowResult = { index, row: key, title, unit, results: {}, labels: { ceiling: 'bare grpc-js' } };
      for (const t of targets) {
        const client = clients.get(t)!;
        result.results[t.role] = await ctx.measured(title, unit, t, (duration) =>
          runGrpc({ client, streaming, text: streaming ? 'stream x' : 'hi', concurrency: GRPC_CONCURRENCY, duration, expectedEvents: STREAM_EVENTS }),
        );
      }
      if (last) {
        for (const c of clients.values()) c.close();
        await Promise.all(targets.map(ctx.stop));
        grpcServers = undefined;
      }
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

function storeSendRow(store: 'sqlite' | 'postgres', title: string): ExtraRow {
  const key = `rpc-task-${store}`;
  return {
    key,
    title,
    run: async (ctx, index) => {
      const baseline = await ctx.memoryBaseline();
      const dir = mkdtempSync(join(os.tmpdir(), 'a2a-bench-'));
      try {
        let env: Record<string, string>;
        if (store === 'sqlite') env = { BENCH_STORE: 'sqlite', BENCH_SQLITE_PATH: join(dir, 'tasks.db') };
        else {
          const pg = postgresUrl(ctx.root);
          if (!pg.url) {
            console.error(`  skipping "${title}": ${pg.reason}`);
            return { index, row: key, title, unit: 'req/s', results: {}, note: `skipped: ${pg.reason}` };
          }
          env = { BENCH_STORE: 'postgres', BENCH_POSTGRES_URL: pg.url };
        }
        const t = await ctx.start('ours', { script: 'store', env, name: `ours-${store}` });
        await ctx.sample(ctx.sendTaskRow, t, '');
        const m = await ctx.measured(title, 'req/s', t, (d) => ctx.measureHttp(ctx.sendTaskRow, t, '', d));
        await ctx.stop(t);
        return { index, row: key, title, unit: 'req/s', results: { ours: m }, note: `${fmt(m.rps / baseline.rps, 2)}x in-memory (row 1: ${fmt(baseline.rps)} req/s)` };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

const sqliteGetRow: ExtraRow = {
  key: 'rpc-get-sqlite-100k',
  title: `JSON-RPC GetTask, SQLite, ${PREFILL / 1000}k tasks`,
  run: async (ctx, index) => {
    const title = `JSON-RPC GetTask, SQLite, ${PREFILL / 1000}k tasks`;
    const dir = mkdtempSync(join(os.tmpdir(), 'a2a-bench-'));
    try {
      const t = await ctx.start('ours', {
        script: 'store',
        env: { BENCH_STORE: 'sqlite', BENCH_SQLITE_PATH: join(dir, 'tasks.db'), BENCH_PREFILL: String(PREFILL) },
        name: 'ours-sqlite',
        timeoutMs: 180_000,
      });
      const info = t.ready.info ?? {};
      const tasks = info.tasks ?? NaN;
      const randomId = () => prefillId(Math.floor(Math.random() * PREFILL));
      const row = ctx.getTaskRow;
      await ctx.sample(row, t, randomId());
      const m = await ctx.measured(title, 'req/s', t, (duration) =>
        runHttp({
          url: row.endpoint(t.ready),
          headers: row.headers,
          body: row.body('', prefillId(0)),
          nextBody: () => row.body('', randomId()),
          connections: ctx.connections,
          duration,
          verify: (b) => b.includes(row.marker) && !b.includes('"error"'),
        }),
      );
      // The goal (p99 < 5 ms at 100k tasks) is about the lookup, not the queue at 64 connections.
      const idle = await probeLatency({
        url: row.endpoint(t.ready),
        headers: row.headers,
        body: () => row.body('', randomId()),
        verify: (b) => b.includes(row.marker) && !b.includes('"error"'),
        count: 2000,
      });
      await ctx.stop(t);
      const bytes = (info.fileBytes ?? NaN) / tasks;
      return {
        index,
        row: sqliteGetRow.key,
        title,
        unit: 'req/s',
        results: { ours: m },
        note: `unloaded p50 ${fmt(idle.p50, 2)} ms p99 ${fmt(idle.p99, 2)} ms; random ids; ${fmt(bytes)} B/task (${fmt((info.fileBytes ?? NaN) / 1e6, 1)} MB / ${tasks} tasks, prefill ${fmt(info.prefillSeconds ?? NaN, 1)} s)`,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const EXTRA_ROWS: ExtraRow[] = [
  grpcRow('grpc-unary', `gRPC SendMessage -> Task (${GRPC_CONCURRENCY} calls)`, false, false),
  grpcRow('grpc-stream', `gRPC SendStreamingMessage (events/s, ${GRPC_CONCURRENCY} calls)`, true, true),
  storeSendRow('sqlite', 'JSON-RPC SendMessage -> Task, SQLite'),
  storeSendRow('postgres', 'JSON-RPC SendMessage -> Task, PostgreSQL'),
  sqliteGetRow,
];
