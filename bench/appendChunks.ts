/**
 * One artifact streamed in N appended chunks (LLM token streaming), one blocking SendMessage
 * through createA2AHandler's fetch entry, on the SQLite and (when a server is at hand) the
 * PostgreSQL store: the wall time of the call, and the bytes of the task rows afterwards.
 * A script, not a test (timings):
 *
 *   node --conditions=a2a-kit-source --import tsx bench/appendChunks.ts [sqlite|postgres|memory] [N,N,...] [chunkChars]
 *
 * PostgreSQL: A2A_TEST_POSTGRES_URL, else a throwaway cluster from scripts/ci-postgres.sh.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { createA2AHandler } from '../src/server/createA2AHandler.js';
import { LocalEventBus } from '../src/server/eventBus.js';
import { MemoryTaskStore } from '../src/server/stores/memoryStore.js';
import { SqliteTaskStore } from '../src/stores/sqlite/sqliteStore.js';
import { PostgresTaskStore } from '../src/stores/postgres/postgresStore.js';
import type { TaskStore } from '../src/server/stores/taskStore.js';
import type { AgentExecutor } from '../src/server/agentExecutor.js';
import { demoCard } from '../src/cli/agents/demo.js';
import { withInterfaces } from '../src/server/agentDefinition.js';

const kind = process.argv[2] ?? 'sqlite';
const counts = (process.argv[3] ?? '500,2000,8000').split(',').map(Number);
const chunkChars = Number(process.argv[4] ?? 40);

function streamingAgent(chunks: number): AgentExecutor {
  const chunk = 'x'.repeat(chunkChars);
  return {
    async execute(_ctx, task) {
      await task.startWork();
      const artifactId = await task.addArtifact(chunk);
      for (let i = 1; i < chunks; i++) await task.addArtifact(chunk, { artifactId, append: true, ...(i === chunks - 1 ? { lastChunk: true } : {}) });
      await task.complete();
    },
  };
}

async function once(store: TaskStore, chunks: number): Promise<{ ms: number; chars: number }> {
  const base = withInterfaces(demoCard(), { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' });
  const card = { ...base, capabilities: { ...base.capabilities, pushNotifications: false, extendedAgentCard: false } };
  const handler = createA2AHandler({ agentCard: card, executor: streamingAgent(chunks), store, bus: new LocalEventBus() });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${chunks}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'go' }] } } });
  const started = performance.now();
  const res = await handler.fetch(new Request('http://127.0.0.1:1/a2a/jsonrpc', { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body }));
  const ms = performance.now() - started;
  const json = (await res.json()) as { result?: { task?: { status: { state: string }; artifacts?: Array<{ parts: Array<{ text?: string }> }> } } };
  const task = json.result?.task;
  if (task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`unexpected answer: ${JSON.stringify(json).slice(0, 300)}`);
  const chars = (task.artifacts?.[0]?.parts ?? []).reduce((n, p) => n + (p.text?.length ?? 0), 0);
  const stored = await store.get('', (json.result?.task as unknown as { id: string }).id);
  if (JSON.stringify(stored?.task) !== JSON.stringify(task)) throw new Error('the stored task differs from the answer');
  return { ms, chars };
}

async function postgresUrl(): Promise<{ url: string; stop: () => void }> {
  if (process.env.A2A_TEST_POSTGRES_URL) return { url: process.env.A2A_TEST_POSTGRES_URL, stop: () => {} };
  const script = new URL('../scripts/ci-postgres.sh', import.meta.url).pathname;
  const out = execFileSync('bash', [script, 'start'], { encoding: 'utf8' });
  const env = Object.fromEntries([...out.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1], m[2]]));
  const dir = env.A2A_TEST_POSTGRES_DIR ?? '';
  return { url: env.A2A_TEST_POSTGRES_URL ?? '', stop: () => execFileSync('bash', [script, 'stop', dir], { env: { ...process.env, A2A_TEST_POSTGRES_BIN: env.A2A_TEST_POSTGRES_BIN ?? '' } }) };
}

const server = kind === 'postgres' ? await postgresUrl() : undefined;
try {
  for (const n of counts) await measure(n);
} finally {
  server?.stop();
}

async function measure(n: number): Promise<void> {
  if (kind === 'memory') {
    const r = await once(new MemoryTaskStore(), n);
    console.log(`memory   ${String(n).padStart(6)} chunks: ${r.ms.toFixed(0).padStart(7)} ms, artifact ${r.chars} chars`);
  } else if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-chunks-'));
    const path = join(dir, 'tasks.db');
    const store = new SqliteTaskStore({ path });
    const r = await once(store, n);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    await store.close();
    const size = (await stat(path)).size;
    console.log(`sqlite   ${String(n).padStart(6)} chunks: ${r.ms.toFixed(0).padStart(7)} ms, artifact ${r.chars} chars, file ${(size / 1e6).toFixed(1)} MB`);
    await rm(dir, { recursive: true, force: true });
  } else {
    const url = server?.url ?? '';
    const schema = `bench_${process.pid}_${n}`;
    const store = await PostgresTaskStore.open({ connectionString: url, schema });
    const r = await once(store, n);
    const pool = new pg.Pool({ connectionString: url });
    const size = await pool.query<{ b: string }>(`SELECT pg_total_relation_size('"${schema}".tasks') AS b`);
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
    await store.close();
    console.log(`postgres ${String(n).padStart(6)} chunks: ${r.ms.toFixed(0).padStart(7)} ms, artifact ${r.chars} chars, tasks table ${(Number(size.rows[0]?.b) / 1e6).toFixed(1)} MB`);
  }
}
