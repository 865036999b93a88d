/**
 * PostgreSQL out of reach for a moment (a restart, a failover). The store reaches PostgreSQL
 * through a loopback TCP relay this test can switch off — every open connection cut, new ones
 * refused (ECONNREFUSED), as `pg_ctl -m fast stop` does — and on again, without restarting the
 * test's server. R2/R24: a task running through the outage, and one whose connections are
 * killed with pg_terminate_backend mid-run, completes normally with a gapless event log. R19:
 * while PostgreSQL is unreachable every binding answers a retryable UNAVAILABLE (REST: HTTP 503
 * with Retry-After; JSON-RPC -32000 with ErrorInfo UNAVAILABLE on HTTP 200, B6; gRPC
 * UNAVAILABLE), never INTERNAL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { isConnectionFailure } from '../../src/stores/postgres/pgFailures.js';
import { testCard } from '../server/support.js';
import { grpcBinding } from '../grpc/grpcTestBinding.js';
import { jsonRpcBinding, restBinding } from '../support/bindings.js';
import { pgTestFile } from './pgSetup.js';
import { startRelay } from './pgRelay.js';

const { skip, db } = await pgTestFile();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Emits `n` artifact chunks, one every `everyMs`, then completes (as the demo agent's slow mode). */
function tickingAgent(n: number, everyMs: number, ticks: (i: number) => void): AgentExecutor {
  return {
    async execute(_c, updater) {
      await updater.startWork('working');
      for (let i = 0; i < n; i++) {
        ticks(i);
        await updater.addArtifact(`tick ${i}`, { artifactId: 'ticks', append: i > 0 });
        await sleep(everyMs);
      }
      await updater.complete('done');
    },
  };
}

/** An `a2a serve`-like server (leases and the NOTIFY bus as for several instances) on PostgreSQL through `storeUrl`. */
async function serveOn(storeUrl: string, executor: AgentExecutor, schema: string): Promise<{ running: RunningAgent; store: PostgresTaskStore; errors: unknown[] }> {
  const errors: unknown[] = [];
  const store = await PostgresTaskStore.open({ connectionString: storeUrl, schema, onError: (e) => errors.push(e) });
  const running = await serveAgent({
    agent: { card: testCard('outage'), executor },
    port: 0,
    grpc: { port: 0 },
    onError: (e) => errors.push(e),
    handler: { store, leases: { ttlMs: 15_000 } },
  });
  return { running, store, errors };
}

async function checkLog(store: PostgresTaskStore, taskId: string, chunks: number): Promise<void> {
  const record = await store.get('', taskId);
  assert.equal(record?.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(record?.task.artifacts?.[0]?.parts.length, chunks, 'every chunk once');
  const events = await store.events('', taskId, 0);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
    'gapless',
  );
  assert.equal(events.length, chunks + 3, 'the snapshot, WORKING, the chunks, COMPLETED: nothing twice');
}

async function sendAndWait(running: RunningAgent, text: string): Promise<string> {
  const rest = restBinding(`${running.url}/a2a/rest`);
  const res = await rest.call('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
  assert.ok(res.ok, JSON.stringify(res));
  const task = (res.result as { task: { id: string; status: { state: string } } }).task;
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(res.result).slice(0, 500));
  return task.id;
}

test('R2/R24: a task running while PostgreSQL is down for 600 ms (connections cut, then refused) completes, gapless', { skip, timeout: 20_000 }, async () => {
  const relay = await startRelay(new URL(db.url));
  let outage: Promise<void> | undefined;
  const { running, store } = await serveOn(
    relay.url,
    tickingAgent(30, 50, (i) => {
      if (i === 8) outage = relay.off().then(() => sleep(600)).then(() => relay.on());
    }),
    db.schema(),
  );
  try {
    const id = await sendAndWait(running, 'tick');
    await outage;
    await checkLog(store, id, 30);
  } finally {
    await running.close();
    await store.close();
    await relay.close();
  }
});

test('R2: a task whose PostgreSQL connections are killed (pg_terminate_backend) mid-run completes, gapless', { skip, timeout: 20_000 }, async () => {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  const schema = db.schema();
  let kills: Promise<unknown> = Promise.resolve();
  const { running, store } = await serveOn(
    db.url,
    tickingAgent(30, 40, (i) => {
      // Every other backend of this database: the store's pool and its LISTEN connection.
      if (i % 7 === 3) kills = kills.then(() => admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()'));
    }),
    schema,
  );
  try {
    const id = await sendAndWait(running, 'tick');
    await kills;
    await checkLog(store, id, 30);
  } finally {
    await running.close();
    await store.close();
    await admin.end();
  }
});

test('R19: with PostgreSQL unreachable, JSON-RPC, REST and gRPC answer a retryable UNAVAILABLE, not INTERNAL', { skip, timeout: 20_000 }, async () => {
  const relay = await startRelay(new URL(db.url));
  const { running, store } = await serveOn(relay.url, tickingAgent(1, 0, () => undefined), db.schema());
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] };
  try {
    await relay.off();
    const jsonRpc = await jsonRpcBinding(`${running.url}/a2a/jsonrpc`).call('getTask', { id: 'some-task' });
    const rest = await restBinding(`${running.url}/a2a/rest`).call('sendMessage', { message });
    const grpc = await grpcBinding(running.grpc?.address as string).call('getTask', { id: 'some-task' });
    for (const [name, res, status] of [
      ['JSON-RPC', jsonRpc, 200],
      ['REST', rest, 503],
      ['gRPC', grpc, 200],
    ] as const) {
      assert.equal(res.ok, false, name);
      if (res.ok) continue;
      assert.equal(res.error.reason, 'UNAVAILABLE', `${name}: ${JSON.stringify(res.error.raw)}`);
      assert.equal(res.error.metadata.retryAfterMs, '1000', name);
      assert.equal(res.status, status, name);
      if (status === 503) assert.equal(res.headers.get('retry-after'), '1', name);
    }
    assert.equal(jsonRpc.ok === false && jsonRpc.error.jsonRpcCode, -32000);
    assert.equal(rest.ok === false && rest.error.grpcStatus, 'UNAVAILABLE');
    assert.equal(grpc.ok === false && grpc.error.grpcStatus, 'UNAVAILABLE');
  } finally {
    await running.close();
    await store.close();
    await relay.close();
  }
});

test('R19: the connection failures that mean "PostgreSQL is out of reach" are told from the others', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  for (const e of [coded('ECONNREFUSED'), coded('ECONNRESET'), coded('57P01'), coded('57P03'), coded('08006'), new Error('Connection terminated unexpectedly')]) {
    assert.equal(isConnectionFailure(e), true, e.message);
  }
  for (const e of [coded('23505'), coded('40001'), coded('22021'), new Error('syntax error')]) assert.equal(isConnectionFailure(e), false, e.message);
});
