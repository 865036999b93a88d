/** SendStreamingMessage and SubscribeToTask (STREAM, SUB, R7). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STREAM_CHUNKS } from '../../../src/cli/agents/demo.js';
import type { StreamEvent, Json } from '../../support/bindings.js';
import { expectError, ok, okStream, send, textOf, trace, uid } from '../../support/assertions.js';
import type { ScenarioEnv } from './env.js';

const ids = (events: StreamEvent[]) => events.map((e) => Number(e.id));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

function stateOf(e: Json): string | undefined {
  return e?.task?.status.state ?? e?.statusUpdate?.status.state;
}

export function streamScenarios(env: ScenarioEnv): void {
  describe('Streaming', () => {
    test('STREAM-03 STREAM-10 SendStreamingMessage: task, WORKING, 10 chunks, COMPLETED, then the end; R7 ids 1..n', async () => {
      const events = okStream(await env.b.stream('sendStreamingMessage', send('stream a story')));
      assert.deepEqual(trace(events), [
        'task:SUBMITTED',
        'status:WORKING',
        'artifact',
        ...Array(STREAM_CHUNKS - 2).fill('artifact+'),
        'artifact+!',
        'status:COMPLETED',
      ]);
      const task = events[0]?.event.task;
      const chunks = events.flatMap((e) => (e.event.artifactUpdate ? [e.event.artifactUpdate] : []));
      assert.equal(new Set(chunks.map((c) => c.artifact.artifactId)).size, 1);
      chunks.forEach((c, i) => assert.equal(textOf(c.artifact.parts), `chunk ${i + 1}/${STREAM_CHUNKS}: a story\n`));
      for (const e of events.slice(1)) {
        const u = e.event.statusUpdate ?? e.event.artifactUpdate;
        assert.equal(u.taskId, task.id, 'STREAM-09');
        assert.equal(u.contextId, task.contextId, 'STREAM-09');
      }
      assert.deepEqual(ids(events), range(1, events.length), 'R7: every event has id: 1..n');
      const stored = ok(await env.b.call('getTask', { id: task.id }));
      assert.equal(stored.artifacts.length, 1);
      assert.equal(stored.artifacts[0].parts.length, STREAM_CHUNKS);
    });

    test('STREAM-02 a message-only stream carries exactly one message event', async () => {
      const events = okStream(await env.b.stream('sendStreamingMessage', send('msg streamed hello')));
      assert.equal(events.length, 1);
      assert.deepEqual(Object.keys(events[0]?.event), ['message']);
      assert.equal(events[0]?.event.message.role, 'ROLE_AGENT');
      assert.equal(textOf(events[0]?.event.message.parts), 'streamed hello');
    });

    test('STREAM-04 a streamed follow-up to an INPUT_REQUIRED task starts with the task and ends COMPLETED', async () => {
      const asked = ok(await env.b.call('sendMessage', send('ask your colour'))).task;
      const events = okStream(await env.b.stream('sendStreamingMessage', send('blue', { taskId: asked.id })));
      assert.equal(events[0]?.event.task?.id, asked.id);
      assert.equal(stateOf(events[events.length - 1]?.event), 'TASK_STATE_COMPLETED', trace(events).join(' '));
    });

    test('STREAM-04 an agent crash mid-stream ends the stream with FAILED', async () => {
      const events = okStream(await env.b.stream('sendStreamingMessage', send('crash please')));
      assert.deepEqual(trace(events), ['task:SUBMITTED', 'status:WORKING', 'status:FAILED']);
    });

    test('HIST-05 MSG-08 configuration.historyLength also shapes the task events of a stream', async () => {
      const none = okStream(await env.b.stream('sendStreamingMessage', send('hi', {}, { historyLength: 0 })));
      assert.equal('history' in (none[0]?.event.task ?? {}), false);
      const asked = ok(await env.b.call('sendMessage', send('ask your pet'))).task;
      const followUp = okStream(await env.b.stream('sendStreamingMessage', send('a cat', { taskId: asked.id }, { historyLength: 0 })));
      assert.equal(followUp[0]?.event.task.id, asked.id);
      assert.equal('history' in (followUp[0]?.event.task ?? {}), false, 'the snapshot of a follow-up stream is shaped too');
    });

    test('SUB-01 SUB-04 R7 SubscribeToTask starts with a snapshot; Last-Event-ID: k replays exactly k+1..n', async () => {
      const { id } = ok(await env.b.call('sendMessage', send('slow resumable', {}, { returnImmediately: true }))).task;
      const full = env.b.stream('subscribeToTask', { id });
      const cut = await env.b.stream('subscribeToTask', { id }, { maxEvents: 4 });
      assert.ok(cut.ok && cut.cut && cut.events.length === 4, 'the first stream is cut after 4 events');
      assert.ok(cut.events[0]?.event.task, 'SUB-01: the first event is a Task snapshot');
      assert.equal(cut.events[0]?.event.task.id, id);
      const k = Number(cut.events[3]?.id);
      const resumed = okStream(await env.b.stream('subscribeToTask', { id }, { headers: { 'Last-Event-ID': String(k) } }));
      assert.deepEqual(ids(resumed), range(k + 1, resumed.length), 'no gap, no duplicate after k');
      assert.equal(stateOf(resumed[resumed.length - 1]?.event), 'TASK_STATE_COMPLETED');

      const all = okStream(await full);
      const snapshot = all[0]?.event.task;
      assert.ok(snapshot, 'SUB-01: a Task first');
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(snapshot.status.state));
      assert.deepEqual(ids(all), range(Number(all[0]?.id), all.length), 'increasing, consecutive ids');
      assert.equal(trace(all).at(-1), 'status:COMPLETED', 'SUB-04: ends at the terminal state');
      const byId = new Map(all.slice(1).map((e) => [e.id, e.event]));
      for (const e of resumed) if (byId.has(e.id)) assert.deepEqual(e.event, byId.get(e.id), `event ${e.id} replayed identically`);
      assert.equal(Number(resumed.at(-1)?.id), Number(all.at(-1)?.id));

      // After the task finished, the same Last-Event-ID still replays the missed tail.
      const late = okStream(await env.b.stream('subscribeToTask', { id }, { headers: { 'Last-Event-ID': String(k) } }));
      assert.deepEqual(late, resumed);
    });

    test('R7 Last-Event-ID at the last event of a finished task ends the stream at once, empty', async () => {
      const events = okStream(await env.b.stream('sendStreamingMessage', send('hi')));
      const id = events[0]?.event.task.id as string;
      const last = events.at(-1)?.id as string;
      const res = await env.b.stream('subscribeToTask', { id }, { headers: { 'Last-Event-ID': last }, timeoutMs: 1000, allowTimeout: true });
      assert.ok(res.ok && !res.timedOut, 'the stream must end, not hang');
      assert.deepEqual(res.events, []);
    });

    test('R7 a Last-Event-ID beyond the log still delivers the next events and ends with the task', async () => {
      const { id } = ok(await env.b.call('sendMessage', send('slow beyond', {}, { returnImmediately: true }))).task;
      const res = await env.b.stream('subscribeToTask', { id }, { headers: { 'Last-Event-ID': '999' }, timeoutMs: 5000, allowTimeout: true });
      assert.ok(res.ok && !res.timedOut, 'the stream must end with the task, not hang');
      assert.equal(trace(res.events).at(-1), 'status:COMPLETED');
    });

    test('R7 A2 C12 Last-Event-ID on an INPUT_REQUIRED task (beyond the log too) ends once caught up, without waiting for input', async () => {
      const asked = ok(await env.b.call('sendMessage', send('ask anything'))).task;
      const res = await env.b.stream('subscribeToTask', { id: asked.id }, { headers: { 'Last-Event-ID': '999' }, timeoutMs: 2000, allowTimeout: true });
      assert.ok(res.ok && !res.timedOut, 'the stream must end: only a new message moves the task on');
      assert.deepEqual(res.events, []);
    });

    test('C12 A2 STREAM-04 SubscribeToTask on an INPUT_REQUIRED task: its snapshot, then the stream ends', async () => {
      const asked = ok(await env.b.call('sendMessage', send('ask anything'))).task;
      assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
      const res = await env.b.stream('subscribeToTask', { id: asked.id }, { timeoutMs: 2000, allowTimeout: true });
      assert.ok(res.ok && !res.timedOut, 'the stream must end after the snapshot, not wait for input that only a new message brings');
      assert.deepEqual(trace(res.events), ['task:INPUT_REQUIRED']);
      // The task still takes its answer, and a stream opened by that answer runs to the end.
      const answered = okStream(await env.b.stream('sendStreamingMessage', send('done', { taskId: asked.id })));
      assert.equal(trace(answered).at(-1), 'status:COMPLETED');
    });

    test('SUB-02 LIFE-04 SubscribeToTask on a terminal task is UNSUPPORTED_OPERATION (a plain error, not SSE)', async () => {
      const task = ok(await env.b.call('sendMessage', send('hi'))).task;
      const res = await env.b.stream('subscribeToTask', { id: task.id });
      expectError(res, 'UNSUPPORTED_OPERATION', { metadata: { taskId: task.id } });
      assert.ok(!res.contentType.startsWith('text/event-stream'));
    });

    test('SUB-03 SubscribeToTask on an unknown task is TASK_NOT_FOUND', async () => {
      expectError(await env.b.stream('subscribeToTask', { id: uid('ghost') }), 'TASK_NOT_FOUND');
    });

    test('STREAM-12 SendStreamingMessage to an unknown task is TASK_NOT_FOUND before any event', async () => {
      const res = await env.b.stream('sendStreamingMessage', send('hi', { taskId: uid('ghost') }));
      expectError(res, 'TASK_NOT_FOUND');
      assert.ok(!res.contentType.startsWith('text/event-stream'));
    });
  });
}
