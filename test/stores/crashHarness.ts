/**
 * The kill -9 durability harness (R1, with the single-instance part of R2). The real server
 * runs as a child process on a durable store; clients send SendMessage and streams and write
 * down everything the server acknowledged (a unary response received, an SSE event received).
 * At a seeded random moment the child gets SIGKILL; it is restarted on the same storage and
 * every acknowledged task and event must be there, exactly, read back over the protocol
 * (GetTask, and SubscribeToTask replaying from Last-Event-ID 0). No task may be left
 * SUBMITTED or WORKING after the restart.
 */
import { prng } from '../support/prng.js';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SseParser } from '../support/sse.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/crashServer.ts', import.meta.url));
const JSONRPC = '/a2a/jsonrpc';

export interface CrashOptions {
  /** JSON for the fixture's A2A_TEST_STORE. */
  storeConfig: unknown;
  rounds: number;
  seed: number;
  /** Runs after each kill, before the restart (e.g. SQLite integrity_check). */
  afterKill?: (round: number) => Promise<void>;
  log?: (line: string) => void;
}

export interface CrashStats {
  rounds: number;
  tasks: number;
  ackedEvents: number;
  ackedFinals: number;
  /** Rounds in which a stream was cut after at least one acknowledged event. */
  cutStreams: number;
  recovered: number;
  ms: number;
}

interface Ledger {
  id: string;
  /** Terminal snapshot returned by a unary call: terminal tasks never change (LIFE-01). */
  final?: Task;
  /** Acknowledged events by seq. */
  events: Map<number, StreamResponse>;
  /** The stream of this task ended with a terminal event. */
  streamEnded?: boolean;
}


interface Child {
  proc: ChildProcess;
  url: string;
  recovered: number;
  stderr: () => string;
}

async function startChild(storeConfig: unknown): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: { ...process.env, A2A_TEST_STORE: JSON.stringify(storeConfig) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-20_000);
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s: ${err}`)), 20_000);
    proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready: ${err}`));
    });
  });
  const ready = JSON.parse(line) as { url: string; recovered: number };
  return { proc, url: ready.url, recovered: ready.recovered, stderr: () => err };
}

function kill(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.proc.once('exit', () => resolve());
    child.proc.kill('SIGKILL');
  });
}

let rpcId = 0;

async function rpc(url: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(url + JSONRPC, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Reads a JSON-RPC SSE stream, calling `onEvent` for each event with an id. Resolves at the end. */
async function stream(
  url: string,
  call: { method: string; params: unknown; headers?: Record<string, string>; timeoutMs?: number },
  onEvent: (seq: number, event: StreamResponse) => void,
): Promise<void> {
  const res = await fetch(url + JSONRPC, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', ...call.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: call.method, params: call.params }),
    signal: AbortSignal.timeout(call.timeoutMs ?? 15_000),
  });
  if (!res.body) throw new Error('no body');
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const e of parser.feed(decoder.decode(chunk, { stream: true }))) {
      const data = JSON.parse(e.data) as { result?: StreamResponse; error?: { message: string } };
      if (data.error) throw new Error(`${call.method}: ${data.error.message}`);
      if (data.result && e.id !== undefined) onEvent(Number(e.id), data.result);
    }
  }
}

function message(text: string, taskId?: string): unknown {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) };
}

function isTerminalEvent(e: StreamResponse): boolean {
  const state = 'task' in e ? e.task.status.state : 'statusUpdate' in e ? e.statusUpdate.status.state : undefined;
  return state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_CANCELED' || state === 'TASK_STATE_REJECTED';
}

