/**
 * What the durable-store bench servers share — servers/store.ts (ours) and servers/sdkStore.ts
 * (the official SDK's DatabaseTaskStore): the environment they are configured by, the prefill
 * loop and the SQLite file size.
 *
 *   BENCH_STORE=sqlite   BENCH_SQLITE_PATH=/tmp/x.db [BENCH_PREFILL=100000]
 *   BENCH_STORE=postgres BENCH_POSTGRES_URL=postgres://…   (tables in a throwaway schema, dropped on exit)
 */
import { statSync } from 'node:fs';
import { prefillContextId, prefillId } from './ipc.js';

export interface StoreEnv {
  kind: 'sqlite' | 'postgres';
  sqlitePath: string;
  postgresUrl: string;
  /** BENCH_PREFILL: how many copies of a real task to write before reporting ready. */
  prefill: number;
  /** A schema name no other process uses, for the PostgreSQL tables (dropped on exit). */
  schema: (prefix: string) => string;
}

export function storeEnv(): StoreEnv {
  const kind = process.env.BENCH_STORE;
  if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`BENCH_STORE must be sqlite or postgres, not ${kind}`);
  return {
    kind,
    sqlitePath: process.env.BENCH_SQLITE_PATH ?? '',
    postgresUrl: process.env.BENCH_POSTGRES_URL ?? '',
    prefill: Number(process.env.BENCH_PREFILL ?? 0),
    schema: (prefix) => `${prefix}_${process.pid}`,
  };
}

/** One real SendMessage "hi" to a server: the ids of the completed task it created. */
export async function sendHi(jsonrpc: string): Promise<{ id: string; contextId: string }> {
  const res = await fetch(jsonrpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
  });
  return ((await res.json()) as { result: { task: { id: string; contextId: string } } }).result.task;
}

export interface Prefill<T> {
  count: number;
  /** The task sendHi created. */
  sample: { id: string; contextId: string };
  /** What the store holds for it, as JSON data; each copy has its ids replaced. */
  stored: unknown;
  /** Writes one batch of copies (ids `prefillId(i)`), in one transaction. */
  writeBatch: (copies: { id: string; data: T }[]) => Promise<void>;
}

const BATCH = 5000;

/** Writes `count` copies of the sample task's stored data; returns Ready.info figures. */
export async function prefill<T>(p: Prefill<T>): Promise<Record<string, number>> {
  const template = JSON.stringify(p.stored);
  const started = performance.now();
  for (let from = 0; from < p.count; from += BATCH) {
    const copies: { id: string; data: T }[] = [];
    for (let i = from; i < Math.min(p.count, from + BATCH); i++) {
      const id = prefillId(i);
      copies.push({ id, data: JSON.parse(template.replaceAll(p.sample.id, id).replaceAll(p.sample.contextId, prefillContextId(i))) as T });
    }
    await p.writeBatch(copies);
  }
  return { prefillSeconds: (performance.now() - started) / 1000, tasks: p.count + 1 };
}

/** Size of a SQLite database file once its WAL is checkpointed into it. */
export function sqliteFileBytes(db: { pragma: (source: string) => unknown }, path: string): number {
  db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(path).size;
}
