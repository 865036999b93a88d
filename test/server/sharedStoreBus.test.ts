/**
 * Issue 7 (several instances from code): a handler on a store shared by several instances
 * (PostgreSQL) with the default in-process bus warns once through onError — its streams would
 * never see other instances' writes. `a2a serve` wires PostgresEventBus itself; code that builds
 * the handler is told what to pass (docs/storage.md, "Several instances from code").
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH } from '../../src/server/createA2AHandler.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { SHARED_STORE_LOCAL_BUS_WARNING } from '../../src/server/sharedStoreCheck.js';
import { PostgresEventBus } from '../../src/stores/postgres/postgresEventBus.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { pgTestDatabase } from '../stores/pgSetup.js';

const base = { ...demoCard(), capabilities: { streaming: true } };
const agentCard = withInterfaces(base, { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH });
const executor = createDemoAgent();

class SharedStore extends MemoryTaskStore {
  readonly sharedAcrossInstances = true;
}

const warnings = (errors: unknown[]) => errors.filter((e) => e instanceof Error && e.message === SHARED_STORE_LOCAL_BUS_WARNING);

test('SCALE-CODE: a shared store with the default bus warns once per store through onError; a bus given, or a local store, does not', () => {
  const errors: unknown[] = [];
  const onError = (e: unknown) => errors.push(e);
  const store = new SharedStore();
  createA2AHandler({ agentCard, executor, store, onError });
  createA2AHandler({ agentCard, executor, store, onError });
  assert.equal(warnings(errors).length, 1, 'once per store');
  assert.match((errors[0] as Error).message, /bus: new PostgresEventBus\(.*leases: \{\}.*Several instances from code/s);
  // Tenants share one store and one bus: the router warns too.
  createA2AHandler({ tenants: { a: { card: base, executor } }, interfaces: { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH }, store: new SharedStore(), onError });
  assert.equal(warnings(errors).length, 2);
  // One instance on purpose: an explicit bus says so. A single-process store never warns.
  createA2AHandler({ agentCard, executor, store: new SharedStore(), bus: new LocalEventBus(), onError });
  createA2AHandler({ agentCard, executor, store: new MemoryTaskStore(), onError });
  assert.equal(warnings(errors).length, 2);
});

const db = await pgTestDatabase();
if (typeof db !== 'string') after(() => db.dispose());

test('SCALE-CODE: PostgresTaskStore is marked shared: warned with the default bus, not with PostgresEventBus', typeof db === 'string' ? { skip: db } : {}, async () => {
  if (typeof db === 'string') return;
  const store = await PostgresTaskStore.open({ connectionString: db.url, schema: db.schema() });
  try {
    const errors: unknown[] = [];
    createA2AHandler({ agentCard, executor, store, bus: new PostgresEventBus({ connectionString: db.url, store }), leases: {}, onError: (e) => errors.push(e) });
    assert.deepEqual(warnings(errors), []);
    createA2AHandler({ agentCard, executor, store, onError: (e) => errors.push(e) });
    assert.equal(warnings(errors).length, 1);
  } finally {
    await store.close();
  }
});
