/**
 * STREAM-11 / SSE-07: a stream is resumed even when the agent's SSE ids cannot be sent back. An
 * id that is not printable ASCII (`id: ✓`) or is too long is no valid `Last-Event-ID` header
 * value: the client resubscribes without one, as for a stream without ids, instead of failing
 * with a TypeError and never resubscribing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type StreamResponse } from '../../src/client/index.js';
import { cardAt, startFakeAgent, task, type FakeAgent, type FakeRequest } from './fakeAgent.js';

/** The id the first stream's event carries; the agent cuts that stream before the task is done. */
let firstId = '';
let agent: FakeAgent;

before(async () => {
  agent = await startFakeAgent((req: FakeRequest, res) => {
    const { id, method } = JSON.parse(req.body) as { id: number; method: string };
    const event = (result: unknown, sseId?: string) => `${sseId === undefined ? '' : `id: ${sseId}\n`}data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (method === 'SendStreamingMessage') return void res.end(event({ task: task('t1', 'TASK_STATE_WORKING') }, firstId));
    // SubscribeToTask: the snapshot, then the end.
    res.end(
      event({ task: task('t1', 'TASK_STATE_WORKING') }) +
        event({ statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }),
    );
  });
});
after(() => agent?.close());

async function streamWithFirstId(id: string): Promise<{ events: StreamResponse[]; lastEventIds: (string | undefined)[] }> {
  firstId = id;
  const before = agent.requests.length;
  const client = await createClient(cardAt(`${agent.url}/rpc`), { resume: { delayMs: 1 } });
  const events: StreamResponse[] = [];
  for await (const event of client.streamText('hi')) events.push(event);
  const lastEventIds = agent.requests.slice(before + 1).map((r) => r.headers['last-event-id'] as string | undefined);
  return { events, lastEventIds };
}

describe('STREAM-11 resumption with SSE ids that cannot be a Last-Event-ID', () => {
  for (const [name, id] of [
    ['a non-ASCII id (id: ✓)', '✓'],
    ['an id of 2,000 characters', 'x'.repeat(2000)],
  ] as const) {
    test(`${name}: resubscribed without Last-Event-ID, the task completes`, async () => {
      const { events, lastEventIds } = await streamWithFirstId(id);
      assert.deepEqual(lastEventIds, [undefined], 'one resubscription, without the header');
      const states = events.map((e) => ('task' in e ? e.task.status.state : 'statusUpdate' in e ? e.statusUpdate.status.state : '?'));
      // The resubscription's opening snapshot says nothing new: it is not passed on.
      assert.deepEqual(states, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    });
  }

  test('a printable ASCII id is sent back as Last-Event-ID', async () => {
    const { lastEventIds } = await streamWithFirstId('evt-1:a/b');
    assert.deepEqual(lastEventIds, ['evt-1:a/b']);
  });
});
