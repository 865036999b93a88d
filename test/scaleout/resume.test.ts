/**
 * R7 across instances: an event stream cut on one `a2a serve` process is resumed on another
 * (same PostgreSQL) with `Last-Event-ID` and continues exactly where it stopped — no gap, no
 * duplicate, up to the terminal state. First with the raw bindings (JSON-RPC and REST), then with
 * the client SDK behind a round-robin proxy (R6/R7: no session affinity) that cuts its streams.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type AgentCard, type StreamResponse } from '../../src/client/index.js';
import { eventually, ok, okStream, send } from '../support/assertions.js';
import type { TestBinding } from '../support/bindings.js';
import { clusterSuite, seqs, stateOf, type ClusterNode } from './cluster.js';
import { startRoundRobinProxy } from './roundRobinProxy.js';

const suite = await clusterSuite();
const BINDINGS = [
  { name: 'JSON-RPC', of: (n: ClusterNode): TestBinding => n.jsonRpc, client: 'JSONRPC' },
  { name: 'REST', of: (n: ClusterNode): TestBinding => n.rest, client: 'HTTP+JSON' },
] as const;

/** The whole event log of a task, replayed with Last-Event-ID: 0 once it is over. */
async function fullLog(binding: TestBinding, taskId: string) {
  const events = okStream(await binding.stream('subscribeToTask', { id: taskId }, { headers: { 'last-event-id': '0' } }));
  const ids = seqs(events);
  assert.deepEqual(ids, ids.map((_, i) => i + 1), 'the log replays as 1..n');
  return events;
}

for (const binding of BINDINGS) {
  test(`R7 (${binding.name}): a stream cut after k events on A resumes on B with Last-Event-ID at k+1, to the terminal state`, { timeout: 30_000, ...suite.skip }, () =>
    suite.withCluster({ size: 2, env: { A2A_DEMO_STREAM_DELAY_MS: '150' } }, async ({ nodes }) => {
      const [a, b] = nodes as [ClusterNode, ClusterNode];
      const k = 4;
      const first = await binding.of(a).stream('sendStreamingMessage', send('stream cut and resumed'), { maxEvents: k });
      assert.ok(first.ok && first.cut, 'the stream on A was cut');
      const head = first.events;
      assert.deepEqual(seqs(head), [1, 2, 3, 4]);
      const taskId: string = head[0]?.event.task.id;
      const stateAtCut = ok(await b.jsonRpc.call('getTask', { id: taskId })).status.state;
      assert.equal(stateAtCut, 'TASK_STATE_WORKING', 'the task keeps producing while the client is away');

      const tail = okStream(await binding.of(b).stream('subscribeToTask', { id: taskId }, { headers: { 'last-event-id': String(k) }, timeoutMs: 15_000 }));
      const ids = seqs(tail);
      assert.equal(ids[0], k + 1, 'B continues with k+1');
      assert.deepEqual(ids, ids.map((_, i) => k + 1 + i), 'no gap, no duplicate');
      assert.equal(tail[0]?.event?.task, undefined, 'a resumed stream replays events, not a new snapshot');
      assert.equal(stateOf(tail.at(-1)), 'TASK_STATE_COMPLETED', 'up to the terminal state');

      const log = await fullLog(binding.of(a), taskId);
      assert.deepEqual([...head, ...tail].map((e) => e.event), log.map((e) => e.event), 'A + B together are exactly the task log');
    }),
  );

  test(`R6/R7 client (${binding.name}): createClient behind a round-robin proxy resumes cut streams on the other instance, no gap or duplicate`, { timeout: 30_000, ...suite.skip }, () =>
    suite.withCluster({ size: 2, env: { A2A_DEMO_SLOW_MS: '1500', A2A_DEMO_TICK_MS: '50' } }, async ({ nodes }) => {
      const [a, b] = nodes as [ClusterNode, ClusterNode];
      const proxy = await startRoundRobinProxy([a.origin, b.origin]);
      try {
        const card = (await (await fetch(a.urls.card)).json()) as AgentCard;
        const proxied: AgentCard = {
          ...card,
          supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: `${proxy.url}${new URL(i.url).pathname}` })),
        };
        const client = await createClient(proxied, { bindings: [binding.client], resume: { delayMs: 10 } });
        const cutAt = [5, 15];
        const events: StreamResponse[] = [];
        for await (const event of client.streamText('slow resumed by the client')) {
          events.push(event);
          if (cutAt.includes(events.length)) assert.equal(proxy.cutStreams(), 1, `one open stream to cut after ${events.length} events`);
        }
        const streams = proxy.log.filter((r) => r.stream);
        assert.equal(streams.length, 3, `one stream and two resumptions: ${JSON.stringify(proxy.log)}`);
        for (const [i, r] of streams.entries()) {
          if (i === 0) {
            assert.equal(r.lastEventId, undefined);
            continue;
          }
          assert.notEqual(r.target, streams[i - 1]?.target, 'each resumption went to the other instance');
          assert.match(r.lastEventId ?? '', /^\d+$/, 'resumed with Last-Event-ID');
          assert.ok(Number(r.lastEventId) >= (cutAt[i - 1] as number), `Last-Event-ID ${r.lastEventId} after ${cutAt[i - 1]} events`);
        }
        assert.deepEqual(streams.map((r) => r.cut === true), [true, true, false], 'two streams cut, the last one ended by the server');

        const first = events[0];
        assert.ok(first && 'task' in first, 'the Task snapshot first');
        const taskId = first.task.id;
        const log = await fullLog(b.rest, taskId);
        assert.equal(stateOf(log.at(-1)), 'TASK_STATE_COMPLETED');
        assert.deepEqual(events, log.map((e) => e.event), 'exactly the task log: no gap, no duplicate, in order');
        const task = await eventually(async () => ok(await a.jsonRpc.call('getTask', { id: taskId })), 'the task on A');
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      } finally {
        await proxy.close();
      }
    }),
  );
}
