/**
 * `npm run bench:scaleout` (issue 7): two `a2a serve` instances (compiled, from dist/) on one
 * PostgreSQL schema, measured as a deployment would run them.
 *
 *   npx tsx bench/scaleout.ts [--postgres URL] [--subscribers 1000] [--tick-ms 10] [--duration 5]
 *                             [--resumes 200] [--gap-ms 50] [--no-redis]
 *
 * Rows:
 *   fan-out, split   one `slow` task running on A (a status update every --tick-ms), --subscribers
 *                    SubscribeToTask streams (JSON-RPC SSE) split half on A, half on B; B's streams
 *                    are fed through the PostgreSQL LISTEN/NOTIFY wake-up and the shared log.
 *   fan-out, single  the same subscribers all on A: the same work without the PostgreSQL hop.
 *   resume           a stream on one instance is cut, --gap-ms later it is reopened on the other
 *                    with Last-Event-ID; time from the request to the first replayed event.
 *   hop ceilings     pg_notify round trips on one connection (what the bus of one instance can
 *                    announce per second) and, when `redis-server` is installed, Redis PUBLISH on
 *                    one connection (redis-benchmark), for the "would Redis help" question.
 *
 * Latency of a fan-out event = receive time in this process - the event's status timestamp (set
 * by the agent's TaskUpdater before the store write), so it includes the commit, the NOTIFY, the
 * log read on B and the SSE write. All processes share this machine's cores: CPU shares are
 * printed so the limiting process is visible. PostgreSQL: --postgres, else $A2A_TEST_POSTGRES_URL,
 * else a throwaway cluster from scripts/ci-postgres.sh (stopped at exit). Results go to
 * bench/results/scaleout.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { writeResults } from './report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    postgres: { type: 'string' },
    subscribers: { type: 'string', default: '1000' },
    'tick-ms': { type: 'string', default: '10' },
    duration: { type: 'string', default: '5' },
    resumes: { type: 'string', default: '200' },
    'gap-ms': { type: 'string', default: '50' },
    'no-redis': { type: 'boolean', default: false },
    retries: { type: 'string', default: '2' },
  },
});
const SUBSCRIBERS = Number(args.subscribers);
const TICK_MS = Number(args['tick-ms']);
const DURATION = Number(args.duration);
const RESUMES = Number(args.resumes);
const GAP_MS = Number(args['gap-ms']);
const RETRIES = Number(args.retries);
/** CPU share used by other processes above which a fan-out window is measured again. */
const NOISY = 0.25;
/** Subscribers connecting at once (the listen backlog is 511). */
const CONNECT_BATCH = 100;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number | undefined, digits = 0): string => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));

// ---- processes -----------------------------------------------------------------------------

const cleanups: (() => void)[] = [];
process.on('exit', () => {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {
      /* best effort */
    }
  }
});
process.on('SIGINT', () => process.exit(130));

/** A PostgreSQL URL: --postgres, $A2A_TEST_POSTGRES_URL, or a throwaway cluster. */
function postgresUrl(): string {
  if (args.postgres) return args.postgres;
  if (process.env.A2A_TEST_POSTGRES_URL) return process.env.A2A_TEST_POSTGRES_URL;
  console.error('starting a throwaway PostgreSQL (scripts/ci-postgres.sh start)…');
  const out = execFileSync('bash', [`${root}scripts/ci-postgres.sh`, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 });
  const env = Object.fromEntries([...out.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]));
  const url = env.A2A_TEST_POSTGRES_URL;
  const dir = env.A2A_TEST_POSTGRES_DIR;
  if (!url || !dir) throw new Error(`scripts/ci-postgres.sh printed no URL: ${out}`);
  cleanups.push(() =>
    execFileSync('bash', [`${root}scripts/ci-postgres.sh`, 'stop', dir], { stdio: 'ignore', env: { ...process.env, A2A_TEST_POSTGRES_BIN: env.A2A_TEST_POSTGRES_BIN ?? '' } }),
  );
  return url;
}

