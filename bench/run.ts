/**
 * `npm run bench`: our server vs the official @a2a-js/sdk server vs a bare node:http "ceiling",
 * each in its own child process, loaded from this process (autocannon / an SSE fetch loop).
 *
 *   npx tsx bench/run.ts [--duration 5] [--quick] [--connections 64] [--rows 1,2,5]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readSse, runHttp, runSse, type Measurement } from './load.js';
import type { Canned, CeilingConfig, Ready } from './servers/ipc.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    connections: { type: 'string', default: '64' },
    rows: { type: 'string' },
  },
});
const DURATION = args.quick ? 2 : Number(args.duration);
const WARMUP = 1;
const CONNECTIONS = Number(args.connections);
const STREAMS = 32;
const STREAM_EVENTS = 13;

type Name = 'ours' | 'sdk' | 'ceiling';
interface Target {
  name: Name;
  ready: Ready;
  child: ChildProcess;
  exited: boolean;
}

// ---- servers -------------------------------------------------------------------------------

const children: ChildProcess[] = [];
function killAll(): void {
  for (const c of children) if (c.exitCode === null) c.kill();
}
process.on('exit', killAll);
process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});

function start(name: Name): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', `bench/servers/${name}.ts`], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server did not start within 30 s`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} server exited before it was ready (code ${code})`));
    });
    child.once('message', (msg: Ready) => {
      clearTimeout(timer);
      const target: Target = { name, ready: msg, child, exited: false };
      child.removeAllListeners('exit');
      child.once('exit', (code) => {
        target.exited = true;
        console.error(`!! ${name} server exited (code ${code})`);
      });
      resolve(target);
    });
  });
}

function configureCeiling(t: Target, routes: Record<string, Canned>): Promise<void> {
  return new Promise((resolve) => {
    t.child.once('message', () => resolve());
    t.child.send({ type: 'canned', routes } satisfies CeilingConfig);
  });
}

// ---- rows ----------------------------------------------------------------------------------

const JSONRPC_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const REST_HEADERS = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' };
const SSE_HEADERS = { ...JSONRPC_HEADERS, accept: 'text/event-stream' };

const sendParams = (text: string, id: string) => ({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] } });
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
interface Row {
  key: string;
  title: string;
  sse?: boolean;
  /** Endpoint on our/the SDK's server. */
  endpoint: (r: Ready) => string;
  headers: Record<string, string>;
  /** Request body; `id` is a fresh message id (`[<id>]` under autocannon), taskId the GetTask target. */
  body: (id: string, taskId: string) => string;
  /** Why a sample answer is wrong, or undefined. */
  check: (json: Json, taskId: string) => string | undefined;
  /** Substring every loaded response must contain. */
  marker: string;
}

const completedTask = (t: Json): string | undefined =>
  t?.status?.state !== 'TASK_STATE_COMPLETED'
    ? `state ${t?.status?.state}`
    : t.artifacts?.[0]?.parts?.[0]?.text !== 'hi'
      ? 'artifact does not echo "hi"'
      : undefined;

