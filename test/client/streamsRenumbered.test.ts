/**
 * SSE-07 / SUB-01: resuming a stream from a server that numbers the SSE events of each
 * connection from 1 and ignores Last-Event-ID (resumption by Last-Event-ID is no part of A2A).
 * The resubscription opens with a task snapshot numbered below the last id seen: the client
 * must not skip it and what follows as "already seen", but read it as a stream without ids
 * (the snapshot passed on only when it says something new), so no event is lost or repeated.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskAssembler, createClient, type AgentCard, type StreamResponse, type Task } from '../../src/client/index.js';

const ids = { taskId: 't1', contextId: 'c1' };
const chunk = (text: string, append: boolean): StreamResponse => ({ artifactUpdate: { ...ids, artifact: { artifactId: 'a1', parts: [{ text }] }, append } });
const status = (state: Task['status']['state']): StreamResponse => ({ statusUpdate: { ...ids, status: { state } } });
/** A task snapshot; `texts`: the parts of its artifact (the chunks received so far). */
const task = (state: Task['status']['state'], texts: string[] = []): StreamResponse => ({
  task: { id: 't1', contextId: 'c1', status: { state }, ...(texts.length ? { artifacts: [{ artifactId: 'a1', parts: texts.map((text) => ({ text })) }] } : {}) },
});

const FIRST: StreamResponse[] = [task('TASK_STATE_SUBMITTED'), status('TASK_STATE_WORKING'), chunk('one ', false), chunk('two ', true)];

/** A JSON-RPC event stream answering request `id` with `events` numbered 1..n; `drop`: the connection breaks after the last. */
function sse(events: StreamResponse[], { id, drop }: { id: unknown; drop: boolean }): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    // One event per read; the break comes once they were all read (an error discards queued chunks).
    pull(controller) {
      const result = events[i++];
      if (result) controller.enqueue(encoder.encode(`id: ${i}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`));
      else if (drop) controller.error(new Error('connection reset'));
      else controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

const card: AgentCard = {
  name: 'per-connection ids',
  description: 'numbers every stream from 1',
  version: '1',
  capabilities: { streaming: true },
  supportedInterfaces: [{ url: 'http://agent.invalid/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

/** The fake agent: the first stream drops after event 4; each SubscribeToTask answers `resubscribed` and closes. */
async function run(resubscribed: StreamResponse[]): Promise<{ events: StreamResponse[]; lastEventIds: (string | null)[] }> {
  const lastEventIds: (string | null)[] = [];
  const fetch = async (_url: string, init: RequestInit) => {
    const { method, id } = JSON.parse(init.body as string) as { method: string; id: unknown };
    if (method === 'SendStreamingMessage') return sse(FIRST, { id, drop: true });
    assert.equal(method, 'SubscribeToTask');
    lastEventIds.push(new Headers(init.headers).get('last-event-id'));
    return sse(resubscribed, { id, drop: false });
  };
  const client = await createClient(card, { fetch, resume: { delayMs: 1, retries: 2 } });
  const events: StreamResponse[] = [];
  for await (const event of client.streamText('go')) events.push(event);
  return { events, lastEventIds };
}

describe('SSE-07 SUB-01 resuming from a server that numbers each connection from 1', () => {
  test('a snapshot repeating what was seen is dropped; the events after it all arrive, once', async () => {
    const after = [chunk('three', true), status('TASK_STATE_INPUT_REQUIRED')];
    const { events, lastEventIds } = await run([task('TASK_STATE_WORKING', ['one ', 'two ']), ...after]);
    assert.deepEqual(events, [...FIRST, ...after]);
    assert.deepEqual(lastEventIds, ['4'], 'one resubscription');
    const assembler = new TaskAssembler();
    for (const e of events) assembler.apply(e);
    assert.equal(assembler.task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(assembler.task?.artifacts?.[0]?.parts, [{ text: 'one ' }, { text: 'two ' }, { text: 'three' }]);
  });

  test('a snapshot with news (the task moved on meanwhile) is passed on, then the rest', async () => {
    const snapshot = task('TASK_STATE_WORKING', ['one ', 'two ', 'three ']);
    const after = [chunk('four', true), status('TASK_STATE_INPUT_REQUIRED')];
    const { events, lastEventIds } = await run([snapshot, ...after]);
    assert.deepEqual(events, [...FIRST, snapshot, ...after]);
    assert.deepEqual(lastEventIds, ['4']);
  });
});