interface Instance {
  name: string;
  child: ChildProcess;
  jsonrpc: string;
}

/** `a2a serve --store <store> --port 0 --json` from dist/. */
async function startInstance(name: string, store: string): Promise<Instance> {
  const child = spawn(process.execPath, [`${root}dist/cli/main.js`, 'serve', '--store', store, '--port', '0', '--json'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    // A long `slow` task: the bench cancels it when done.
    env: { ...process.env, A2A_DEMO_SLOW_MS: '3600000', A2A_DEMO_TICK_MS: String(TICK_MS) },
  });
  cleanups.push(() => child.kill('SIGTERM'));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`instance ${name} exited (code ${code}) before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const first = out.split('\n').find((l) => l.startsWith('{'));
      if (first) {
        clearTimeout(timer);
        resolve(first);
      }
    });
  });
  const urls = JSON.parse(line) as { jsonrpc: string };
  return { name, child, jsonrpc: urls.jsonrpc };
}

function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    i.child.once('exit', () => resolve());
    i.child.kill('SIGTERM');
  });
}

// ---- CPU -----------------------------------------------------------------------------------

function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The cluster's postmaster pid (its backends are its children), when this process can read the data directory. */
let postmasterPid: number | undefined;

function parentPid(pid: string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** CPU seconds of the cluster's processes (postmaster and children; every `postgres` process when unknown), by pid. */
function postgresCpuSeconds(): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (postmasterPid !== undefined && Number(pid) !== postmasterPid && parentPid(pid) !== postmasterPid) continue;
      out.set(Number(pid), cpuSeconds(Number(pid)) || 0);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** CPU the postgres processes alive at the end used since `before` (new ones count from zero). */
function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of postgresCpuSeconds()) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/** CPU seconds the whole machine spent busy (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  try {
    const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return NaN;
  }
}

interface CpuProbe {
  stop(): Record<string, number>;
}

/** CPU shares (1 = one core) of the instances, PostgreSQL and this process from now to stop(). */
function cpuProbe(instances: Instance[]): CpuProbe {
  const started = performance.now();
  const before = instances.map((i) => cpuSeconds(i.child.pid));
  const pgBefore = postgresCpuSeconds();
  const self = process.cpuUsage();
  const machine = machineBusySeconds();
  return {
    stop() {
      const wall = (performance.now() - started) / 1000;
      const out: Record<string, number> = {};
      instances.forEach((i, n) => (out[i.name] = (cpuSeconds(i.child.pid) - (before[n] ?? NaN)) / wall));
      out.postgres = postgresCpuSince(pgBefore) / wall;
      const s = process.cpuUsage(self);
      out.bench = (s.user + s.system) / 1e6 / wall;
      // Everything else on the machine (other jobs): a busy machine makes the figures meaningless.
      const ours = Object.values(out).reduce((x, y) => x + (Number.isFinite(y) ? y : 0), 0);
      out.foreign = Math.max(0, (machineBusySeconds() - machine) / wall - ours);
      return out;
    },
  };
}

// ---- A2A calls -----------------------------------------------------------------------------

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/* eslint-disable @typescript-eslint/no-explicit-any */
async function call(i: Instance, method: string, params: unknown): Promise<any> {
  const res = await fetch(i.jsonrpc, { method: 'POST', headers: HEADERS, body: rpc(method, params) });
  const json = (await res.json()) as any;
  if (json.error) throw new Error(`${i.name} ${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

/** Starts a long `slow` task on `i` and returns its id once it is WORKING. */
async function startSlowTask(i: Instance): Promise<string> {
  const result = await call(i, 'SendMessage', {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'slow bench' }] },
    configuration: { returnImmediately: true },
  });
  const id = result?.task?.id;
  if (typeof id !== 'string') throw new Error(`${i.name}: SendMessage returned no task: ${JSON.stringify(result)}`);
  for (let n = 0; n < 100; n++) {
    if ((await call(i, 'GetTask', { id })).status.state === 'TASK_STATE_WORKING') return id;
    await sleep(20);
  }
  throw new Error(`${i.name}: task ${id} never became WORKING`);
}