/** Client work until `stopped()`: every acknowledgment goes into the ledger. */
async function worker(url: string, random: () => number, ledger: Map<string, Ledger>, work: { stopped: () => boolean; touched: Set<string> }): Promise<void> {
  const stopped = work.stopped;
  const entry = (id: string): Ledger => {
    work.touched.add(id);
    let e = ledger.get(id);
    if (!e) ledger.set(id, (e = { id, events: new Map() }));
    return e;
  };
  let n = 0;
  while (!stopped()) {
    const pick = random();
    n++;
    try {
      if (pick < 0.3) {
        const result = (await rpc(url, 'SendMessage', { message: message(`hi ${n}`) })) as { task: Task };
        entry(result.task.id).final = result.task;
      } else if (pick < 0.7) {
        let current: Ledger | undefined;
        await stream(url, { method: 'SendStreamingMessage', params: { message: message(`stream ${n}`) } }, (seq, event) => {
          const id = 'task' in event ? event.task.id : 'statusUpdate' in event ? event.statusUpdate.taskId : 'artifactUpdate' in event ? event.artifactUpdate.taskId : '';
          current ??= entry(id);
          current.events.set(seq, event);
          if (isTerminalEvent(event)) current.streamEnded = true;
        });
      } else if (pick < 0.85) {
        const result = (await rpc(url, 'SendMessage', { message: message(`slow ${n}`), configuration: { returnImmediately: true } })) as { task: Task };
        entry(result.task.id);
      } else {
        const asked = (await rpc(url, 'SendMessage', { message: message(`ask question ${n}`) })) as { task: Task };
        entry(asked.task.id);
        const answered = (await rpc(url, 'SendMessage', { message: message(`answer ${n}`, asked.task.id) })) as { task: Task };
        entry(answered.task.id).final = answered.task;
      }
    } catch {
      // The server was killed mid-call: nothing from this call was acknowledged.
      if (!stopped()) await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/** Reads every listed task back over the protocol and compares it with what was acknowledged. */
async function verify(url: string, entries: Iterable<Ledger>): Promise<void> {
  const all = [...entries];
  for (let i = 0; i < all.length; i += 8) {
    await Promise.all(
      all.slice(i, i + 8).map(async (e) => {
        const task = (await rpc(url, 'GetTask', { id: e.id })) as Task;
        assert.equal(task.id, e.id);
        if (e.final) assert.deepEqual(task, e.final, `task ${e.id}: acknowledged terminal snapshot changed or was lost`);
        if (e.events.size === 0) return;
        const replay = new Map<number, StreamResponse>();
        await stream(url, { method: 'SubscribeToTask', params: { id: e.id }, headers: { 'last-event-id': '0' } }, (seq, event) => replay.set(seq, event));
        for (const [seq, event] of e.events) {
          assert.deepEqual(replay.get(seq), event, `task ${e.id}: acknowledged event ${seq} missing or different after restart`);
        }
        const seqs = [...replay.keys()];
        assert.deepEqual(
          seqs,
          seqs.map((_, k) => k + 1),
          `task ${e.id}: replayed log is not gapless`,
        );
      }),
    );
  }
  // R2: nothing is left running by a dead process.
  for (const status of ['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED']) {
    const listed = (await rpc(url, 'ListTasks', { status, pageSize: 5 })) as { totalSize: number; tasks: Task[] };
    assert.equal(listed.totalSize, 0, `${status} tasks after restart: ${listed.tasks.map((t) => t.id).join(', ')}`);
  }
}

export async function runCrashRounds(options: CrashOptions): Promise<CrashStats> {
  const started = Date.now();
  const random = prng(options.seed);
  const ledger = new Map<string, Ledger>();
  let unverified: Ledger[] = [];
  let cutStreams = 0;
  let recovered = 0;
  for (let round = 1; round <= options.rounds; round++) {
    const child = await startChild(options.storeConfig);
    try {
      recovered += child.recovered;
      await verify(child.url, unverified);
      const before = new Map([...ledger].map(([id, e]) => [id, e.events.size]));
      const touched = new Set<string>();
      let stop = false;
      const workers = Array.from({ length: 4 }, (_, w) =>
        worker(child.url, prng(options.seed * 1000 + round * 10 + w), ledger, { stopped: () => stop, touched }),
      );
      const killAfter = 60 + Math.floor(random() * 500);
      await new Promise((r) => setTimeout(r, killAfter));
      await kill(child);
      stop = true;
      await Promise.all(workers);
      unverified = [...touched].map((id) => ledger.get(id) as Ledger);
      if (unverified.some((e) => e.events.size > 0 && !e.streamEnded && (before.get(e.id) ?? 0) !== e.events.size)) cutStreams++;
      options.log?.(`round ${round}: killed after ${killAfter} ms, ${ledger.size} tasks so far, recovered ${child.recovered}`);
    } finally {
      await kill(child);
    }
    await options.afterKill?.(round);
  }
  // One last restart: everything ever acknowledged is still there.
  const child = await startChild(options.storeConfig);
  try {
    recovered += child.recovered;
    await verify(child.url, ledger.values());
  } finally {
    await kill(child);
  }
  await options.afterKill?.(options.rounds + 1);
  const entries = [...ledger.values()];
  return {
    rounds: options.rounds,
    tasks: entries.length,
    ackedEvents: entries.reduce((n, e) => n + e.events.size, 0),
    ackedFinals: entries.filter((e) => e.final).length,
    cutStreams,
    recovered,
    ms: Date.now() - started,
  };
}
