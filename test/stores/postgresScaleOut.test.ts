/**
 * Issue 7, first slice: two real `a2a serve` processes on one PostgreSQL. A task started on A is
 * read and streamed from B (SubscribeToTask fed by A's writes through LISTEN/NOTIFY wake-ups and
 * the shared event log) and canceled from B; B's stream sees A's progress and ends CANCELED.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, ok, send } from '../support/assertions.js';
import { jsonRpcBinding } from '../support/bindings.js';
import { startServe } from '../cli/cliHelpers.js';
import { pgTestDatabase } from './pgSetup.js';

const db = await pgTestDatabase();

/** The state a status update in a test stream carries. */
function stateOf(e: unknown): string | undefined {
  return (e as { event?: { statusUpdate?: { status: { state: string } } } } | undefined)?.event?.statusUpdate?.status.state;
}
if (typeof db !== 'string') after(() => db.dispose());

test(
  'scale-out: a task started on A is streamed and canceled from B (PostgreSQL)',
  { timeout: 60_000, ...(typeof db === 'string' ? { skip: db } : {}) },
  async () => {
    if (typeof db === 'string') return;
    const url = new URL(db.url);
    url.searchParams.set('schema', db.schema());
    const env = { A2A_DEMO_SLOW_MS: '20000', A2A_DEMO_TICK_MS: '100' };
    const a = await startServe(['--store', url.toString()], env);
    const b = await startServe(['--store', url.toString()], env);
    try {
      const onA = jsonRpcBinding(a.urls.jsonrpc);
      const onB = jsonRpcBinding(b.urls.jsonrpc);
      const task = ok(await onA.call('sendMessage', send('slow work', {}, { returnImmediately: true }))).task;
      await eventually(async () => (ok(await onB.call('getTask', { id: task.id })).status.state === 'TASK_STATE_WORKING' ? true : undefined), 'B to see A\'s task WORKING');
      let progress = 0;
      const streamed = onB.stream('subscribeToTask', { id: task.id }, {
        timeoutMs: 30_000,
        onEvent: (e) => {
          if (stateOf(e) === 'TASK_STATE_WORKING') progress++;
        },
      });
      await eventually(async () => (progress >= 3 ? true : undefined), 'progress written on A to reach the stream on B', 10_000);
      const canceled = ok(await onB.call('cancelTask', { id: task.id }));
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      const result = await streamed;
      assert.ok(result.ok && result.ended, 'the stream on B ended');
      const last = result.ok ? result.events[result.events.length - 1] : undefined;
      assert.equal(stateOf(last), 'TASK_STATE_CANCELED');
      assert.equal(ok(await onA.call('getTask', { id: task.id })).status.state, 'TASK_STATE_CANCELED', 'A sees the cancel made on B');
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
      await Promise.all([a.proc.exited, b.proc.exited]);
    }
  },
);