// ---- a minimal SSE reader ------------------------------------------------------------------

interface SseEvent {
  seq: number;
  /** Status timestamp (ms since epoch) when the event carries one. */
  ts: number;
  /** This process's clock when the event's last byte arrived. */
  received: number;
}

interface Stream {
  /** Resolves when the response ends (or fails). */
  ended: Promise<void>;
  close(): void;
}

const TS = '"timestamp":"';

/**
 * SubscribeToTask on `i` over a raw http request; `onEvent` sees every event block (heartbeats
 * skipped). Only the `id:` line and the last status timestamp of a block are looked at.
 */
function subscribe(i: Instance, taskId: string, onEvent: (e: SseEvent) => void, lastEventId?: number): Stream {
  const headers: Record<string, string> = { ...HEADERS, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
  const req = http.request(i.jsonrpc, { method: 'POST', headers, agent: false });
  const ended = new Promise<void>((resolve) => {
    req.on('error', () => resolve());
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        resolve();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.startsWith('id: ')) continue; // heartbeat, retry hint, error without id
          const nl = block.indexOf('\n');
          const at = block.lastIndexOf(TS);
          onEvent({ seq: Number(block.slice(4, nl)), ts: at < 0 ? NaN : Date.parse(block.slice(at + TS.length, at + TS.length + 24)), received: Date.now() });
        }
      });
      res.on('end', () => resolve());
      res.on('close', () => resolve());
      res.on('error', () => resolve());
    });
  });
  req.end(rpc('SubscribeToTask', { id: taskId }));
  return { ended, close: () => req.destroy() };
}

// ---- fan-out -------------------------------------------------------------------------------

interface Group {
  instance: string;
  /** Where the task runs relative to the subscriber. */
  kind: 'local' | 'remote';
  subscribers: number;
  events: number;
  latencies: number[];
  /** Subscribers whose seqs were not consecutive, or that never got an event. */
  broken: number;
}

interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

