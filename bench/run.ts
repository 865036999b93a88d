/**
 * `npm run bench`: our server vs the official @a2a-js/sdk server vs a bare node:http "ceiling",
 * each in its own child process, loaded from this process (autocannon). Servers are measured in
 * alternating order (bench/sampling.ts: ours first on odd rows, last on even rows).
 *
 *   npx tsx bench/run.ts [--duration 5] [--quick] [--connections 64] [--rows 1,2,5] [--retries 2] [--passes 1] [--cpu-prof]
 *
 * Rows 1-5: HTTP (ours / sdk / ceiling), 6-7: gRPC (ours / sdk / bare grpc-js), 8-10: our server
 * and the SDK's server on SQLite / PostgreSQL stores (see extraRows.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readSse, runHttp, runSse, type Measurement } from './load.js';
import type { Canned, CeilingConfig, Ready } from './servers/ipc.js';
import { EXTRA_ROWS } from './extraRows.js';
import { writeResults } from './report.js';
import { keptAttempt, measureOrder } from './sampling.js';
import { formatSpread, summarizePasses } from './passes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    connections: { type: 'string', default: '64' },
    rows: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    retries: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    passes: { type: 'string', default: '1' },
  },
});
const DURATION = args.quick ? 2 : Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const STREAMS = 32;
const STREAM_EVENTS = 13;
const SETTLE_MS = 750;
/** Share of a core used by unrelated processes above which a measurement is flagged. */
const NOISY = 0.15;
const RETRIES = Number(args.retries);
const PASSES = Number(args.passes);
if (!Number.isInteger(PASSES) || PASSES < 1) throw new Error(`--passes must be a whole number of at least 1, not ${args.passes}`);

export type Name = 'ours' | 'sdk' | 'ceiling';
export interface Target {
  /** Process label (ours, grpc-bare, ours-sqlite...). */
  name: string;
  /** Column it fills in a row: bare gRPC is that row's ceiling. */
  role: Name;
  ready: Ready;
  child: ChildProcess;
  /** Part of its work runs in another process, named here (the database): see StartOptions. */
  outOfProcess?: string;
  exited: boolean;
  stopping?: boolean;
}

// ---- servers -------------------------------------------------------------------------------

const children: ChildProcess[] = [];
/** Every server started and not stopped: all of them count as "ours" in the foreign-CPU figure. */
const live: Target[] = [];
let shuttingDown = false;
function killAll(): void {
  shuttingDown = true;
  for (const c of children) if (c.exitCode === null) c.kill();
}
process.on('exit', killAll);
process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});

export interface StartOptions {
  /** bench/servers/<script>.ts (default: the role). */
  script?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Process label (default: the role). */
  name?: string;
  timeoutMs?: number;
  /**
   * Another process does part of this server's work (PostgreSQL): its CPU counts as foreign, so
   * measured() keeps the median attempt, not the calmest, and flags nothing as noisy.
   */
  outOfProcess?: string;
}

export function start(role: Name, options: StartOptions = {}): Promise<Target> {
  const name = options.name ?? role;
  const prof = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=bench/results/profiles/${name}`] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', `bench/servers/${options.script ?? role}.ts`, ...(options.args ?? [])], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} server did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} server exited before it was ready (code ${code})`));
    });
    child.once('message', (msg: Ready) => {
      clearTimeout(timer);
      const target: Target = { name, role, ready: msg, child, exited: false, ...(options.outOfProcess ? { outOfProcess: options.outOfProcess } : {}) };
      child.removeAllListeners('exit');
      child.once('exit', (code) => {
        target.exited = true;
        live.splice(live.indexOf(target), 1);
        if (!shuttingDown && !target.stopping) console.error(`!! ${name} server exited (code ${code})`);
      });
      live.push(target);
      resolve(target);
    });
  });
}

/** Stops a server the remaining rows do not need (its exit is awaited, so it no longer uses CPU). */
export function stop(t: Target): Promise<void> {
  if (t.exited) return Promise.resolve();
  t.stopping = true;
  return new Promise((resolve) => {
    t.child.once('exit', () => resolve());
    t.child.kill();
  });
}

