/**
 * Readiness on the PostgreSQL store (OPS-HEALTH): /readyz runs `SELECT 1` through the store's
 * pool, bounded by the 1 s check timeout. 200 while PostgreSQL answers; 503 "store unreachable"
 * while it cannot be reached (a TCP relay switched off, as in postgresOutage.test.ts) and 200
 * again once it is back; 503 rather than a hung probe when every pool connection is busy, and no
 * pool client leaked by the checks given up. Skipped, saying why, without a PostgreSQL server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { testCard } from '../server/support.js';
import { pgTestFile } from '../stores/pgSetup.js';
import { startRelay } from '../stores/pgRelay.js';
import { probe } from './support.js';

const { skip, db } = await pgTestFile();

async function serveOn(store: PostgresTaskStore): Promise<RunningAgent> {
  return serveAgent({ agent: { card: testCard('pg-health'), executor: createDemoAgent() }, port: 0, onError: () => undefined, handler: { store }, health: { checkCacheMs: 0 } });
}

async function readyUntil(url: string, status: number, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await probe(url);
    if (res.status === status) return;
    if (Date.now() > end) assert.fail(`/readyz stayed ${res.status} ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('OPS-HEALTH PostgreSQL: /readyz 200; 503 "store unreachable" while PostgreSQL is cut off; 200 again once it is back', { skip }, async () => {
  const relay = await startRelay(new URL(db.url));
  const store = await PostgresTaskStore.open({ connectionString: relay.url, schema: db.schema(), poolConfig: { max: 3 } });
  const running = await serveOn(store);
  try {
    assert.deepEqual((await probe(running.url + '/readyz')).json, { status: 'SERVING' });
    await relay.off();
    const began = performance.now();
    const down = await probe(running.url + '/readyz');
    assert.ok(performance.now() - began < 2000, 'answered within the check bound');
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, { status: 'NOT_SERVING', reason: 'store unreachable' });
    assert.equal(down.headers['retry-after'], '1');
    assert.equal((await probe(running.url + '/healthz')).status, 200, 'alive all along');
    await relay.on();
    await readyUntil(running.url + '/readyz', 200);
    assert.ok(store.pool.totalCount <= 3 && store.pool.waitingCount === 0, `pool: ${store.pool.totalCount} connections, ${store.pool.waitingCount} waiting`);
  } finally {
    await running.close();
    await store.close();
    await relay.close();
  }
});

test('OPS-HEALTH PostgreSQL: every pool connection busy → 503 within the bound, not a hung probe; the connection the check waited for is given back', { skip, timeout: 30_000 }, async () => {
  const store = await PostgresTaskStore.open({ connectionString: db.url, schema: db.schema(), poolConfig: { max: 1 } });
  const running = await serveOn(store);
  try {
    const held = await store.pool.connect();
    const began = performance.now();
    const busy = await probe(running.url + '/readyz');
    const took = performance.now() - began;
    assert.equal(busy.status, 503);
    assert.deepEqual(busy.json, { status: 'NOT_SERVING', reason: 'store unreachable' });
    assert.ok(took >= 900 && took < 3000, `answered after ${took.toFixed(0)} ms`);
    assert.equal(store.pool.waitingCount, 1, 'the given-up check still waits for the connection');
    held.release();
    // The late connection goes back to the pool: the next check (and the store) can use it.
    await readyUntil(running.url + '/readyz', 200, 3000);
    assert.equal(store.pool.waitingCount, 0);
    assert.equal(store.pool.idleCount, 1, 'the one connection is idle in the pool, not leaked');
  } finally {
    await running.close();
    await store.close();
  }
});
