/**
 * Several real `a2a serve` processes on one PostgreSQL schema (issue 7, scale-out). A test file
 * calls `clusterSuite()` once: it gets a database of its own (test/stores/pgSetup.ts, dropped at
 * the end) and `skip` options that skip every test with the reason when PostgreSQL is missing.
 * `withCluster` starts N instances on a fresh schema (all with the same flags and env), runs the
 * test, and stops whatever is still running.
 */
import { after } from 'node:test';
import { startServe, type A2AProcess, type ServeUrls } from '../cli/cliHelpers.js';
import { pgTestDatabase, type PgTestDatabase } from '../stores/pgSetup.js';
import { jsonRpcBinding, restBinding, type TestBinding } from '../support/bindings.js';

export interface ClusterOptions {
  /** Number of instances (named A, B, C, …). */
  size: number;
  /** Extra `a2a serve` arguments for every instance (e.g. --agent, --lease-ttl-ms). */
  args?: string[];
  /** Extra environment for every instance (e.g. A2A_DEMO_SLOW_MS). */
  env?: Record<string, string>;
  /** How long `withCluster` lets each instance shut down on SIGTERM before SIGKILL (default 5000). */
  stopGraceMs?: number;
}

export interface ClusterNode {
  /** 'A', 'B', … */
  name: string;
  urls: ServeUrls;
  proc: A2AProcess;
  pid: number;
  jsonRpc: TestBinding;
  rest: TestBinding;
  /** Base URL the instance listens on (`http://127.0.0.1:port`). */
  origin: string;
  /** kill -9; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves true when it exited on its own. */
  stop(graceMs?: number): Promise<boolean>;
}

export interface Cluster {
  nodes: ClusterNode[];
  /** The postgres:// store URL (with ?schema=) every instance uses. */
  store: string;
  /** Stops every instance still running (SIGTERM, SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface ClusterSuite {
  /** Spread into test options: `{ skip: reason }` without PostgreSQL, else nothing. */
  skip: { skip?: string };
  /** Starts a cluster on a fresh schema, runs `fn`, stops the cluster. */
  withCluster<T>(options: ClusterOptions, fn: (cluster: Cluster) => Promise<T>): Promise<T>;
}

const NAMES = 'ABCDEFGHIJ';

/** Instances still running; killed if the test process exits without stopping them (a test timeout). */
const live = new Set<A2AProcess>();
process.once('exit', () => {
  for (const proc of live) proc.kill('SIGKILL');
});

function node(name: string, started: { proc: A2AProcess; urls: ServeUrls }): ClusterNode {
  const { proc, urls } = started;
  live.add(proc);
  void proc.exited.then(() => live.delete(proc));
  const gone = () => proc.child.exitCode !== null || proc.child.signalCode !== null;
  return {
    name,
    urls,
    proc,
    pid: proc.child.pid ?? -1,
    jsonRpc: jsonRpcBinding(urls.jsonrpc),
    rest: restBinding(urls.rest),
    origin: new URL((urls as ServeUrls & { listening?: string }).listening ?? urls.jsonrpc).origin,
    async kill() {
      if (!gone()) proc.kill('SIGKILL');
      await proc.exited;
    },
    async stop(graceMs = 5000) {
      if (gone()) return true;
      proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        proc.exited.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (!inTime) {
        proc.kill('SIGKILL');
        await proc.exited;
      }
      return inTime;
    },
  };
}

/** Starts `options.size` instances on `store` (in parallel: migrations are applied exactly once). */
export async function startCluster(store: string, options: ClusterOptions): Promise<Cluster> {
  const args = ['--store', store, ...(options.args ?? [])];
  const results = await Promise.allSettled(Array.from({ length: options.size }, () => startServe(args, options.env ?? {})));
  const nodes = results.flatMap((r, i) => (r.status === 'fulfilled' ? [node(NAMES.charAt(i), r.value)] : []));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const cluster: Cluster = {
    nodes,
    store,
    async stop(graceMs) {
      await Promise.all(nodes.map((n) => n.stop(graceMs)));
    },
  };
  if (failed) {
    await cluster.stop(1000);
    throw failed.reason;
  }
  return cluster;
}

/** The PostgreSQL database of a test file and a way to start clusters on it. */
export async function clusterSuite(): Promise<ClusterSuite> {
  const db: PgTestDatabase | string = await pgTestDatabase();
  if (typeof db !== 'string') after(() => db.dispose());
  return {
    skip: typeof db === 'string' ? { skip: db } : {},
    async withCluster(options, fn) {
      if (typeof db === 'string') throw new Error(`no PostgreSQL: ${db}`);
      const url = new URL(db.url);
      url.searchParams.set('schema', db.schema());
      const cluster = await startCluster(url.toString(), options);
      try {
        return await fn(cluster);
      } finally {
        await cluster.stop(options.stopGraceMs);
      }
    },
  };
}

/** The task state an event of a test stream carries (a Task snapshot or a status update). */
export function stateOf(item: { event?: unknown } | undefined): string | undefined {
  const e = item?.event as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } } | undefined;
  return e?.task?.status.state ?? e?.statusUpdate?.status.state;
}

/** The SSE ids of a test stream's events as numbers. */
export function seqs(events: readonly { id?: string }[]): number[] {
  return events.map((e) => Number(e.id));
}
