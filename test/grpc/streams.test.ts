/**
 * gRPC server streams (GRPC-04, STREAM-06, R7, R8, R24): a client that cancels, an AbortSignal
 * and a deadline all stop the stream and free its event-bus subscription while the task keeps
 * running; `last-event-id` resumes a stream exactly after the event it names; shutting the
 * server down ends open streams with UNAVAILABLE so clients resubscribe elsewhere.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromBinary, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { status as grpcStatus } from '@grpc/grpc-js';
import { createGrpcClient, grpcTransport, type GrpcClient } from '../../src/bindings/grpc/client.js';
import { FIRST_EVENT_ID_KEY } from '../../src/bindings/grpc/codec.js';
import { A2AClientError } from '../../src/client/errors.js';
import type { StreamItem } from '../../src/client/transport.js';
import { SendMessageRequestSchema, StreamResponseSchema, SubscribeToTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import type { Message, Task } from '../../src/protocol/types.js';
import { eventually, sleep, uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';
import { rawCall } from './wire.js';

function send(text: string, configuration?: object) {
  return { message: { messageId: uid('m'), role: 'ROLE_USER' as const, parts: [{ text }] }, ...(configuration ? { configuration } : {}) };
}

function taskOf(result: { task: Task } | { message: Message }): Task {
  assert.ok('task' in result);
  return result.task;
}

describe('gRPC streams: cancellation, deadlines, resumption, shutdown', () => {
  let server: GrpcTestServer;
  let client: GrpcClient;
  before(async () => {
    server = await startGrpcServer({ demo: { slowMs: 1500, tickMs: 50, streamDelayMs: 40 } });
    client = createGrpcClient(server.address);
  });
  after(async () => {
    client.close();
    await server.close();
  });

  const slowTask = async (): Promise<string> => taskOf(await client.sendMessage(send('slow work', { returnImmediately: true }))).id;
  const completes = (id: string) =>
    eventually(async () => ((await client.getTask({ id })).status.state === 'TASK_STATE_COMPLETED' ? true : undefined), `task ${id} to complete`);
  /** Freed within 500 ms, while the task is still running (so not because it ended). */
  const unsubscribed = async (taskId: string) => {
    await eventually(async () => (server.bus.size === 0 && server.running.openStreams === 0 ? true : undefined), 'subscriptions to be freed', 500);
    assert.equal((await client.getTask({ id: taskId })).status.state, 'TASK_STATE_WORKING', 'the task is still running');
  };

  test('R8 STREAM-06 a consumer that stops reading cancels the call: the subscription is freed, the task completes', async () => {
    const id = await slowTask();
    let seen = 0;
    for await (const _event of client.subscribeToTask({ id })) {
      if (++seen === 2) break;
    }
    await unsubscribed(id);
    await completes(id);
  });

  test('an AbortSignal cancels the stream (ABORTED), frees it, and the task completes', async () => {
    const id = await slowTask();
    const controller = new AbortController();
    const events: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of client.subscribeToTask({ id }, { signal: controller.signal })) {
          events.push(event);
          if (events.length === 2) controller.abort();
        }
      })(),
      (e: unknown) => A2AClientError.is(e, 'ABORTED'),
    );
    await unsubscribed(id);
    await completes(id);
  });

  test('a deadline ends the stream with DEADLINE_EXCEEDED, frees it, and the task completes', async () => {
    const id = await slowTask();
    const out = await rawCall(server.address, 'SubscribeToTask', { body: toBinary(SubscribeToTaskRequestSchema, fromJson(SubscribeToTaskRequestSchema, { id })), stream: true, deadlineMs: 200 });
    assert.equal(out.code, grpcStatus.DEADLINE_EXCEEDED);
    assert.ok(out.messages.length >= 1, 'the snapshot arrived before the deadline');
    await unsubscribed(id);
    await completes(id);
  });

  test('cancelling a SendStreamingMessage mid-stream does not stop the task (STREAM-06)', async () => {
    const stream = client.sendStreamingMessage(send('stream story'));
    let taskId = '';
    for await (const event of stream) {
      if ('task' in event) taskId = event.task.id;
      if ('artifactUpdate' in event) break;
    }
    await eventually(async () => (server.bus.size === 0 && server.running.openStreams === 0 ? true : undefined), 'subscriptions to be freed', 300);
    assert.notEqual((await client.getTask({ id: taskId })).status.state, 'TASK_STATE_COMPLETED', 'freed before the task ended');
    const done = await eventually(async () => {
      const t = await client.getTask({ id: taskId });
      return t.status.state === 'TASK_STATE_COMPLETED' ? t : undefined;
    }, 'the streamed task to complete');
    assert.equal(done.artifacts?.[0]?.parts.length, 10);
  });

  test("the call's signal is aborted when the client cancels an open stream, not after a stream that completed", async () => {
    const signals: AbortSignal[] = [];
    const original = server.handler.stream.bind(server.handler);
    server.handler.stream = (op, params, ctx) => {
      if (ctx.signal) signals.push(ctx.signal);
      return original(op, params, ctx);
    };
    try {
      let events = 0;
      for await (const _event of client.sendStreamingMessage(send('stream x'))) events++;
      assert.equal(events, 13);
      assert.equal(signals.length, 1);
      await sleep(50);
      assert.equal(signals[0]?.aborted, false, 'a completed stream leaves its signal alone');

      for await (const _event of client.sendStreamingMessage(send('stream story'))) break;
      assert.equal(signals.length, 2);
      await eventually(async () => (signals[1]?.aborted ? true : undefined), 'the cancelled stream to abort its signal', 500);
    } finally {
      server.handler.stream = original;
    }
  });

  test('R8 200 streams opened and cancelled at once leave no subscription behind', async () => {
    const id = await slowTask();
    const controllers = Array.from({ length: 200 }, () => new AbortController());
    const runs = controllers.map(async (c) => {
      try {
        for await (const _event of client.subscribeToTask({ id }, { signal: c.signal })) c.abort();
      } catch (e) {
        if (!A2AClientError.is(e, 'ABORTED')) throw e;
      }
    });
    await Promise.all(runs);
    await unsubscribed(id);
    await completes(id);
  });

  test('R7 events carry ids first..n (a2a-kit-first-event-id); last-event-id k replays exactly k+1..n', async () => {
    const id = await slowTask();
    const transport = grpcTransport().create({ url: server.address, protocolBinding: 'GRPC', protocolVersion: '1.0' }, { fetch });
    const call = (headers: Record<string, string>) => ({
      op: 'subscribeToTask' as const,
      request: { id },
      headers: new Headers({ 'a2a-version': '1.0', ...headers }),
      query: new URLSearchParams(),
      signal: new AbortController().signal,
    });
    const cut: StreamItem[] = [];
    for await (const item of await transport.stream(call({}))) {
      cut.push(item);
      if (cut.length === 4) break;
    }
    assert.ok('task' in (cut[0]?.event ?? {}), 'a snapshot first');
    const ids = cut.map((i) => Number(i.id));
    assert.deepEqual(ids, [ids[0], (ids[0] ?? 0) + 1, (ids[0] ?? 0) + 2, (ids[0] ?? 0) + 3]);
    const k = ids[3] as number;
    const resumed: StreamItem[] = [];
    for await (const item of await transport.stream(call({ 'last-event-id': String(k) }))) resumed.push(item);
    assert.equal(Number(resumed[0]?.id), k + 1, 'no gap, no duplicate');
    resumed.forEach((item, i) => assert.equal(Number(item.id), k + 1 + i));
    const last = resumed.at(-1)?.event;
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
    // Raw: the id of the first event is response metadata, sent with that event.
    const raw = await rawCall(server.address, 'SubscribeToTask', { body: toBinary(SubscribeToTaskRequestSchema, fromJson(SubscribeToTaskRequestSchema, { id })), stream: true, metadata: { 'a2a-version': '1.0', 'last-event-id': String(k) } });
    assert.equal(raw.code, grpcStatus.OK);
    assert.equal(raw.headers?.get(FIRST_EVENT_ID_KEY)[0], String(k + 1));
    assert.equal(raw.messages.length, resumed.length);
  });

  test('a message-only stream has no event ids; its events decode as StreamResponse', async () => {
    const body = toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, send('msg plain') as unknown as JsonValue));
    const raw = await rawCall(server.address, 'SendStreamingMessage', { body, stream: true });
    assert.equal(raw.code, grpcStatus.OK);
    assert.equal(raw.headers?.get(FIRST_EVENT_ID_KEY).length, 0);
    assert.equal(raw.headers?.get('a2a-version')[0], '1.0');
    assert.equal(fromBinary(StreamResponseSchema, raw.messages[0] as Buffer).payload.case, 'message');
  });
});

describe('gRPC shutdown (R24)', () => {
  test('close() ends open streams with UNAVAILABLE at once and frees them; the client sees NETWORK', async () => {
    const server = await startGrpcServer({ demo: { slowMs: 5000, tickMs: 100 } });
    const client = createGrpcClient(server.address);
    try {
      const id = taskOf(await client.sendMessage(send('slow long', { returnImmediately: true }))).id;
      const events: unknown[] = [];
      const reading = (async () => {
        for await (const event of client.subscribeToTask({ id })) events.push(event);
      })();
      await eventually(async () => (events.length > 0 ? true : undefined), 'the first event');
      const started = Date.now();
      const closing = server.close();
      await assert.rejects(reading, (e: unknown) => A2AClientError.is(e, 'NETWORK') && /shutting down/.test(e.message));
      assert.ok(Date.now() - started < 1000, 'streams end promptly');
      await closing;
      assert.equal(server.bus.size, 0);
      await sleep(10);
    } finally {
      client.close();
      await server.close();
    }
  });
});
