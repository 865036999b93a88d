/**
 * The push-based task stream and SSE body (R9) without sockets or timers: ordering and gap
 * filling (STREAM-05), the end after a final state (STREAM-04), backpressure and the slow
 * consumer cut-off (R10), release of the bus subscription when the consumer goes (R8), pulling
 * consumers (gRPC, fetch bodies) ending on their call's signal, and the shared heartbeat clock.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { heartbeatClock } from '../../src/server/http/heartbeat.js';
import { sseBody } from '../../src/server/http/sse.js';
import type { StreamSink } from '../../src/server/pushStream.js';
import type { StoredEvent, TaskRecord, TaskStore } from '../../src/server/stores/taskStore.js';
import { readTaskStream, type StreamItem } from '../../src/server/taskStream.js';
import type { Task, TaskState } from '../../src/protocol/types.js';

const TASK = 't1';

function task(state: TaskState): Task {
  return { id: TASK, contextId: 'c', status: { state } };
}

function status(seq: number, state: TaskState = 'TASK_STATE_WORKING'): StoredEvent {
  return { seq, event: { statusUpdate: { taskId: TASK, contextId: 'c', status: { state } } } };
}

/** The two reads a task stream makes, over an in-memory log. */
class FakeStore {
  log: StoredEvent[] = [];
  state: TaskState = 'TASK_STATE_WORKING';
  reads = 0;

  async get(_tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    if (taskId !== TASK) return undefined;
    return { tenant: '', owner: '', task: task(this.state), version: 1, seq: this.log.at(-1)?.seq ?? 0 };
  }

  async events(_tenant: string, _taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    this.reads++;
    return this.log.filter((e) => e.seq > afterSeq);
  }
}

/** Records what a stream delivers; `room` decides what push() answers. */
class RecordingSink<T> implements StreamSink<T> {
  items: T[] = [];
  ended = false;
  failure: unknown;
  room = true;

  push(item: T): boolean {
    this.items.push(item);
    return this.room;
  }

  end(): void {
    this.ended = true;
  }

  fail(error: unknown): void {
    this.failure = error;
  }
}

