/**
 * Issue 7: the PostgreSQL wake-up survives its connection breaking. The listening connection of
 * instance B is terminated by the server (as a restart, failover or proxy idle cut would); B
 * reopens it, and events instance A wrote while B was deaf still reach B's subscriber — read
 * from the log, not from the lost notifications — and later events flow again as before.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresEventBus } from '../../src/stores/postgres/postgresEventBus.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import type { StoredEvent } from '../../src/server/stores/taskStore.js';
import type { Task } from '../../src/protocol/types.js';
import { pgTestDatabase, type PgTestDatabase } from '../stores/pgSetup.js';

const setup = await pgTestDatabase();
const skip = typeof setup === 'string' ? setup : false;
let db: PgTestDatabase;
let store: PostgresTaskStore;

before(async () => {
  if (typeof setup === 'string') return;
  db = setup;
  store = await PostgresTaskStore.open({ connectionString: db.url, schema: db.schema() });
});

after(async () => {
  await store?.close();
  await db?.dispose();
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Terminates the backend of B's listening connection; resolves with how many were terminated. */
async function cutListener(bus: PostgresEventBus): Promise<number> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const r = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [bus.applicationName]);
    return r.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

const statusEvent = (taskId: string, state: Task['status']['state']) => ({ statusUpdate: { taskId, contextId: 'c', status: { state } } });

test('issue 7: a broken LISTEN connection is reopened and events written meanwhile still reach the streams', { skip }, async () => {
  const channel = `a2a_events_reconnect_${process.pid}`;
  const errors: unknown[] = [];
  const a = new PostgresEventBus({ connectionString: db.url, store, channel });
  const b = new PostgresEventBus({ connectionString: db.url, store, channel, reconnectDelayMs: 50, onError: (e) => errors.push(e) });
  await a.start();
  await b.start();
  try {
    const taskId = `t-${process.pid}`;
    const task: Task = { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } };
    let record = (await store.create('', task)).record;
    const seen: StoredEvent[] = [];
    const stop = b.subscribe('', taskId, (events) => seen.push(...events));

    /** Writes one status event through A (store, then A's publish), as a TaskWriter would. */
    const write = async (state: Task['status']['state']) => {
      const next = { ...record.task, status: { state } };
      const result = await store.append({ tenant: '', taskId, expectedVersion: record.version, task: next, events: [statusEvent(taskId, state)] });
      record = result.record;
      a.publish('', taskId, result.events);
    };

    await write('TASK_STATE_WORKING');
    await waitFor(() => seen.some((e) => e.seq === 2), 'the first event before the cut');

    assert.equal(await cutListener(b), 1, "B's listening connection was found and terminated");
    // Written while B cannot hear: its notification is lost for good.
    await write('TASK_STATE_INPUT_REQUIRED');
    await waitFor(() => seen.some((e) => e.seq === 3), 'the event written during the outage (caught up from the log)');
    assert.ok(errors.length > 0, 'the broken connection was reported');

    // And the reopened connection carries new wake-ups.
    await write('TASK_STATE_WORKING');
    await waitFor(() => seen.some((e) => e.seq === 4), 'an event after the reconnect');
    const seqs = [...new Set(seen.map((e) => e.seq))];
    assert.deepEqual(seqs, [2, 3, 4], 'every event, in order');
    stop();
  } finally {
    await a.close();
    await b.close();
  }
});

test('issue 7: a closed bus does not reopen its connection', { skip }, async () => {
  const bus = new PostgresEventBus({ connectionString: db.url, store, channel: `a2a_events_closed_${process.pid}`, reconnectDelayMs: 10 });
  await bus.start();
  await bus.close();
  await new Promise((r) => setTimeout(r, 200));
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const r = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [bus.applicationName]);
    assert.equal(r.rows[0].n, 0);
  } finally {
    await admin.end();
  }
});

test('issue 7: an event committed without its NOTIFY (the writer died in between) still reaches a stream on another instance, read from the log by the periodic catch-up', { skip }, async () => {
  const channel = `a2a_events_catchup_${process.pid}`;
  const b = new PostgresEventBus({ connectionString: db.url, store, channel, catchUpIntervalMs: 200 });
  await b.start();
  try {
    const taskId = `lost-notify-${process.pid}`;
    const task: Task = { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } };
    const { record } = await store.create('', task);
    const seen: StoredEvent[] = [];
    const stop = b.subscribe('', taskId, (events) => seen.push(...events));
    // Committed, and never announced: no bus publishes it.
    await store.append({ tenant: '', taskId, expectedVersion: record.version, task: { ...task, status: { state: 'TASK_STATE_WORKING' } }, events: [statusEvent(taskId, 'TASK_STATE_WORKING')] });
    await waitFor(() => seen.some((e) => e.seq === 2), 'the unannounced event', 5000);
    stop();
  } finally {
    await b.close();
  }
});
