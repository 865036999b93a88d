/**
 * R9 (many streams): 10,000 concurrent SSE streams on one instance at ≤ 16 KiB RSS per stream.
 * Measured ~13 KiB: Node's own floor for an idle SSE socket (net.Socket, HTTP parser,
 * IncomingMessage, ServerResponse) is ~12 KiB, and a stream adds about 1 KB of its own (push
 * task stream, SSE writer, response sink, bus subscription: no promises, timers or AbortSignals
 * per stream). The test prints the measured figure. The
 * server is the real `a2a serve` (demo agent, memory store) as a child process; the streams come
 * from a second process (fixtures/streamLoad.ts), so the server's RSS (VmRSS in /proc) is its
 * own. Linux only; skipped when the open-files limit cannot hold the streams.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, startServe, type A2AProcess } from '../cli/cliHelpers.js';
import type { Task } from '../../src/protocol/types.js';

const STREAMS = Number(process.env.A2A_R9_STREAMS ?? 10_000);
const WARM_UP_STREAMS = 50;
const KIB = 1024;
/** The R9 goal. */
const BUDGET_BYTES_PER_STREAM = 16 * KIB;
const LOAD_SCRIPT = fileURLToPath(new URL('./fixtures/streamLoad.ts', import.meta.url));

/** Soft limit on open files of this process (children inherit it), or undefined off Linux. */
function openFilesSoftLimit(): number | undefined {
  if (!existsSync('/proc/self/limits')) return undefined;
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft === undefined ? undefined : soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
}

function skipReason(): string | false {
  const soft = openFilesSoftLimit();
  if (soft === undefined) return 'needs Linux /proc (VmRSS and the open-files limit)';
  if (soft < STREAMS + 500) return `open-files soft limit ${soft} < ${STREAMS + 500} needed for ${STREAMS} streams per process (raise ulimit -n)`;
  return false;
}

/** Resident set size of a process, in bytes. */
function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match, `no VmRSS for pid ${pid}`);
  return Number(match[1]) * KIB;
}

async function rpc<T>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  assert.ok(body.result, `${method} failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

interface LoadReport {
  opened: number;
  firstEvent: number;
  errors: number;
  pending: number;
  elapsedMs: number;
  samples: string[];
}

interface CloseReport {
  closed: number;
  lateErrors: number;
  samples: string[];
}

/** The load generator as a process: `report` once every stream has its first event; `close()` ends them all. */
function startLoad(rpcUrl: string, taskId: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', LOAD_SCRIPT, '--url', rpcUrl, '--task', taskId, '--count', String(count), '--deadline-ms', '60000'], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    stdout += d;
    const parts = stdout.split('\n');
    stdout = parts.pop() ?? '';
    lines.push(...parts.filter((l) => l.trim() !== ''));
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => setImmediate(() => resolve(code))));
  const line = (n: number, timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`load printed ${lines.length} line(s) within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const check = (): void => {
        if (lines.length > n) {
          clearTimeout(timer);
          resolve(lines[n] as string);
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`load exited (${child.exitCode}) after ${lines.length} line(s); stderr: ${stderr}`));
        } else waiters.push(check);
      };
      check();
      void exited.then(() => waiters.splice(0).forEach((w) => w()));
    });
  return {
    report: async (timeoutMs: number) => JSON.parse(await line(0, timeoutMs)) as LoadReport,
    async close(): Promise<CloseReport> {
      child.stdin.end('close\n');
      const report = JSON.parse(await line(1, 30_000)) as CloseReport;
      await exited;
      return report;
    },
    kill(): void {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

test(`R9: ${STREAMS} concurrent SSE streams on one a2a serve, all served, ≤ 16 KiB RSS each`, { timeout: 120_000, skip: skipReason() }, async (t) => {
  const started = performance.now();
  const { proc, urls } = await startServe([], { A2A_DEMO_SLOW_MS: '120000', A2A_DEMO_TICK_MS: '5000' });
  const server: A2AProcess = proc;
  const loads: Array<ReturnType<typeof startLoad>> = [];
  t.after(async () => {
    for (const load of loads) load.kill();
    // Graceful shutdown would wait for the slow task (not what R9 is about).
    server.kill();
    await server.exited;
  });
  const pid = server.child.pid as number;
  // The listener itself (the card's URLs say localhost, which may resolve to ::1).
  const rpcUrl = `${(urls as unknown as { listening: string }).listening}/a2a/jsonrpc`;

  const { task } = await rpc<{ task: Task }>(rpcUrl, 'SendMessage', {
    message: { messageId: `r9-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'slow load' }] },
    configuration: { returnImmediately: true },
  });
  assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);

  // Warm-up: the stream path is loaded and compiled before the baseline.
  const warm = startLoad(rpcUrl, task.id, WARM_UP_STREAMS);
  loads.push(warm);
  const warmReport = await warm.report(30_000);
  assert.equal(warmReport.firstEvent, WARM_UP_STREAMS, JSON.stringify(warmReport));
  await warm.close();
  await delay(1_000);
  const rssBefore = rssBytes(pid);

  const load = startLoad(rpcUrl, task.id, STREAMS);
  loads.push(load);
  const report = await load.report(90_000);
  await delay(1_000);
  const rssOpen = rssBytes(pid);
  const perStream = (rssOpen - rssBefore) / STREAMS;
  t.diagnostic(
    `${report.firstEvent}/${STREAMS} streams had their first event in ${report.elapsedMs} ms; server RSS ${(rssBefore / KIB / KIB).toFixed(1)} MiB before, ` +
      `${(rssOpen / KIB / KIB).toFixed(1)} MiB with all open: ${(perStream / KIB).toFixed(1)} KiB per stream`,
  );
  assert.deepEqual(
    { opened: report.opened, firstEvent: report.firstEvent, errors: report.errors, pending: report.pending },
    { opened: STREAMS, firstEvent: STREAMS, errors: 0, pending: 0 },
    `load report: ${JSON.stringify(report)}`,
  );

  const closed = await load.close();
  assert.equal(closed.lateErrors, 0, `streams ended by the server while open: ${JSON.stringify(closed.samples)}`);
  // Still serving once they are gone (nothing about open streams is exposed over HTTP).
  const after = await rpc<Task>(rpcUrl, 'GetTask', { id: task.id });
  assert.equal(after.status.state, 'TASK_STATE_WORKING');
  await delay(1_000);
  t.diagnostic(`server RSS ${(rssBytes(pid) / KIB / KIB).toFixed(1)} MiB 1 s after closing them; test took ${Math.round(performance.now() - started)} ms`);

  assert.ok(
    perStream <= BUDGET_BYTES_PER_STREAM,
    `server RSS grew ${(perStream / KIB).toFixed(1)} KiB per open stream (budget ${BUDGET_BYTES_PER_STREAM / KIB} KiB)`,
  );
});
