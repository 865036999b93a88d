/**
 * SCALE-CODE (several instances from code): wireStore hands an opened store to the handler as
 * `a2a serve --store` does — on PostgreSQL with the PostgresEventBus (LISTEN/NOTIFY) and
 * execution leases, on single-process stores with neither. The CLI and the benchmark's
 * PostgreSQL row (bench/servers/store.ts) both use it, so the row measures what `a2a serve` runs.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH } from '../../src/server/createA2AHandler.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { SHARED_STORE_LOCAL_BUS_WARNING } from '../../src/server/sharedStoreCheck.js';
import { openStore, type OpenedStore } from '../../src/stores/contract/openStore.js';
import { PostgresEventBus } from '../../src/stores/postgres/postgresEventBus.js';
import { wireStore } from '../../src/stores/contract/wireStore.js';
import { pgTestDatabase } from './pgSetup.js';

const agentCard = withInterfaces({ ...demoCard(), capabilities: { streaming: true } }, { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH });
const warnings = (errors: unknown[]) => errors.filter((e) => e instanceof Error && e.message === SHARED_STORE_LOCAL_BUS_WARNING);

test('SCALE-CODE: wireStore on a single-process store gives the store alone (no bus, no leases)', async () => {
  const opened = await openStore('memory');
  const wired = await wireStore(opened, { leaseTtlMs: 5000 });
  assert.deepEqual(Object.keys(wired.handler), ['store']);
  assert.equal(wired.handler.store, opened.store);
  await wired.close();
});

test('SCALE-CODE: wireStore on a shared store opens its bus (errors to onBusError), adds leases with the TTL, and close() stops the bus', async () => {
  const memory = await openStore('memory');
  let closed = 0;
  let onError: ((e: unknown) => void) | undefined;
  const bus = Object.assign(new LocalEventBus(), { close: async () => void closed++ });
  const opened: OpenedStore = {
    ...memory,
    openBus: async (e) => {
      onError = e;
      return bus;
    },
  };
  const seen: unknown[] = [];
  const wired = await wireStore(opened, { leaseTtlMs: 5000, onBusError: (e) => seen.push(e) });
  assert.equal(wired.handler.bus, bus);
  assert.deepEqual(wired.handler.leases, { ttlMs: 5000 });
  onError?.('boom');
  assert.deepEqual(seen, ['boom']);
  assert.deepEqual((await wireStore(opened)).handler.leases, {}, 'no TTL: the lease keeper default');
  await wired.close();
  assert.equal(closed, 1);
});

const db = await pgTestDatabase();
if (typeof db !== 'string') after(() => db.dispose());

test('SCALE-CODE: wireStore on PostgreSQL: a PostgresEventBus and leases, so the handler does not warn of a local bus', typeof db === 'string' ? { skip: db } : {}, async () => {
  if (typeof db === 'string') return;
  const opened = await openStore({ kind: 'postgres', url: db.url, schema: db.schema() }, { serve: true });
  const wired = await wireStore(opened);
  try {
    assert.ok(wired.handler.bus instanceof PostgresEventBus);
    assert.deepEqual(wired.handler.leases, {});
    const errors: unknown[] = [];
    const handler = createA2AHandler({ agentCard, executor: createDemoAgent(), ...wired.handler, onError: (e) => errors.push(e) });
    assert.deepEqual(warnings(errors), []);
    await handler.requestHandler.drain(0);
  } finally {
    await wired.close();
    await opened.close();
  }
});