function percentiles(values: number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

export interface FanoutResult {
  placement: string;
  subscribers: number;
  seconds: number;
  /** Status updates the task wrote per second during the window. */
  produced: number;
  /** Events delivered per second, all subscribers. */
  delivered: number;
  /** Delivered / (produced x subscribers). */
  completeness: number;
  /** perCore: events/s delivered per core the instance used (steadier than the rate on a busy machine). */
  groups: (Omit<Group, 'latencies'> & { perSecond: number; perCore: number; latency: Percentiles })[];
  notifies: number;
  notifiesPerSecond: number;
  cpu: Record<string, number>;
  broken: number;
  connectSeconds: number;
}

async function fanout(placement: string, targets: Instance[], listener: NotifyCounter, subscribers = SUBSCRIBERS): Promise<FanoutResult> {
  const [a] = targets as [Instance];
  const taskId = await startSlowTask(a);
  const groups = new Map<Instance, Group>();
  for (const t of new Set(targets)) groups.set(t, { instance: t.name, kind: t === a ? 'local' : 'remote', subscribers: 0, events: 0, latencies: [], broken: 0 });
  let measuring = false;
  let firstSeq = Infinity;
  let lastSeq = 0;
  const streams: Stream[] = [];
  const connectStart = performance.now();
  for (let from = 0; from < subscribers; from += CONNECT_BATCH) {
    const batch: Promise<void>[] = [];
    for (let n = from; n < Math.min(subscribers, from + CONNECT_BATCH); n++) {
      const target = targets[n % targets.length]!;
      const g = groups.get(target)!;
      g.subscribers++;
      let prev = 0;
      let broken = false;
      batch.push(
        new Promise<void>((connected) => {
          const s = subscribe(target, taskId, (e) => {
            if (prev === 0) connected(); // the snapshot
            else if (e.seq !== prev + 1 && !broken) {
              broken = true;
              g.broken++;
            }
            prev = e.seq;
            if (!measuring) return;
            g.events++;
            if (g === groups.get(a)) {
              if (e.seq < firstSeq) firstSeq = e.seq;
              if (e.seq > lastSeq) lastSeq = e.seq;
            }
            if (Number.isFinite(e.ts)) g.latencies.push(e.received - e.ts);
          });
          streams.push(s);
          void s.ended.then(() => connected());
        }),
      );
    }
    await Promise.all(batch);
  }
  const connectSeconds = (performance.now() - connectStart) / 1000;
  await sleep(200);
  const notifiesBefore = listener.count;
  const probe = cpuProbe([...groups.keys()]);
  const started = performance.now();
  measuring = true;
  await sleep(DURATION * 1000);
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  const cpu = probe.stop();
  const notifies = listener.count - notifiesBefore;
  await call(a, 'CancelTask', { id: taskId });
  await Promise.race([Promise.all(streams.map((s) => s.ended)), sleep(10_000)]);
  for (const s of streams) s.close();
  const produced = lastSeq >= firstSeq ? (lastSeq - firstSeq + 1) / seconds : NaN;
  const all = [...groups.values()];
  const delivered = all.reduce((sum, g) => sum + g.events, 0) / seconds;
  return {
    placement,
    subscribers,
    seconds,
    produced,
    delivered,
    completeness: delivered / (produced * subscribers),
    groups: all.map(({ latencies, ...g }) => ({ ...g, perSecond: g.events / seconds, perCore: g.events / seconds / (cpu[g.instance] ?? NaN), latency: percentiles(latencies) })),
    notifies,
    notifiesPerSecond: notifies / seconds,
    cpu,
    broken: all.reduce((sum, g) => sum + g.broken, 0),
    connectSeconds,
  };
}

/** fanout(), measured again (up to --retries) while other processes disturb it; the calmest run. */
async function calmFanout(placement: string, targets: Instance[], listener: NotifyCounter, subscribers = SUBSCRIBERS): Promise<FanoutResult> {
  let best: FanoutResult | undefined;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    const r = await fanout(placement, targets, listener, subscribers);
    if (!best || (r.cpu.foreign ?? 0) < (best.cpu.foreign ?? 0)) best = r;
    if ((r.cpu.foreign ?? 0) <= NOISY) break;
    console.error(`  !! ${placement}: other processes used ${pct(r.cpu.foreign ?? NaN)} CPU meanwhile${attempt < RETRIES ? ', measuring again' : ''}`);
    await sleep(2000);
  }
  return best!;
}

/** Counts the bus's NOTIFYs on the schema's channel. */
interface NotifyCounter {
  count: number;
  close(): Promise<void>;
}

async function countNotifies(url: string, channel: string): Promise<NotifyCounter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const counter = {
    count: 0,
    close: () => client.end(),
  };
  client.on('notification', () => counter.count++);
  await client.query(`LISTEN "${channel}"`);
  return counter;
}

// ---- resume --------------------------------------------------------------------------------

export interface ResumeResult {
  resumes: number;
  gapMs: number;
  /** Request sent -> first replayed event received, ms. */
  latency: Percentiles & { mean: number };
  /** Events written during the cut (replayed from the log), about gap / tick. */
  missedApprox: number;
  /** First replayed event was not Last-Event-ID + 1. */
  wrong: number;
  failed: number;
  cpu?: Record<string, number>;
}

/** Reads `i`'s stream of `taskId` until `n` events after the snapshot, then cuts it; the last seq. */
async function readThenCut(i: Instance, taskId: string, n: number): Promise<number> {
  let last = -1;
  let seen = 0;
  let s: Stream | undefined;
  await new Promise<void>((resolve) => {
    s = subscribe(i, taskId, (e) => {
      last = e.seq;
      if (++seen > n) resolve();
    });
    void s.ended.then(() => resolve());
  });
  s!.close();
  return last;
}

