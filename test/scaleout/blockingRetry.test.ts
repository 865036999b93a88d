/**
 * R4 / MSG-01 across real instances (issue 7): two `a2a serve` processes on one PostgreSQL. A
 * blocking SendMessage retry (same messageId) that lands on B while A runs the task used to be
 * answered at once (~90 ms) with the task still WORKING; after A was killed, B answered WORKING
 * at once and its lease sweep failed the task seconds later. B now waits: it answers with the
 * task A completes (the same task, the message once in its history), or with the task its own
 * sweep failed after A's kill -9. (In one process, with B's shutdown and the caller's abort:
 * test/server/blockingRetryElsewhere.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '../../src/protocol/types.js';
import { eventually, ok, send, sleep, textOf } from '../support/assertions.js';
import type { CallResult } from '../support/bindings.js';
import { clusterSuite, type ClusterNode } from './cluster.js';

const suite = await clusterSuite();
const TTL_MS = 1000;

async function stateOn(n: ClusterNode, id: string): Promise<string> {
  return (ok(await n.jsonRpc.call('getTask', { id })) as Task).status.state;
}

/** Whether `call` is still unanswered after `ms`. */
async function stillWaiting(call: Promise<CallResult>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  return (await Promise.race([call, sleep(ms).then(() => pending)])) === pending;
}

test('R4 MSG-01 (two instances): a blocking retry on B of a message A is running answers with the completed task, not WORKING', { timeout: 30_000, ...suite.skip }, () =>
  suite.withCluster({ size: 2, env: { A2A_DEMO_SLOW_MS: '3000', A2A_DEMO_TICK_MS: '500' }, stopGraceMs: 2000 }, async ({ nodes }) => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const request = send('slow x');
    const first = a.jsonRpc.call('sendMessage', request);
    await sleep(1000);
    const retry = b.jsonRpc.call('sendMessage', request);
    assert.ok(await stillWaiting(retry, 1000), 'the retry on B waits for the run on A');
    const retried = (ok(await retry) as { task: Task }).task;
    const original = (ok(await first) as { task: Task }).task;
    assert.equal(retried.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(retried.id, original.id, 'the same task');
    const stored = ok(await a.jsonRpc.call('getTask', { id: original.id })) as Task;
    assert.equal(stored.history?.filter((m) => m.role === 'ROLE_USER').length, 1, 'no second user message in the history');
  }),
);

test(
  'R4 MSG-01 (two instances): A killed mid-run; a blocking retry on B waits for the takeover and answers with the task FAILED',
  { timeout: 30_000, ...suite.skip },
  () =>
    suite.withCluster(
      { size: 2, args: ['--lease-ttl-ms', String(TTL_MS)], env: { A2A_DEMO_SLOW_MS: '20000', A2A_DEMO_TICK_MS: '100' }, stopGraceMs: 2000 },
      async ({ nodes }) => {
        const [a, b] = nodes as [ClusterNode, ClusterNode];
        const request = send('slow owned by A');
        void a.jsonRpc.call('sendMessage', request).catch(() => undefined);
        await eventually(async () => {
          const listed = ok(await b.jsonRpc.call('listTasks', {})) as { tasks: Task[] };
          const task = listed.tasks[0];
          return task && (await stateOn(b, task.id)) === 'TASK_STATE_WORKING' ? true : undefined;
        }, 'the task WORKING on A');
        await a.kill();
        const retry = b.jsonRpc.call('sendMessage', request);
        assert.ok(await stillWaiting(retry, 200), 'the retry on B waits (the task is still WORKING)');
        const retried = (ok(await retry) as { task: Task }).task;
        assert.equal(retried.status.state, 'TASK_STATE_FAILED', 'answered once B took the task over');
        assert.match(textOf(retried.status.message?.parts), /instance/i, 'the takeover reason');
      },
    ),
);
