/**
 * R7 and the event log's retention (MemoryTaskStore maxEventsPerTask): a stream resumed with
 * Last-Event-ID after events the log no longer holds starts with the current Task snapshot
 * (numbered with the seq it reflects) instead of silently skipping them, on JSON-RPC, REST and
 * gRPC alike; the client SDK takes that snapshot as its new base and assembles the whole
 * artifact. And a resume of a task waiting for the client (INPUT_REQUIRED) ends once caught up
 * (decisions A2, C12) instead of staying open with keep-alives.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type StreamResponse, type Task } from '../../src/client/index.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { deferred, ok, okStream, send, textOf } from '../support/assertions.js';
import { BINDINGS, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';

const CHUNKS = Array.from({ length: 20 }, (_, i) => `c${i + 1} `);

describe('R7 resuming past the retained event log (maxEventsPerTask: 5)', () => {
  let server: TestServer;
  /** Released when the test has read the first events: the agent then writes the rest. */
  let go = deferred();
  /** Resolved once the agent wrote COMPLETED (seq 23: task 1, WORKING 2, chunks 3..22). */
  let done = deferred();
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      if (ctx.text === 'ask') {
        await task.requireInput('your name?');
        return;
      }
      await task.startWork();
      const artifactId = await task.addArtifact(CHUNKS[0] as string);
      await go.promise;
      for (const text of CHUNKS.slice(1)) await task.addArtifact(text, { artifactId, append: true });
      await task.complete();
      done.resolve();
    },
  };
  const bindings: TestBinding[] = [];
  before(async () => {
    server = await startServer({ executor: agent, handler: { store: new MemoryTaskStore({ maxEventsPerTask: 5 }) } });
    for (const f of BINDINGS) bindings.push(f.create(server));
  });
  after(() => server.close());

  /** A finished task whose events 1..18 are gone from the log. */
  async function finishedTask(binding: TestBinding): Promise<string> {
    go = deferred();
    done = deferred();
    const first = await binding.stream('sendStreamingMessage', send('write'), { maxEvents: 3 });
    assert.ok(first.ok && first.cut, 'the first stream was cut');
    const head = first.events;
    assert.deepEqual(head.map((e) => e.id), ['1', '2', '3']);
    go.resolve();
    await done.promise;
    return head[0]?.event.task.id;
  }

  for (const name of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    test(`R7 (${name}): Last-Event-ID 3 after events 4..18 were trimmed → the COMPLETED snapshot (id 23) with the whole artifact, then the end`, async () => {
      const binding = bindings.find((b) => b.name === name) as TestBinding;
      const taskId = await finishedTask(binding);
      const resumed = okStream(await binding.stream('subscribeToTask', { id: taskId }, { headers: { 'last-event-id': '3' } }));
      assert.deepEqual(resumed.map((e) => e.id), ['23'], 'one snapshot, numbered with the seq it reflects');
      const task = resumed[0]?.event.task as Task;
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(textOf(task.artifacts?.[0]?.parts), CHUNKS.join(''));
      // Within the retained log, a resume still replays exactly what followed.
      const tail = okStream(await binding.stream('subscribeToTask', { id: taskId }, { headers: { 'last-event-id': '20' } }));
      assert.deepEqual(tail.map((e) => e.id), ['21', '22', '23']);
    });
  }

  test('R7 client SDK: a stream dropped at id 3 and resumed past the retained log assembles the whole artifact', async () => {
    go = deferred();
    done = deferred();
    let cut = false;
    /** Cuts the first event stream after its third event; holds the resubscription until the task is done. */
    const cutting = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const method = (JSON.parse(String(init?.body ?? '{}')) as { method?: string }).method;
      if (method === 'SubscribeToTask') await done.promise;
      const res = await fetch(input, init);
      if (method !== 'SendStreamingMessage' || cut || !res.body) return res;
      cut = true;
      const reader = res.body.getReader();
      let text = '';
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (/^id: 3$/m.test(text) && text.endsWith('\n\n')) {
            await reader.cancel();
            go.resolve();
            controller.error(new TypeError('connection reset'));
            return;
          }
          const { value, done: ended } = await reader.read();
          if (ended) return controller.close();
          text += new TextDecoder().decode(value);
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const card = { ...server.card, supportedInterfaces: server.card.supportedInterfaces.filter((i) => i.protocolBinding === 'JSONRPC') };
    const client = await createClient(card, { fetch: cutting, resume: { delayMs: 1, retries: 2 } });
    const events: StreamResponse[] = [];
    for await (const event of client.streamText('write')) events.push(event);
    assert.ok(cut, 'the first stream was cut');
    const last = events.at(-1) as { task: Task };
    assert.ok('task' in last, 'the resumed stream opened with the snapshot');
    assert.equal(last.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(last.task.artifacts?.[0]?.parts), CHUNKS.join(''));
  });

  for (const name of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    test(`R7 A2 C12 (${name}): Last-Event-ID on an INPUT_REQUIRED task ends once caught up, whatever the id`, async () => {
      const binding = bindings.find((b) => b.name === name) as TestBinding;
      const task = ok(await binding.call('sendMessage', send('ask'))).task as Task;
      assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
      for (const [lastEventId, ids] of [['0', ['1', '2']], ['2', []], ['3', []]] as const) {
        const res = okStream(await binding.stream('subscribeToTask', { id: task.id }, { headers: { 'last-event-id': lastEventId }, timeoutMs: 3_000 }));
        assert.deepEqual(res.map((e) => e.id), ids, `Last-Event-ID: ${lastEventId}`);
      }
    });
  }
});