/** Sends a config message to a child and waits for its ack. */
export function configure(t: Target, msg: unknown): Promise<void> {
  return new Promise((resolve) => {
    t.child.once('message', () => resolve());
    t.child.send(msg as object);
  });
}

function configureCeiling(t: Target, routes: Record<string, Canned>): Promise<void> {
  return configure(t, { type: 'canned', routes } satisfies CeilingConfig);
}

// ---- rows ----------------------------------------------------------------------------------

const JSONRPC_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const REST_HEADERS = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' };
const SSE_HEADERS = { ...JSONRPC_HEADERS, accept: 'text/event-stream' };

const sendParams = (text: string, id: string) => ({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] } });
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
export interface Row {
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
export async function sample(row: Row, t: Target, taskId: string): Promise<Canned> {
  const url = endpointOf(row, t);
  const body = row.body(crypto.randomUUID(), taskId);
  if (row.sse) {
    const { status, events, raw } = await readSse(url, row.headers, body, true);
    const problem = status !== 200 ? `HTTP ${status}` : row.check(events.map((e) => JSON.parse(e)), taskId);
    if (problem) throw new Error(`${t.name} / ${row.title}: ${problem}`);
    return { contentType: 'text/event-stream', sse: raw };
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

export async function measure(row: Row, t: Target, taskId: string, duration: number): Promise<Measurement> {
  const url = endpointOf(row, t);
  if (row.sse) {
    return runSse({
      url,
      headers: row.headers,
      body: row.body('[<id>]', taskId),
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

/** CPU seconds used so far by a process (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, USER_HZ = 100
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine spent busy (all cores, incl. steal), from /proc/stat. */
function machineBusySeconds(): number | undefined {
  try {
    const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` and reports the CPU share (1.0 = one full core) each server process used meanwhile,
 * and `foreign`: what everything else on the machine used besides this process and the servers.
 */
async function withCpu<T>(targets: Target[], fn: () => Promise<T>): Promise<{ value: T; cpu: Partial<Record<string, number>> }> {
  const before = targets.map((t) => cpuSeconds(t.child.pid));
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const wall = (performance.now() - started) / 1000;
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineBusySeconds();
  const cpu: Partial<Record<string, number>> = {};
  let servers = 0;
  targets.forEach((t, i) => {
    const a = before[i];
    const b = cpuSeconds(t.child.pid);
    if (a !== undefined && b !== undefined) {
      cpu[t.name] = (b - a) / wall;
      servers += b - a;
    }
  });
  if (machineBefore !== undefined && machineAfter !== undefined) {
    const mine = (self.user + self.system) / 1e6 + servers;
    cpu.foreign = Math.max(0, (machineAfter - machineBefore - mine) / wall);
  }
  return { value, cpu };
}

/** Lets the previous server finish its after-load work (GC, cleanup) so it doesn't steal CPU. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

// ---- report --------------------------------------------------------------------------------

export interface RowResult {
  /** 1-based row number (ROWS, then EXTRA_ROWS). */
  index: number;
  row: string;
  title: string;
  unit: 'req/s' | 'events/s';
  results: Partial<Record<Name, Measurement>>;
  oursOverSdk?: number;
  oursOverCeiling?: number;
  /** The same ratios on rate per server core (rate / srv cpu): steadier on a busy machine. */
  oursOverSdkPerCore?: number;
  oursOverCeilingPerCore?: number;
  /** Server column text when not the role name (gRPC: ceiling = "bare grpc-js"). */
  labels?: Partial<Record<Name, string>>;
  /** Row-specific figures (store rows: ratio to in-memory, bytes per task). */
  note?: string;
  /**
   * Part of the servers' work runs in this other process (the database), whose CPU is not
   * counted: rate/core and the per-core ratios are left out (they would credit the servers
   * with the database's work).
   */
  outOfProcess?: string;
}

/** Rate per core the server used: how much work one core does, whatever the machine load. */
const perCore = (m: Measurement | undefined): number => (m?.cpu ? m.rps / m.cpu : NaN);

export const fmt = (n: number | undefined, digits = 0): string => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));
/** A ratio as `2.35x`, or `-` when there is none. */
const times = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? '-' : `${fmt(n, 2)}x`);

/** The ratios of every row across passes: median (min–max). */
function passesTable(summary: ReturnType<typeof summarizePasses>): string {
  const head = ['#', 'row', 'passes', 'ours/SDK', '(per core)', 'ours/ceiling', '(per core)'];
  const lines = summary.map((s) => [String(s.index), s.title, String(s.passes), formatSpread(s.oursOverSdk), formatSpread(s.oursOverSdkPerCore), formatSpread(s.oursOverCeiling, ''), formatSpread(s.oursOverCeilingPerCore, '')]);
  const widths = head.map((_, c) => Math.max(...[head, ...lines].map((l) => (l[c] ?? '').length)));
  const render = (l: string[]) => l.map((cell, c) => (c >= 2 ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ');
  return [`Across ${summary[0]?.passes ?? 0} passes: median (min–max) of each ratio`, render(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(render)].join('\n');
}

function table(rows: RowResult[]): string {
  const notes = rows.some((r) => r.note);
  const head = ['#', 'row', 'server', 'rate', 'p50 ms', 'p99 ms', 'srv cpu', 'rate/core', 'non-2xx', 'errors', 'ours/SDK', '(per core)', 'ours/ceiling', '(per core)', ...(notes ? ['note'] : [])];
  const lines: string[][] = [head];
  rows.forEach((r) => {
    for (const name of ['ours', 'sdk', 'ceiling'] as const) {
      const m = r.results[name];
      if (!m) continue;
      const first = name === 'ours' || (name === 'sdk' && !r.results.ours);
      lines.push([
        first ? String(r.index) : '',
        first ? r.title : '',
        r.labels?.[name] ?? name,
        `${fmt(m.rps)} ${r.unit}`,
        fmt(m.p50, 1),
        fmt(m.p99, 1),
        m.cpu === undefined ? '-' : `${fmt(m.cpu * 100)}%`,
        r.outOfProcess ? '-' : fmt(perCore(m)),
        String(m.non2xx),
        String(m.errors),
        name === 'ours' ? times(r.oursOverSdk) : '',
        name === 'ours' ? times(r.oursOverSdkPerCore) : '',
        name === 'ours' ? fmt(r.oursOverCeiling, 2) : '',
        name === 'ours' ? fmt(r.oursOverCeilingPerCore, 2) : '',
        ...(notes ? [first ? (r.note ?? '') : ''] : []),
      ]);
    }
  });
  const widths = head.map((_, c) => Math.max(...lines.map((l) => (l[c] ?? '').length)));
  const right = new Set([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  const render = (l: string[]) => l.map((cell, c) => (right.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ');
  return [render(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(render)].join('\n');
}

// ---- main ----------------------------------------------------------------------------------

/**
 * Rows 1-5: ours, the SDK and the ceiling over HTTP. Every row runs on fresh server processes,
 * so no row inherits what an earlier one left in a server's memory: the in-memory stores keep
 * every task, and a faster server would carry more of them into the next row (ours ~115,000 per
 * SendMessage row, the SDK ~20,000), a bigger heap for its garbage collector to walk.
 */
async function httpRows(selected: Row[], oursAvailable: boolean, report: RowResult[]): Promise<void> {
  if (!oursAvailable) console.error('!! our server (src/node/serve.ts, src/server/createA2AHandler.ts) is missing: benchmarking the SDK and the ceiling only');
  console.error(`${selected.length} rows x ${oursAvailable ? 3 : 2} servers, each row on fresh processes, ${WARMUP}s warm-up + ${DURATION}s each, ${CONNECTIONS} connections (SSE: ${STREAMS} streams)`);
  for (const row of selected) {
    const [ours, sdk, ceiling] = await Promise.all([oursAvailable ? start('ours') : undefined, start('sdk'), start('ceiling')]);
    const servers = [ours, sdk].filter((t): t is Target => t !== undefined);
    const targets = [...servers, ceiling];
    try {
      // Check every server's answer before any load; the ceiling replays ours (the first server).
      const taskIds: Partial<Record<string, string>> = {};
      let canned: Canned | undefined;
      for (const t of servers) {
        taskIds[t.name] = await createTask(t);
        const answer = await sample(row, t, taskIds[t.name]!);
        canned ??= answer;
      }
      taskIds.ceiling = taskIds[servers[0]!.name];
      await configureCeiling(ceiling, { [`/${row.key}`]: canned! });
      await sample(row, ceiling, taskIds.ceiling!);
      const result: RowResult = { index: ROWS.indexOf(row) + 1, row: row.key, title: row.title, unit: row.sse ? 'events/s' : 'req/s', results: {} };
      for (const t of measureOrder(targets, result.index)) {
        result.results[t.role] = await measured(row.title, result.unit, t, (d) => measure(row, t, taskIds[t.name]!, d));
      }
      report.push(ratios(result));
    } finally {
      await Promise.all(targets.map(stop));
    }
  }
}

const failures: string[] = [];
const noisy = new Set<string>();

/**
 * One measurement of `t` (warm-up, then `DURATION` s), retried while other processes disturb it;
 * keeps the calmest attempt, records failures and still-noisy results, prints a progress line.
 * A server with `outOfProcess` work (the database) is measured RETRIES + 1 times and keeps the
 * median attempt: the database's CPU counts as foreign, so "calmest" would pick the attempt
 * where the database did least (the slowest), and foreign CPU cannot tell noise from it.
 */
export async function measured(title: string, unit: string, t: Target, run: (seconds: number) => Promise<Measurement>): Promise<Measurement> {
  const attempts: Measurement[] = [];
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    await settle();
    const warm = await run(WARMUP);
    const targets = [...live];
    const { value, cpu } = await withCpu(targets, () => run(DURATION));
    value.cpu = cpu[t.name];
    // Everything but the load generator and the server under test, idle benchmark servers included.
    value.foreignCpu = targets.reduce((sum, o) => sum + (o === t ? 0 : (cpu[o.name] ?? 0)), cpu.foreign ?? 0);
    if (t.exited) throw new Error(`${t.name} server died during "${title}"`);
    const bad = warm.errors + warm.non2xx + value.errors + value.non2xx;
    if (bad > 0) {
      failures.push(`${t.name} / ${title}: warm-up ${warm.non2xx} non-2xx + ${warm.errors} errors; measured ${value.non2xx} non-2xx + ${value.errors} errors of ${value.count}`);
    }
    attempts.push(value);
    if (t.outOfProcess) continue;
    if ((value.foreignCpu ?? 0) <= NOISY) break;
    console.error(`  !! ${t.name}: other processes used ${fmt((value.foreignCpu ?? 0) * 100)}% CPU meanwhile${attempt < RETRIES ? ', measuring again' : ''}`);
  }
  const m = keptAttempt(attempts, t.outOfProcess ? 'median' : 'calmest');
  if (!t.outOfProcess && (m.foreignCpu ?? 0) > NOISY) noisy.add(`${t.name} / ${title} (${fmt((m.foreignCpu ?? 0) * 100)}% foreign CPU)`);
  const kept = t.outOfProcess ? `  (median of ${attempts.length}: ${attempts.map((a) => fmt(a.rps)).join(', ')}; ${t.outOfProcess} CPU not counted)` : '';
  console.error(`  ${title.padEnd(48)} ${t.name.padEnd(11)} ${fmt(m.rps).padStart(7)} ${unit}  p50 ${fmt(m.p50, 1)} ms  p99 ${fmt(m.p99, 1)} ms  cpu ${fmt((m.cpu ?? NaN) * 100)}%  non-2xx ${m.non2xx}  errors ${m.errors}${kept}`);
  return m;
}

/** Fills the ratio fields from results.ours / sdk / ceiling. */
export function ratios(result: RowResult): RowResult {
  const o = result.results.ours?.rps;
  if (o !== undefined) {
    result.oursOverSdk = o / (result.results.sdk?.rps ?? NaN);
    result.oursOverCeiling = o / (result.results.ceiling?.rps ?? NaN);
    if (result.outOfProcess) return result;
    result.oursOverSdkPerCore = perCore(result.results.ours) / perCore(result.results.sdk);
    result.oursOverCeilingPerCore = perCore(result.results.ours) / perCore(result.results.ceiling);
  }
  return result;
}

/** What the extra rows (extraRows.ts) get from the runner. */
export interface BenchContext {
  start: typeof start;
  stop: typeof stop;
  configure: typeof configure;
  measured: typeof measured;
  ratios: typeof ratios;
  /** Our and the SDK's in-memory servers on row 1 (JSON-RPC SendMessage -> Task): this run's figures, or measured now. */
  memoryBaseline: () => Promise<Partial<Record<Name, Measurement>>>;
  /** JSON-RPC row 1 / row 4 definitions, to reuse on other servers. */
  sendTaskRow: Row;
  getTaskRow: Row;
  sample: typeof sample;
  measureHttp: typeof measure;
  root: string;
  connections: number;
  duration: number;
}

const oursAvailable = existsSync(`${root}src/node/serve.ts`) && existsSync(`${root}src/server/createA2AHandler.ts`);

/** One pass over the selected rows, each on fresh servers; its results in row order. */
async function pass(selected: Row[], extras: typeof EXTRA_ROWS): Promise<RowResult[]> {
  const report: RowResult[] = [];
  if (selected.length > 0) await httpRows(selected, oursAvailable, report);

  const ctx: BenchContext = {
    start,
    stop,
    configure,
    measured,
    ratios,
    memoryBaseline: async () => {
      const known = report.find((r) => r.row === ROWS[0]!.key)?.results;
      if (known) return known;
      const row = ROWS[0]!;
      const result: RowResult = { index: 1, row: row.key, title: row.title, unit: 'req/s', results: {} };
      for (const role of ['ours', 'sdk'] as const) {
        const t = await start(role);
        await sample(row, t, '');
        result.results[role] = await measured(`${row.title} (in-memory baseline)`, 'req/s', t, (d) => measure(row, t, '', d));
        await stop(t);
      }
      report.push(ratios(result));
      return result.results;
    },
    sendTaskRow: ROWS[0]!,
    getTaskRow: ROWS[3]!,
    sample,
    measureHttp: measure,
    root,
    connections: CONNECTIONS,
    duration: DURATION,
  };
  for (const row of extras) {
    const index = ROWS.length + EXTRA_ROWS.indexOf(row) + 1;
    const result = await row.run(ctx, index);
    if (result) report.push(result);
  }
  return report.sort((a, b) => a.index - b.index);
}

async function main(): Promise<void> {
  const wanted = args.rows ? args.rows.split(',').map(Number) : undefined;
  const selected = ROWS.filter((_, i) => !wanted || wanted.includes(i + 1));
  const extras = EXTRA_ROWS.filter((_, i) => !wanted || wanted.includes(ROWS.length + i + 1));
  const passes: RowResult[][] = [];
  const heading = `A2A server benchmark — node ${process.version}, ${os.cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION}s per row after ${WARMUP}s warm-up`;
  for (let n = 1; n <= PASSES; n++) {
    if (PASSES > 1) console.error(`\n== pass ${n} of ${PASSES}`);
    const report = await pass(selected, extras);
    passes.push(report);
    console.log(`\n${heading}${PASSES > 1 ? `, pass ${n} of ${PASSES}` : ''}`);
    console.log(table(report));
  }
  const summary = PASSES > 1 ? summarizePasses(passes) : undefined;
  if (summary) console.log(`\n${passesTable(summary)}`);
  writeResults(root, 'latest.json', {
    durationSeconds: DURATION,
    warmupSeconds: WARMUP,
    connections: CONNECTIONS,
    sseStreams: STREAMS,
    oursAvailable,
    rows: passes[passes.length - 1],
    ...(summary ? { passes, summary } : {}),
    failures,
    noisy: [...noisy],
  });
  if (noisy.size > 0) {
    console.log(`\nWARNING: other processes used more than ${NOISY * 100}% of a core during ${noisy.size} measurement(s); rerun on an idle machine:\n  ${[...noisy].join('\n  ')}`);
  }
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