/** Lets pending store reads (promises) settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

function seqs(sink: RecordingSink<StreamItem>): Array<number | undefined> {
  return sink.items.map((i) => i.seq);
}

function setup(options: { maxBuffered?: number; start?: 'snapshot' | number } = {}) {
  const store = new FakeStore();
  const bus = new LocalEventBus();
  const publish = (...events: StoredEvent[]): void => {
    store.log.push(...events);
    bus.publish('', TASK, events);
  };
  const open = () =>
    readTaskStream({
      store: store as unknown as TaskStore,
      bus,
      tenant: '',
      taskId: TASK,
      start: options.start ?? 'snapshot',
      ...(options.maxBuffered ? { maxBuffered: options.maxBuffered } : {}),
    });
  return { store, bus, publish, open };
}

describe('task stream (push)', () => {
  test('snapshot first, then the events in order without duplicates, and the end after a terminal state', async () => {
    const { store, bus, publish, open } = setup();
    store.log.push(status(1), status(2));
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    assert.equal(bus.size, 1, 'subscribed before reading the store');
    await settle();
    assert.deepEqual(seqs(sink), [2]);
    assert.ok('task' in (sink.items[0] as StreamItem).event);
    publish(status(3));
    // A redelivery (another instance's announcement) is dropped.
    bus.publish('', TASK, [status(2), status(3)]);
    publish(status(4, 'TASK_STATE_COMPLETED'));
    assert.deepEqual(seqs(sink), [2, 3, 4]);
    assert.equal(sink.ended, true);
    assert.equal(bus.size, 0, 'the subscription is released at the end');
  });

  test('a gap in what the bus delivers is filled from the log', async () => {
    const { store, bus, open } = setup();
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    store.log.push(status(1), status(2), status(3));
    bus.publish('', TASK, [status(3)]);
    await settle();
    assert.deepEqual(seqs(sink), [0, 1, 2, 3]);
  });

  test('Last-Event-ID: replays what followed; a terminal task ends after its last event', async () => {
    const { store, open } = setup({ start: 1 });
    store.log.push(status(1), status(2), status(3, 'TASK_STATE_FAILED'));
    store.state = 'TASK_STATE_FAILED';
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    assert.deepEqual(seqs(sink), [2, 3]);
    assert.equal(sink.ended, true);
  });

  test('Last-Event-ID at the end of a terminal task: the stream ends at once, empty', async () => {
    const { store, bus, open } = setup({ start: 3 });
    store.log.push(status(1), status(2), status(3, 'TASK_STATE_FAILED'));
    store.state = 'TASK_STATE_FAILED';
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    assert.deepEqual(sink.items, []);
    assert.equal(sink.ended, true);
    assert.equal(bus.size, 0);
  });

  test('R7 Last-Event-ID on an interrupted task (A2, C12): ends once caught up instead of waiting for a follow-up', async () => {
    for (const [lastEventId, expected] of [[0, [1, 2]], [2, []], [3, []]] as const) {
      const { store, bus, open } = setup({ start: lastEventId });
      store.log.push(status(1), status(2, 'TASK_STATE_INPUT_REQUIRED'));
      store.state = 'TASK_STATE_INPUT_REQUIRED';
      const sink = new RecordingSink<StreamItem>();
      open().pipe(sink);
      await settle();
      assert.deepEqual(seqs(sink), expected, `Last-Event-ID: ${lastEventId}`);
      assert.equal(sink.ended, true, `Last-Event-ID: ${lastEventId} ends`);
      assert.equal(bus.size, 0);
    }
  });

  test('R7 Last-Event-ID on an interrupted task that moves on meanwhile: the stream follows it to its next final state', async () => {
    const { store, publish, open } = setup({ start: 2 });
    store.log.push(status(1), status(2, 'TASK_STATE_INPUT_REQUIRED'));
    store.state = 'TASK_STATE_INPUT_REQUIRED';
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    // A follow-up's events arrive while the stream reads the store.
    publish(status(3), status(4));
    await settle();
    assert.deepEqual(seqs(sink), [3, 4]);
    assert.equal(sink.ended, false, 'the task is working again');
    publish(status(5, 'TASK_STATE_COMPLETED'));
    assert.equal(sink.ended, true);
  });

  test('R7 Last-Event-ID before the retained log: the stream starts with the snapshot (its seq), not after a silent gap', async () => {
    const { store, publish, open } = setup({ start: 3 });
    // Events 1..12 trimmed away (retention).
    for (let seq = 13; seq <= 15; seq++) store.log.push(status(seq));
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    assert.deepEqual(seqs(sink), [15]);
    assert.ok('task' in (sink.items[0] as StreamItem).event, "a Task snapshot, the consumer's new base");
    publish(status(16), status(17, 'TASK_STATE_COMPLETED'));
    assert.deepEqual(seqs(sink), [15, 16, 17]);
    assert.equal(sink.ended, true);
  });

  test('R7 Last-Event-ID before the retained log of a terminal task: its snapshot, then the end', async () => {
    const { store, open } = setup({ start: 3 });
    store.log.push(status(22), status(23, 'TASK_STATE_COMPLETED'));
    store.state = 'TASK_STATE_COMPLETED';
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    assert.deepEqual(seqs(sink), [23]);
    assert.equal(((sink.items[0] as StreamItem).event as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(sink.ended, true);
  });

  test('R7 a gap the log no longer holds (retention) is bridged by the current snapshot, not skipped', async () => {
    const { store, bus, open } = setup();
    const sink = new RecordingSink<StreamItem>();
    open().pipe(sink);
    await settle();
    // Events 1..5 were never announced here and are trimmed; 6 and 7 arrive.
    store.log.push(status(6), status(7));
    bus.publish('', TASK, [status(7)]);
    await settle();
    assert.deepEqual(seqs(sink), [0, 7]);
    assert.ok('task' in (sink.items[1] as StreamItem).event);
    assert.equal(sink.ended, false);
  });

  test('backpressure: nothing is pushed to a full consumer until it resumes', async () => {
    const { publish, open } = setup();
    const sink = new RecordingSink<StreamItem>();
    const stream = open();
    stream.pipe(sink);
    await settle();
    sink.room = false;
    publish(status(1), status(2));
    assert.deepEqual(seqs(sink), [0, 1], 'one push answered false, then the stream waits');
    publish(status(3));
    assert.deepEqual(seqs(sink), [0, 1]);
    sink.room = true;
    stream.resume();
    assert.deepEqual(seqs(sink), [0, 1, 2, 3]);
  });

  test('R10: a consumer more than maxBuffered events behind gets "too slow" and loses its subscription', async () => {
    const { bus, publish, open } = setup({ maxBuffered: 3 });
    const sink = new RecordingSink<StreamItem>();
    const stream = open();
    stream.pipe(sink);
    await settle();
    sink.room = false;
    publish(status(1));
    publish(status(2), status(3), status(4), status(5));
    assert.equal(bus.size, 0, 'no more buffering for it');
    assert.equal(sink.failure, undefined, 'the error waits for the consumer');
    stream.resume();
    assert.match(String((sink.failure as Error | undefined)?.message), /too slow/);
    assert.deepEqual(seqs(sink), [0, 1]);
  });

  test('close() releases the subscription silently; later events are not delivered', async () => {
    const { bus, publish, open } = setup();
    const sink = new RecordingSink<StreamItem>();
    const stream = open();
    stream.pipe(sink);
    await settle();
    stream.close();
    assert.equal(bus.size, 0);
    publish(status(1));
    assert.deepEqual(seqs(sink), [0]);
    assert.equal(sink.ended, false);
  });

  test('closed while reading the store: nothing is delivered and nothing stays subscribed', async () => {
    const { bus, open } = setup();
    const sink = new RecordingSink<StreamItem>();
    const stream = open();
    stream.pipe(sink);
    stream.close();
    await settle();
    assert.equal(bus.size, 0);
    assert.deepEqual(sink.items, []);
  });

  test('a pulling consumer (iterator) gets the same items and its signal ends a pending next()', async () => {
    const { bus, publish, open } = setup();
    const controller = new AbortController();
    const iterator = open().abortWhen({ signal: controller.signal })[Symbol.asyncIterator]();
    assert.equal((await iterator.next()).value?.seq, 0);
    publish(status(1));
    assert.equal((await iterator.next()).value?.seq, 1);
    let result: IteratorResult<StreamItem> | undefined;
    void iterator.next().then((r) => (result = r));
    await settle();
    assert.equal(result, undefined, 'waiting for an event');
    controller.abort();
    await settle();
    assert.deepEqual(result, { value: undefined, done: true });
    assert.equal(bus.size, 0);
  });
});

describe('SSE body (push)', () => {
  const format = { data: (item: StreamItem) => JSON.stringify(item.event), error: (e: unknown) => JSON.stringify({ error: String(e) }) };

  test('frames carry id: <seq>; a failure midway becomes an `event: error` frame, then the end', async () => {
    const { publish, open, store } = setup();
    const sink = new RecordingSink<string>();
    sseBody(open(), format, 3_600_000).pipe(sink);
    await settle();
    // R24: the first frame opens with a heartbeat comment (in the same write).
    assert.match(sink.items[0] as string, /^: keep-alive\n\nid: 0\ndata: \{"task":/);
    store.log = [];
    publish(status(1));
    assert.match(sink.items[1] as string, /^id: 1\ndata: \{"statusUpdate":/);
    // A gap whose store read fails.
    store.events = async () => {
      throw new Error('store down');
    };
    publish(status(5));
    await settle();
    assert.equal(sink.items[2], 'event: error\ndata: {"error":"Error: store down"}\n\n');
    assert.equal(sink.ended, true);
    assert.equal(heartbeatClock(3_600_000).size, 0, 'an ended stream leaves the heartbeat clock');
  });

  test('heartbeats: one shared clock; a stream idle for a whole period gets ": keep-alive", a full one does not', async (t) => {
    const period = 3_600_001; // a clock of its own: its interval never fires during the test
    const clock = heartbeatClock(period);
    const { publish, open } = setup();
    const sink = new RecordingSink<string>();
    const body = sseBody(open(), format, period);
    body.pipe(sink);
    t.after(() => body.close());
    await settle();
    assert.equal(clock.size, 1);
    const beats = () => sink.items.filter((f) => f === ': keep-alive\n\n').length;
    for (let i = 0; i < 7; i++) clock.tick();
    assert.equal(beats(), 0, 'not before 7/8 of a period');
    clock.tick();
    assert.equal(beats(), 1, 'R7: at the latest after a period (8 ticks)');
    for (let i = 0; i < 7; i++) clock.tick();
    assert.equal(beats(), 1, 'the next one a period later');
    publish(status(1));
    for (let i = 0; i < 7; i++) clock.tick();
    assert.equal(beats(), 1, 'an event restarts the period');
    sink.room = false;
    clock.tick();
    assert.equal(beats(), 2, 'the push that found the consumer full');
    for (let i = 0; i < 20; i++) clock.tick();
    assert.equal(beats(), 2, 'no heartbeats pile up for a full consumer');
    body.close();
    sink.room = true;
    for (let i = 0; i < 20; i++) clock.tick();
    assert.equal(beats(), 2, 'a closed stream gets no heartbeats');
    assert.equal(clock.size, 0, 'and leaves the clock');
  });

  test('R7 heartbeats (mock timers): the first comes at most heartbeatMs after the last write, then every heartbeatMs', async (t) => {
    const period = 16_000; // a clock of its own, created (with its interval) under the mock timers
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { publish, open } = setup();
    const sink = new RecordingSink<string>();
    const body = sseBody(open(), format, period);
    body.pipe(sink);
    t.after(() => body.close());
    await settle();
    const beats = () => sink.items.filter((f) => f === ': keep-alive\n\n').length;
    // The last write lands between two ticks (a tick is period / 8 = 2 s).
    t.mock.timers.tick(1_500);
    publish(status(1));
    t.mock.timers.tick(period * 0.875 - 1); // 15,499 ms: the tick at 14 s is the 7th
    assert.equal(beats(), 0, 'not before 7/8 of a period of silence');
    t.mock.timers.tick(period * 0.125); // 17,499 ms: the tick at 16 s beat (14.5 s of silence)
    assert.equal(beats(), 1, 'one within heartbeatMs of silence (not 1.125 × heartbeatMs)');
    t.mock.timers.tick(14_500); // 31,999 ms
    assert.equal(beats(), 1);
    t.mock.timers.tick(1); // 32 s
    assert.equal(beats(), 2, 'then every heartbeatMs');
  });
});
