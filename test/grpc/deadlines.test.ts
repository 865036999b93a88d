/**
 * R8 / R25 with gRPC deadlines: grpc-js's deadline timer can fire before a request's half-close
 * arrives; it then answers DEADLINE_EXCEEDED and still calls the handler afterwards, with a call
 * that never reports 'cancelled' (src/bindings/grpc/deadline.ts). Such a stream must still free
 * its event-bus subscription and its caller's stream slot, and a stream watches its deadline
 * itself, so a missing 'cancelled' can never pin its source.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, type ServerWritableStream } from '@grpc/grpc-js';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { createHealthService } from '../../src/bindings/grpc/healthService.js';
import { StreamCall } from '../../src/bindings/grpc/streamCall.js';
import { SubscribeToTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { ServerHealth } from '../../src/server/serverHealth.js';
import type { StreamItem } from '../../src/server/taskStream.js';
import { eventually, sleep, uid } from '../support/assertions.js';
import { startGrpcServer } from './support.js';

const identity = (b: Buffer): Buffer => b;

/**
 * 300 calls of the server-streaming `path`, 3 at a time, each with a deadline 0–9 ms away: some
 * run out before the request's half-close reaches the server. Resolves when all have ended.
 */
async function raceDeadlines(address: string, path: string, call: { body: Buffer; metadata: Metadata }): Promise<void> {
  const client = new Client(address, credentials.createInsecure());
  const one = () =>
    new Promise<void>((resolve) => {
      const deadline = Date.now() + Math.floor(Math.random() * 10);
      const stream = client.makeServerStreamRequest(path, identity, identity, call.body, call.metadata, { deadline });
      stream.on('data', () => undefined);
      stream.on('error', () => undefined);
      stream.on('status', () => resolve());
    });
  try {
    for (let i = 0; i < 300; i += 3) await Promise.all([one(), one(), one()]);
  } finally {
    client.close();
  }
}

describe('gRPC deadlines that run out around the handler start (R8, R25)', () => {
  test('R8 R25 streams whose deadline passes before the handler starts free their subscription and the caller’s stream slots', async () => {
    const server = await startGrpcServer({ demo: { slowMs: 600_000 }, handler: { abuseLimits: { maxStreamsPerCaller: 3 } } });
    const client = createGrpcClient(server.address);
    try {
      const sent = await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'slow' }] }, configuration: { returnImmediately: true } });
      assert.ok('task' in sent);
      const body = Buffer.from(toBinary(SubscribeToTaskRequestSchema, fromJson(SubscribeToTaskRequestSchema, { id: sent.task.id })));
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      await raceDeadlines(server.address, '/lf.a2a.v1.A2AService/SubscribeToTask', { body, metadata });
      await eventually(async () => (server.bus.size === 0 && server.running.openStreams === 0 ? true : undefined), 'every subscription to be freed', 2000);
      // The caller's three stream slots are free again: a new stream opens.
      for await (const event of client.subscribeToTask({ id: sent.task.id })) {
        assert.ok('task' in event);
        break;
      }
    } finally {
      client.close();
      await server.close();
    }
  });

  test('health Watch streams whose deadline passes before the handler starts give their slot back', async () => {
    const server = await startGrpcServer({ grpc: { health: new ServerHealth(), healthWatches: { perConnection: 3, total: 3 } } });
    try {
      await raceDeadlines(server.address, '/grpc.health.v1.Health/Watch', { body: Buffer.alloc(0), metadata: new Metadata() });
      await eventually(async () => (server.running.openStreams === 0 ? true : undefined), 'every Watch to be freed', 2000);
      // A new Watch gets a slot and its first status (SERVING: field 1 = 1).
      const client = new Client(server.address, credentials.createInsecure());
      try {
        const first = await new Promise<Buffer>((resolve, reject) => {
          const call = client.makeServerStreamRequest('/grpc.health.v1.Health/Watch', identity, identity, Buffer.alloc(0), new Metadata(), {});
          call.on('data', (message: Buffer) => (resolve(message), call.cancel()));
          call.on('error', (error: Error) => reject(error));
        });
        assert.deepEqual([...first], [0x08, 1]);
      } finally {
        client.close();
      }
    } finally {
      await server.close();
    }
  });

  test('health Watch: a call that never reports cancelled (grpc-js answered its deadline before the handler started) gives its slot back at the deadline', async () => {
    // grpc-js's timer can run a little before the deadline by the wall clock (a busy event loop),
    // so the check on entry passes and nothing but the Watch's own deadline ends it (once seen in CI).
    const service = createHealthService(new ServerHealth(), { services: [], watches: { perConnection: 1, total: 1 } });
    const fakeCall = () =>
      Object.assign(new EventEmitter(), {
        cancelled: false,
        request: Buffer.alloc(0),
        getDeadline: () => Date.now() + 50,
        getPeer: () => '127.0.0.1:5000',
        write: () => true,
        end: () => undefined,
      });
    const watch = service.implementation.watch as (call: ServerWritableStream<Buffer, Buffer>) => void;
    const call = fakeCall();
    const endedWith: Array<{ code: number }> = [];
    call.on('error', (status: { code: number }) => endedWith.push(status));
    watch(call as unknown as ServerWritableStream<Buffer, Buffer>);
    assert.equal(service.openStreams, 1);
    await eventually(async () => (service.openStreams === 0 ? true : undefined), 'the Watch to end at its deadline', 1000);
    assert.deepEqual(endedWith.map((s) => s.code), [4], 'ended DEADLINE_EXCEEDED');
    // Its slot is free: the only one there is (total: 1) goes to the next Watch.
    const next = fakeCall();
    const refused: unknown[] = [];
    next.on('error', (status: unknown) => refused.push(status));
    watch(next as unknown as ServerWritableStream<Buffer, Buffer>);
    assert.deepEqual(refused, []);
    assert.equal(service.openStreams, 1);
    next.emit('cancelled');
    assert.equal(service.openStreams, 0);
  });

  test('R8 a stream whose call never reports cancelled nor drains is ended and its source closed at the deadline', async () => {
    const streams = new Set<StreamCall>();
    const call = Object.assign(new EventEmitter(), {
      cancelled: false,
      getDeadline: () => Date.now() + 50,
      sendMetadata: () => undefined,
      // A dead call: nothing written ever drains.
      write: () => false,
      end: () => undefined,
    });
    let closed = false;
    async function* items(): AsyncGenerator<StreamItem> {
      try {
        for (;;) {
          yield { event: { message: { messageId: uid('m'), role: 'ROLE_AGENT', parts: [{ text: 'x' }] } } };
          await sleep(5);
        }
      } finally {
        closed = true;
      }
    }
    const endedWith: unknown[] = [];
    call.on('error', (status: unknown) => endedWith.push(status));
    const stream = new StreamCall(call as unknown as ServerWritableStream<Buffer, Buffer>, { streams, report: () => assert.fail('no error to report') });
    stream.start({ items: items(), encode: () => Buffer.from('x') }, new Metadata());
    assert.equal(streams.size, 1);
    await eventually(async () => (closed && streams.size === 0 ? true : undefined), 'the source to be closed at the deadline', 1000);
    assert.equal((endedWith[0] as { code: number }).code, 4, 'ended DEADLINE_EXCEEDED');
  });
});
