/**
 * Health probes over HTTP (docs/deploy.md, "Health probes"; OPS-HEALTH): `serveAgent` serves
 * GET/HEAD /healthz (liveness) and /readyz (readiness from the task store's check and the drain
 * state) by default, uncached, without credentials, not counted against the per-address request
 * rate (R25), at configurable paths or not at all, one pair for a server of tenants. Real servers on
 * loopback.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveAgent, type RunningAgent, type ServeAgentOptions } from '../../src/node/serveAgent.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { StoreUnavailableError } from '../../src/protocol/errors.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { testCard } from '../server/support.js';
import { request, rpcBody, userMessage } from '../node/helpers.js';
import { heldAgent, probe } from './support.js';

const servers: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(options: Partial<ServeAgentOptions> = {}): Promise<RunningAgent> {
  const running = await serveAgent({ agent: { card: testCard('health'), executor: createDemoAgent() }, port: 0, onError: () => undefined, ...options });
  servers.push(running);
  return running;
}

/** A memory store whose check fails (or hangs) while `state.mode` says so. */
function flakyStore(state: { mode: 'ok' | 'down' | 'hang' | 'secret' }): MemoryTaskStore {
  const store = new MemoryTaskStore();
  store.ping = async (signal?: AbortSignal) => {
    if (state.mode === 'down') throw StoreUnavailableError.from(new Error('connect ECONNREFUSED 10.0.0.1:5432'));
    if (state.mode === 'secret') throw new Error('password authentication failed for user "a2a" (password hunter2)');
    if (state.mode === 'hang') await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
  };
  return store;
}

