/**
 * R6 across instances: 50 SubscribeToTask streams split over three `a2a serve` processes on one
 * PostgreSQL (JSON-RPC and REST alternating) follow one task started on A. Every subscriber gets
 * its Task snapshot first, then every later event of the task log exactly once, in order, with
 * the same bodies as every other subscriber, and its stream closes at the terminal state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamEvent, Json } from '../support/bindings.js';
import { eventually, ok, okStream, send } from '../support/assertions.js';
import { clusterSuite, seqs, stateOf, type ClusterNode } from './cluster.js';

const suite = await clusterSuite();
const SUBSCRIBERS = 50;

/** The status of the task after the events up to `seq` of the log (log[i] has seq i + 1). */
function statusAt(log: readonly Json[], seq: number): Json {
  for (let i = seq - 1; i >= 0; i--) {
    const e = log[i];
    if (e?.task) return e.task.status;
    if (e?.statusUpdate) return e.statusUpdate.status;
  }
  return undefined;
}

test(`R6: ${SUBSCRIBERS} subscribers over three instances receive identical, ordered, gap-free events`, { timeout: 40_000, ...suite.skip }, () =>
  suite.withCluster({ size: 3, env: { A2A_DEMO_SLOW_MS: '2500', A2A_DEMO_TICK_MS: '20' } }, async ({ nodes }) => {
    const [a, , c] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    const task = ok(await a.jsonRpc.call('sendMessage', send('slow fan-out', {}, { returnImmediately: true }))).task;
    await eventually(
      async () => (ok(await c.jsonRpc.call('getTask', { id: task.id })).status.state === 'TASK_STATE_WORKING' ? true : undefined),
      'the task WORKING',
    );
    const streams = await Promise.all(
      Array.from({ length: SUBSCRIBERS }, async (_, i) => {
        const n = nodes[i % nodes.length] as ClusterNode;
        const binding = i % 2 === 0 ? n.jsonRpc : n.rest;
        const where = `subscriber ${i} (${binding.name} on ${n.name})`;
        return { where, events: okStream(await binding.stream('subscribeToTask', { id: task.id }, { timeoutMs: 30_000 })) };
      }),
    );

    // The whole log, replayed after the end (Last-Event-ID: 0), is the reference.
    const replay = okStream(await c.rest.stream('subscribeToTask', { id: task.id }, { headers: { 'last-event-id': '0' } }));
    const logSeqs = seqs(replay);
    assert.deepEqual(logSeqs, logSeqs.map((_, i) => i + 1), 'the log replays as 1..n');
    const log = replay.map((e) => e.event);
    const end = logSeqs.length;
    assert.equal(stateOf(replay.at(-1)), 'TASK_STATE_COMPLETED');
    assert.ok(end > 50, `a long task log (${end} events)`);

    const starts: number[] = [];
    for (const { where, events } of streams) {
      const [snapshot, ...rest] = events as [StreamEvent, ...StreamEvent[]];
      assert.ok(snapshot.event?.task, `${where}: the Task snapshot first`);
      const start = Number(snapshot.id);
      starts.push(start);
      assert.ok(start >= 1 && start < end, `${where}: subscribed while the task was running (snapshot id ${snapshot.id})`);
      assert.notEqual(stateOf(snapshot), 'TASK_STATE_COMPLETED', `${where}: snapshot of a running task`);
      assert.deepEqual(snapshot.event.task.status, statusAt(log, start), `${where}: the snapshot is the task as of its id`);
      assert.deepEqual(seqs(rest), logSeqs.slice(start), `${where}: ids ${start + 1}..${end}, no gap, no duplicate`);
      assert.deepEqual(
        rest.map((e) => e.event),
        log.slice(start),
        `${where}: the same event bodies as the log`,
      );
    }
    // The subscribers overlap on most of the task: the comparison covers a long common run.
    assert.ok(end - Math.max(...starts) >= 30, `a common run of ${end - Math.max(...starts)} events after the last subscriber joined`);
  }),
);