async function resumes(a: Instance, b: Instance): Promise<ResumeResult> {
  const taskId = await startSlowTask(a);
  const latencies: number[] = [];
  let wrong = 0;
  let failed = 0;
  for (let n = 0; n < RESUMES; n++) {
    const [from, to] = n % 2 === 0 ? [a, b] : [b, a];
    const last = await readThenCut(from, taskId, 2);
    if (last < 0) {
      failed++;
      continue;
    }
    await sleep(GAP_MS);
    const sent = performance.now();
    const first = await new Promise<{ seq: number; at: number } | undefined>((resolve) => {
      const s = subscribe(
        to,
        taskId,
        (e) => {
          resolve({ seq: e.seq, at: performance.now() });
          s.close();
        },
        last,
      );
      void s.ended.then(() => resolve(undefined));
    });
    if (!first) {
      failed++;
      continue;
    }
    latencies.push(first.at - sent);
    if (first.seq !== last + 1) wrong++;
  }
  await call(a, 'CancelTask', { id: taskId });
  const sorted = percentiles(latencies);
  return {
    resumes: latencies.length,
    gapMs: GAP_MS,
    latency: { ...sorted, mean: latencies.reduce((x, y) => x + y, 0) / latencies.length },
    missedApprox: Math.round(GAP_MS / TICK_MS),
    wrong,
    failed,
  };
}

// ---- hop ceilings --------------------------------------------------------------------------

/** A payload like the bus's (instance id, tenant, task id, seq range). */
const PAYLOAD = JSON.stringify({ i: crypto.randomUUID(), t: '', k: crypto.randomUUID(), f: 12345, l: 12345 });

export interface NotifyCeiling {
  /** pg_notify statements per second, back to back on one connection (as one instance's bus sends them). */
  sentPerSecond: number;
  /** Notifications a listener received per second meanwhile. */
  receivedPerSecond: number;
  rttMs: number;
}