const ROWS: Row[] = [
  {
    key: 'rpc-task',
    title: 'JSON-RPC SendMessage -> Task',
    endpoint: (r) => r.jsonrpc,
    headers: JSONRPC_HEADERS,
    body: (id) => rpc('SendMessage', sendParams('hi', id)),
    check: (j) => (j.error ? JSON.stringify(j.error) : completedTask(j.result?.task)),
    marker: 'TASK_STATE_COMPLETED',
  },
  {
    key: 'rpc-message',
    title: 'JSON-RPC SendMessage -> Message',
    endpoint: (r) => r.jsonrpc,
    headers: JSONRPC_HEADERS,
    body: (id) => rpc('SendMessage', sendParams('msg hi', id)),
    check: (j) =>
      j.error ? JSON.stringify(j.error) : j.result?.message?.role !== 'ROLE_AGENT' ? 'no agent message' : j.result.message.parts?.[0]?.text !== 'hi' ? 'reply is not "hi"' : undefined,
    marker: '"ROLE_AGENT"',
  },
  {
    key: 'rest-send',
    title: 'REST message:send -> Task',
    endpoint: (r) => `${r.rest}/message:send`,
    headers: REST_HEADERS,
    body: (id) => JSON.stringify(sendParams('hi', id)),
    check: (j) => completedTask(j.task),
    marker: 'TASK_STATE_COMPLETED',
  },
  {
    key: 'rpc-get',
    title: 'JSON-RPC GetTask',
    endpoint: (r) => r.jsonrpc,
    headers: JSONRPC_HEADERS,
    body: (_id, taskId) => rpc('GetTask', { id: taskId }),
    check: (j, taskId) => (j.error ? JSON.stringify(j.error) : j.result?.id !== taskId ? 'wrong task' : completedTask(j.result)),
    marker: 'TASK_STATE_COMPLETED',
  },
  {
    key: 'rpc-stream',
    title: `SSE SendStreamingMessage (events/s, ${STREAMS} streams)`,
    sse: true,
    endpoint: (r) => r.jsonrpc,
    headers: SSE_HEADERS,
    body: (id) => rpc('SendStreamingMessage', sendParams('stream x', id)),
    check: (events: Json[]) => {
      if (events.length !== STREAM_EVENTS) return `${events.length} events, expected ${STREAM_EVENTS}: ${JSON.stringify(events).slice(0, 300)}`;
      if (!events[0]?.result?.task) return 'first event is not a task';
      if (events[STREAM_EVENTS - 1]?.result?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') return 'last event is not COMPLETED';
      if (events.filter((e) => e.result?.artifactUpdate).length !== 10) return 'not 10 artifact updates';
      return undefined;
    },
    marker: 'TASK_STATE_COMPLETED',
  },
];

const endpointOf = (row: Row, t: Target): string => (t.name === 'ceiling' ? `${t.ready.url}/${row.key}` : row.endpoint(t.ready));

/** One request; checks it and returns what the ceiling should answer on this row. */
async function sample(row: Row, t: Target, taskId: string): Promise<Canned> {
  const url = endpointOf(row, t);
  const body = row.body(crypto.randomUUID(), taskId);
  if (row.sse) {
    const { status, events } = await readSse(url, row.headers, body);
    const problem = status !== 200 ? `HTTP ${status}` : row.check(events.map((e) => JSON.parse(e)), taskId);
    if (problem) throw new Error(`${t.name} / ${row.title}: ${problem}`);
    return { contentType: 'text/event-stream', sse: events.map((e) => `data: ${e}\n\n`) };
  }
  const res = await fetch(url, { method: 'POST', headers: row.headers, body });
  const text = await res.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${t.name} / ${row.title}: HTTP ${res.status}, not JSON: ${text.slice(0, 300)}`);
  }
  const problem = res.status !== 200 ? `HTTP ${res.status} ${text.slice(0, 300)}` : row.check(json, taskId);
  if (problem) throw new Error(`${t.name} / ${row.title}: ${problem}\n  ${text.slice(0, 500)}`);
  return { contentType: res.headers.get('content-type') ?? 'application/json', body: text };
}

async function createTask(t: Target): Promise<string> {
  const res = await fetch(t.ready.jsonrpc, { method: 'POST', headers: JSONRPC_HEADERS, body: rpc('SendMessage', sendParams('hi', crypto.randomUUID())) });
  const json = (await res.json()) as Json;
  const id = json?.result?.task?.id;
  if (typeof id !== 'string') throw new Error(`${t.name}: could not create a task for GetTask: ${JSON.stringify(json)}`);
  return id;
}

async function measure(row: Row, t: Target, taskId: string, duration: number): Promise<Measurement> {
  const url = endpointOf(row, t);
  if (row.sse) {
    return runSse({
      url,
      headers: row.headers,
      body: () => row.body(crypto.randomUUID(), taskId),
      concurrency: STREAMS,
      duration,
      expectedEvents: STREAM_EVENTS,
      lastEventMarker: row.marker,
    });
  }
  const marker = row.marker;
  return runHttp({
    url,
    headers: row.headers,
    body: row.body('[<id>]', taskId),
    connections: CONNECTIONS,
    duration,
    verify: (b) => b.includes(marker) && !b.includes('"error"'),
  });
}

// ---- report --------------------------------------------------------------------------------

interface RowResult {
  row: string;
  title: string;
  unit: 'req/s' | 'events/s';
  results: Partial<Record<Name, Measurement>>;
  oursOverSdk?: number;
  oursOverCeiling?: number;
}

const fmt = (n: number | undefined, digits = 0): string => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));

function table(rows: RowResult[]): string {
  const head = ['#', 'row', 'server', 'rate', 'p50 ms', 'p99 ms', 'errors', 'ours/SDK', 'ours/ceiling'];
  const lines: string[][] = [head];
  rows.forEach((r, i) => {
    for (const name of ['ours', 'sdk', 'ceiling'] as const) {
      const m = r.results[name];
      if (!m) continue;
      const first = name === 'ours' || (name === 'sdk' && !r.results.ours);
      lines.push([
        first ? String(i + 1) : '',
        first ? r.title : '',
        name,
        `${fmt(m.rps)} ${r.unit}`,
        fmt(m.p50, 2),
        fmt(m.p99, 2),
        String(m.errors),
        name === 'ours' ? `${fmt(r.oursOverSdk, 2)}x` : '',
        name === 'ours' ? fmt(r.oursOverCeiling, 2) : '',
      ]);
    }
  });
  const widths = head.map((_, c) => Math.max(...lines.map((l) => (l[c] ?? '').length)));
  const right = new Set([3, 4, 5, 6, 7, 8]);
  const render = (l: string[]) => l.map((cell, c) => (right.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ');
  return [render(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(render)].join('\n');
}

// ---- main ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const oursAvailable = existsSync(`${root}src/node/serve.ts`) && existsSync(`${root}src/server/createA2AHandler.ts`);
  if (!oursAvailable) console.error('!! our server (src/node/serve.ts, src/server/createA2AHandler.ts) is missing: benchmarking the SDK and the ceiling only');
  const [ours, sdk, ceiling] = await Promise.all([oursAvailable ? start('ours') : undefined, start('sdk'), start('ceiling')]);
  const servers = [ours, sdk].filter((t): t is Target => t !== undefined);
  const targets = [...servers, ceiling];
  const selected = args.rows ? ROWS.filter((_, i) => args.rows!.split(',').map(Number).includes(i + 1)) : ROWS;

  // Verify every server on every row before loading it; record the ceiling's canned answers.
  const taskIds: Partial<Record<Name, string>> = {};
  for (const t of servers) taskIds[t.name] = await createTask(t);
  taskIds.ceiling = taskIds[servers[0]!.name];
  const routes: Record<string, Canned> = {};
  for (const row of selected) {
    for (const t of servers) {
      const canned = await sample(row, t, taskIds[t.name]!);
      routes[`/${row.key}`] ??= canned; // ours first when present
    }
  }
  await configureCeiling(ceiling, routes);
  for (const row of selected) await sample(row, ceiling, taskIds.ceiling!);
  console.error(`all servers answer correctly; ${selected.length} rows x ${targets.length} servers, ${WARMUP}s warm-up + ${DURATION}s each, ${CONNECTIONS} connections (SSE: ${STREAMS} streams)`);

  const report: RowResult[] = [];
  const failures: string[] = [];
  for (const row of selected) {
    const result: RowResult = { row: row.key, title: row.title, unit: row.sse ? 'events/s' : 'req/s', results: {} };
    for (const t of targets) {
      const warm = await measure(row, t, taskIds[t.name]!, WARMUP);
      const m = await measure(row, t, taskIds[t.name]!, DURATION);
      if (t.exited) throw new Error(`${t.name} server died during "${row.title}"`);
      const errors = warm.errors + m.errors;
      if (errors > 0) failures.push(`${t.name} / ${row.title}: ${errors} errors (warm-up ${warm.errors}, measured ${m.errors} of ${m.count})`);
      result.results[t.name] = m;
      console.error(`  ${row.title.padEnd(48)} ${t.name.padEnd(8)} ${fmt(m.rps).padStart(7)} ${result.unit}  p50 ${fmt(m.p50, 2)} ms  p99 ${fmt(m.p99, 2)} ms  errors ${m.errors}`);
    }
    const o = result.results.ours?.rps;
    if (o !== undefined) {
      result.oursOverSdk = o / (result.results.sdk?.rps ?? NaN);
      result.oursOverCeiling = o / (result.results.ceiling?.rps ?? NaN);
    }
    report.push(result);
  }

  console.log(`\nA2A server benchmark — node ${process.version}, ${os.cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION}s per row after ${WARMUP}s warm-up`);
  console.log(table(report));
  mkdirSync(`${root}bench/results`, { recursive: true });
  const json = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    durationSeconds: DURATION,
    warmupSeconds: WARMUP,
    connections: CONNECTIONS,
    sseStreams: STREAMS,
    oursAvailable,
    rows: report,
    failures,
  };
  writeFileSync(`${root}bench/results/latest.json`, `${JSON.stringify(json, null, 2)}\n`);
  console.log('\nwritten to bench/results/latest.json');
  if (failures.length > 0) {
    console.error(`\nFAILED: servers answered errors under load:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

main()
  .catch((error: unknown) => {
    console.error('\nbenchmark aborted:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(killAll);
