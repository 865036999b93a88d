/**
 * Issue 7: three real `a2a serve` processes on one PostgreSQL. A task started on A is streamed
 * from B (SubscribeToTask fed by A's writes through LISTEN/NOTIFY wake-ups and the shared event
 * log) and canceled from C; B's stream sees A's progress and ends CANCELED (R6: the stream closes
 * at the terminal state), and every instance answers GetTask with CANCELED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, ok, send } from '../support/assertions.js';
import { clusterSuite, seqs, stateOf, type ClusterNode } from './cluster.js';

const suite = await clusterSuite();

test('R6: a task started on A, streamed from B and canceled from C ends CANCELED everywhere', { timeout: 30_000, ...suite.skip }, () =>
  suite.withCluster({ size: 3, env: { A2A_DEMO_SLOW_MS: '5000', A2A_DEMO_TICK_MS: '100' }, stopGraceMs: 2000 }, async ({ nodes }) => {
    const [a, b, c] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    const task = ok(await a.jsonRpc.call('sendMessage', send('slow work', {}, { returnImmediately: true }))).task;
    await eventually(
      async () => (ok(await b.jsonRpc.call('getTask', { id: task.id })).status.state === 'TASK_STATE_WORKING' ? true : undefined),
      "B to see A's task WORKING",
    );
    let progress = 0;
    const streamed = b.jsonRpc.stream('subscribeToTask', { id: task.id }, {
      timeoutMs: 20_000,
      onEvent: (e) => {
        if (stateOf(e) === 'TASK_STATE_WORKING') progress++;
      },
    });
    await eventually(async () => (progress >= 3 ? true : undefined), 'progress written on A to reach the stream on B', 10_000);
    const canceled = ok(await c.rest.call('cancelTask', { id: task.id }));
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    const result = await streamed;
    assert.ok(result.ok && result.ended, 'the stream on B ended by itself');
    const events = result.ok ? result.events : [];
    assert.equal(stateOf(events[0]), 'TASK_STATE_WORKING', 'the Task snapshot first');
    assert.ok(events[0]?.event?.task, 'the Task snapshot first');
    assert.equal(stateOf(events.at(-1)), 'TASK_STATE_CANCELED', 'the stream on B ends with the cancel made on C');
    const ids = seqs(events);
    assert.deepEqual(ids, ids.map((_, i) => (ids[0] as number) + i), 'consecutive SSE ids (no gap, no duplicate)');
    for (const n of [a, b, c]) {
      assert.equal(ok(await n.jsonRpc.call('getTask', { id: task.id })).status.state, 'TASK_STATE_CANCELED', `GetTask on ${n.name}`);
    }
  }),
);