async function notifyCeiling(url: string): Promise<NotifyCeiling> {
  const channel = `bench_ceiling_${process.pid}`;
  const listener = await countNotifies(url, channel);
  const sender = new pg.Client({ connectionString: url });
  await sender.connect();
  try {
    for (let n = 0; n < 200; n++) await sender.query('SELECT pg_notify($1, $2)', [channel, PAYLOAD]);
    await sleep(200);
    const before = listener.count;
    const started = performance.now();
    let sent = 0;
    while (performance.now() - started < 3000) {
      await sender.query('SELECT pg_notify($1, $2)', [channel, PAYLOAD]);
      sent++;
    }
    const seconds = (performance.now() - started) / 1000;
    await sleep(200);
    return { sentPerSecond: sent / seconds, receivedPerSecond: (listener.count - before) / seconds, rttMs: (seconds * 1000) / sent };
  } finally {
    await sender.end();
    await listener.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RedisCeiling {
  version?: string;
  /** PUBLISH per second on one connection, no pipelining (redis-benchmark -c 1). */
  publishPerSecond?: number;
  /** The same with 50 connections. */
  publishPerSecond50?: number;
  skipped?: string;
}

async function redisCeiling(): Promise<RedisCeiling> {
  if (args['no-redis']) return { skipped: '--no-redis' };
  let version: string;
  try {
    version = execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).trim();
    execFileSync('redis-benchmark', ['--version'], { encoding: 'utf8' });
  } catch {
    return { skipped: 'redis-server / redis-benchmark not installed (Debian: apt-get install redis-server)' };
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  cleanups.push(() => child.kill());
  try {
    for (let n = 0; ; n++) {
      try {
        if (execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'PONG') break;
      } catch {
        /* not yet */
      }
      if (n > 50) return { version, skipped: 'redis-server did not answer PING' };
      await sleep(100);
    }
    const rate = (clients: number): number => {
      const csv = execFileSync('redis-benchmark', ['-p', String(port), '-c', String(clients), '-n', '50000', '--csv', 'PUBLISH', 'a2a_events', PAYLOAD], { encoding: 'utf8' });
      // "test","rps",… with the command (quotes and commas in the payload) as the first field.
      const fields = (csv.trim().split('\n').pop() ?? '').split('","');
      return Number(fields[fields.length - 7]);
    };
    return { version, publishPerSecond: rate(1), publishPerSecond50: rate(50) };
  } finally {
    child.kill();
  }
}

// ---- report --------------------------------------------------------------------------------

function table(head: string[], rows: string[][]): string {
  const widths = head.map((_, c) => Math.max(...[head, ...rows].map((r) => (r[c] ?? '').length)));
  const render = (r: string[]): string => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [render(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(render)].join('\n');
}

const pct = (n: number): string => `${fmt(n * 100)}%`;

function fanoutRows(r: FanoutResult): string[][] {
  const cpu = `A ${pct(r.cpu.A ?? NaN)} B ${pct(r.cpu.B ?? NaN)} pg ${pct(r.cpu.postgres ?? NaN)} bench ${pct(r.cpu.bench ?? NaN)} other ${pct(r.cpu.foreign ?? NaN)}`;
  const total = [
    `fan-out ${r.placement}`,
    'all',
    String(r.subscribers),
    fmt(r.produced),
    fmt(r.delivered),
    '',
    pct(r.completeness),
    '',
    '',
    '',
    fmt(r.notifiesPerSecond),
    String(r.broken),
    cpu,
  ];
  const groups = r.groups.map((g) => [
    '',
    `${g.instance} (${g.kind})`,
    String(g.subscribers),
    '',
    fmt(g.perSecond),
    fmt(g.perCore),
    '',
    fmt(g.latency.p50, 0),
    fmt(g.latency.p99, 0),
    fmt(g.latency.max, 0),
    '',
    String(g.broken),
    '',
  ]);
  return [total, ...groups];
}

/** Server version; finds the postmaster pid so only this cluster's CPU is counted. */
async function inspectPostgres(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const version = String((await c.query('SHOW server_version')).rows[0]?.server_version);
    try {
      const dir = String((await c.query('SHOW data_directory')).rows[0]?.data_directory);
      postmasterPid = Number(readFileSync(`${dir}/postmaster.pid`, 'utf8').split('\n')[0]);
    } catch {
      console.error('  (PostgreSQL CPU: cannot read postmaster.pid, counting every postgres process on this machine)');
    }
    return version;
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const url = postgresUrl();
  const schema = `bench_${Math.random().toString(36).slice(2, 10)}`;
  const store = new URL(url);
  store.searchParams.set('schema', schema);
  const storeSpec = store.toString();
  cleanups.push(() => {
    // Drop the schema synchronously at exit (psql may be missing: then it stays).
    try {
      execFileSync('psql', [url, '-qc', `DROP SCHEMA IF EXISTS "${schema}" CASCADE`], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* best effort */
    }
  });

  // Migrate once, as a deploy step would, then start both instances on the same schema.
  const migrated = execFileSync(process.execPath, [`${root}dist/cli/main.js`, 'db', 'migrate', '--store', storeSpec, '--json'], { encoding: 'utf8' }).trim();
  console.error(`schema ${schema}: ${migrated}`);
  const pgVersion = await inspectPostgres(url);
  const [a, b] = await Promise.all([startInstance('A', storeSpec), startInstance('B', storeSpec)]);
  const listener = await countNotifies(url, `a2a_events_${schema}`);
  console.error(`instances A ${a.jsonrpc}, B ${b.jsonrpc}; ${SUBSCRIBERS} subscribers, a status update every ${TICK_MS} ms, ${DURATION} s windows`);

  // Warm both instances (JIT, pool connections) with a short fan-out of a few subscribers.
  {
    const taskId = await startSlowTask(a);
    const warm = Array.from({ length: 20 }, (_, n) => subscribe(n % 2 ? b : a, taskId, () => undefined));
    await sleep(1000);
    await call(a, 'CancelTask', { id: taskId });
    await Promise.race([Promise.all(warm.map((s) => s.ended)), sleep(5000)]);
  }

  // The latency floor: one subscriber on each instance, nothing else running.
  const baseline = await calmFanout('baseline A/B', [a, b], listener, 2);
  console.error(`  baseline: p50 local ${fmt(baseline.groups[0]?.latency.p50)} ms, remote ${fmt(baseline.groups[1]?.latency.p50)} ms`);
  await sleep(500);
  const split = await calmFanout('split A/B', [a, b], listener);
  console.error(`  split: ${fmt(split.delivered)} events/s delivered`);
  await sleep(1000);
  const single = await calmFanout('single A', [a], listener);
  console.error(`  single: ${fmt(single.delivered)} events/s delivered`);
  await sleep(500);
  const resumeProbe = cpuProbe([a, b]);
  const resume = await resumes(a, b);
  resume.cpu = resumeProbe.stop();
  console.error(`  resume: p50 ${fmt(resume.latency.p50, 1)} ms p99 ${fmt(resume.latency.p99, 1)} ms`);
  await listener.close();
  await Promise.all([stopInstance(a), stopInstance(b)]);
  const notify = await notifyCeiling(url);
  const redis = await redisCeiling();

  console.log(
    `\nScale-out benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), PostgreSQL ${pgVersion}; every process on this machine`,
  );
  console.log(
    table(
      ['row', 'subscribers on', 'subs', 'produced/s', 'delivered ev/s', 'ev/s per core', 'complete', 'lat p50 ms', 'p99 ms', 'max ms', 'NOTIFY/s', 'gaps', 'cpu (1 core = 100%)'],
      [...fanoutRows(baseline), ...fanoutRows(split), ...fanoutRows(single)],
    ),
  );
  console.log(
    `\nresume on the other instance with Last-Event-ID (${resume.resumes} resumes, cut ${GAP_MS} ms): request -> first replayed event p50 ${fmt(resume.latency.p50, 1)} ms, p99 ${fmt(resume.latency.p99, 1)} ms, max ${fmt(resume.latency.max, 1)} ms; first event not Last-Event-ID+1: ${resume.wrong}; failed: ${resume.failed}; other processes ${pct(resume.cpu?.foreign ?? NaN)} CPU`,
  );
  console.log(
    `hop ceilings: pg_notify on one connection ${fmt(notify.sentPerSecond)}/s (${fmt(notify.rttMs, 3)} ms round trip, listener got ${fmt(notify.receivedPerSecond)}/s)` +
      (redis.publishPerSecond !== undefined
        ? `; Redis PUBLISH one connection ${fmt(redis.publishPerSecond)}/s, 50 connections ${fmt(redis.publishPerSecond50)}/s (${redis.version?.split(' ').slice(0, 3).join(' ')})`
        : `; Redis: ${redis.skipped}`),
  );

  writeResults(root, 'scaleout.json', {
    postgres: pgVersion,
    subscribers: SUBSCRIBERS,
    tickMs: TICK_MS,
    durationSeconds: DURATION,
    fanout: [baseline, split, single],
    resume,
    notifyCeiling: notify,
    redis,
  });
  console.log('\nwritten to bench/results/scaleout.json');
  const broken = split.broken + single.broken + resume.wrong + resume.failed;
  if (broken > 0) {
    console.error(`\nFAILED: ${split.broken + single.broken} stream(s) with gaps, ${resume.wrong} resume(s) not continuing at Last-Event-ID+1, ${resume.failed} failed resume(s)`);
    process.exitCode = 1;
  }
}

main()
  .catch((error: unknown) => {
    console.error('\nscale-out benchmark aborted:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  })
  .finally(() => process.exit());