describe('OPS-HEALTH HTTP probes', () => {
  test('memory store: GET and HEAD /healthz and /readyz answer 200 {"status":"SERVING"}, Cache-Control no-store; other methods 405', async () => {
    const s = await start();
    for (const path of ['/healthz', '/readyz']) {
      const get = await probe(s.url + path);
      assert.equal(get.status, 200, path);
      assert.deepEqual(get.json, { status: 'SERVING' });
      assert.equal(get.headers['cache-control'], 'no-store');
      assert.equal(get.headers['content-type'], 'application/json');
      const head = await probe(s.url + path, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers['cache-control'], 'no-store');
      const post = await request(s.url + path, { body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    }
  });

  test('SQLite store: /readyz 200 while its SELECT 1 answers; 503 "store unreachable" once its database is closed; /healthz stays 200', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-health-'));
    dirs.push(dir);
    const store = new SqliteTaskStore({ path: join(dir, 'tasks.db') });
    const s = await start({ handler: { store }, health: { checkCacheMs: 0 } });
    assert.equal((await probe(s.url + '/readyz')).status, 200);
    store.db.close();
    const down = await probe(s.url + '/readyz');
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, { status: 'NOT_SERVING', reason: 'store unreachable' });
    assert.equal(down.headers['retry-after'], '1');
    assert.equal(down.headers['cache-control'], 'no-store');
    assert.equal((await probe(s.url + '/healthz')).status, 200);
  });

  test('a store check that fails answers 503 "store unreachable" (no detail of the failure), and 200 again once it answers', async () => {
    const state: { mode: 'ok' | 'down' | 'hang' | 'secret' } = { mode: 'ok' };
    const s = await start({ handler: { store: flakyStore(state) }, health: { checkCacheMs: 0 } });
    assert.equal((await probe(s.url + '/readyz')).status, 200);
    for (const mode of ['down', 'secret'] as const) {
      state.mode = mode;
      const down = await probe(s.url + '/readyz');
      assert.equal(down.status, 503, mode);
      assert.deepEqual(down.json, { status: 'NOT_SERVING', reason: 'store unreachable' });
      assert.doesNotMatch(down.text, /hunter2|ECONNREFUSED|at /);
    }
    state.mode = 'ok';
    assert.deepEqual((await probe(s.url + '/readyz')).json, { status: 'SERVING' });
  });

  test('a store check that does not answer is given up after storeTimeoutMs: 503 "store unreachable", not a hung probe', async () => {
    const state: { mode: 'ok' | 'down' | 'hang' | 'secret' } = { mode: 'hang' };
    const s = await start({ handler: { store: flakyStore(state) }, health: { storeTimeoutMs: 300 } });
    const began = performance.now();
    const res = await probe(s.url + '/readyz');
    const took = performance.now() - began;
    assert.equal(res.status, 503);
    assert.deepEqual(res.json, { status: 'NOT_SERVING', reason: 'store unreachable' });
    assert.ok(took >= 250 && took < 2000, `answered after ${took.toFixed(0)} ms`);
  });

  test('graceful shutdown: /readyz answers 503 "draining" with Retry-After while a long task keeps the server draining; /healthz stays 200', async () => {
    const agent = heldAgent();
    const s = await start({ agent: { card: testCard('health'), executor: agent.executor }, shutdownDelayMs: 1500, shutdownTimeoutMs: 5000 });
    const send = request(s.url + '/a2a/jsonrpc', { body: rpcBody('SendMessage', { message: userMessage('hold'), configuration: { returnImmediately: false } }), headers: { 'content-type': 'application/json' } });
    await agent.started;
    assert.equal((await probe(s.url + '/readyz')).status, 200);
    const closed = s.close();
    const draining = await probe(s.url + '/readyz');
    assert.equal(draining.status, 503);
    assert.deepEqual(draining.json, { status: 'NOT_SERVING', reason: 'draining' });
    assert.equal(draining.headers['retry-after'], '1');
    assert.equal((await probe(s.url + '/healthz')).status, 200, 'still alive while draining');
    assert.equal((await probe(s.url + '/readyz', 'HEAD')).status, 503);
    agent.release();
    assert.equal((await send).status, 200, 'the running task finished');
    await closed;
  });

  test('R25 the probes are not counted against the per-address request rate, and answer while another caller from the address has spent it', async () => {
    const s = await start({ handler: { abuseLimits: { requestsPerSecond: 1, requestBurst: 2 } } });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await probe(s.url + (i % 2 ? '/readyz' : '/healthz'))).status);
    assert.deepEqual(statuses, Array(10).fill(200));
    // The address's budget spent by A2A calls: the probes still answer, the calls do not.
    const calls = [];
    for (let i = 0; i < 3; i++) calls.push((await request(s.url + '/a2a/jsonrpc', { body: rpcBody('GetTask', { id: 'nope' }) })).status);
    assert.equal(calls.at(-1), 429, `calls ${calls.join(',')}`);
    assert.equal((await probe(s.url + '/healthz')).status, 200);
    assert.equal((await probe(s.url + '/readyz', 'HEAD')).status, 200);
  });

  test('paths are configurable; health: false serves none; a path of the agent is refused', async () => {
    const moved = await start({ health: { livenessPath: '/live', readinessPath: '/ops/ready' } });
    assert.equal((await probe(moved.url + '/live')).status, 200);
    assert.equal((await probe(moved.url + '/ops/ready')).status, 200);
    assert.equal((await probe(moved.url + '/healthz')).status, 404);
    const off = await start({ health: false });
    assert.equal(off.health, undefined);
    assert.equal((await probe(off.url + '/healthz')).status, 404);
    assert.equal((await probe(off.url + '/readyz')).status, 404);
    for (const path of ['/a2a/jsonrpc', '/.well-known/agent-card.json', '/a2a/rest/tasks']) {
      await assert.rejects(start({ health: { readinessPath: path } }), /is a path of the agent/, path);
    }
  });

  test('tenants: one pair for the whole server, at the root', async () => {
    const s = await serveAgent({
      tenants: { acme: { card: testCard('acme'), executor: createDemoAgent() }, globex: { card: testCard('globex'), executor: createDemoAgent() } },
      port: 0,
      onError: () => undefined,
    });
    servers.push(s);
    assert.deepEqual((await probe(s.url + '/healthz')).json, { status: 'SERVING' });
    assert.deepEqual((await probe(s.url + '/readyz')).json, { status: 'SERVING' });
    assert.equal((await probe(s.url + '/acme/readyz')).status, 404);
  });
});
