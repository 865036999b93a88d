/**
 * OBS-01: the `onCall` hook hears of every A2A call once, when it ends, on every binding — with
 * the binding, the operation, the outcome (ok or the ErrorInfo reason), a duration, a stream's
 * events and end, the task id — and a hook that throws changes nothing but an onError report.
 * Without a hook nothing is observed (no observation, no clock read).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BINDINGS, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import type { CallRecord } from '../../src/server/callObserver.js';
import type { CallContext } from '../../src/server/requestHandler.js';

const message = (text: string) => ({ message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } });

/** Hook calls happen as calls end; a stream's may come a moment after its last event reached the client. */
async function recordFor(records: CallRecord[], match: (r: CallRecord) => boolean): Promise<CallRecord> {
  for (let i = 0; i < 100; i++) {
    const found = records.find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no record matched; got ${JSON.stringify(records)}`);
}

describe('OBS-01 onCall on every binding', () => {
  let server: TestServer;
  const records: CallRecord[] = [];
  const bindings: TestBinding[] = [];

  before(async () => {
    server = await startServer({ handler: { onCall: (call) => records.push(call) } });
    for (const f of BINDINGS) bindings.push(f.create(server));
  });
  after(() => server.close());

  for (const f of BINDINGS) {
    test(`${f.name}: a unary call, an error and a stream are each reported once`, async () => {
      const binding = bindings.find((b) => b.name === f.name) as TestBinding;
      const sent = await binding.call('sendMessage', message('hi there'));
      assert.equal(sent.ok, true);
      const taskId = (sent as { result: { task: { id: string } } }).result.task.id;
      const ok = await recordFor(records, (r) => r.binding === f.name && r.operation === 'sendMessage' && r.taskId === taskId);
      assert.equal(ok.outcome, 'ok');
      assert.equal(ok.protocolVersion, '1.0');
      assert.equal(ok.tenant, '');
      assert.ok(ok.durationMs > 0, `duration ${ok.durationMs}`);
      assert.equal(ok.events, undefined);
      assert.equal(ok.remoteAddress?.includes('127.0.0.1'), true);

      const missing = await binding.call('getTask', { id: `no-such-task-${f.name}` });
      assert.equal(missing.ok, false);
      const failed = await recordFor(records, (r) => r.binding === f.name && r.operation === 'getTask' && r.taskId === `no-such-task-${f.name}`);
      assert.equal(failed.outcome, 'TASK_NOT_FOUND');
      assert.ok(failed.durationMs > 0);

      const streamed = await binding.stream('sendStreamingMessage', message('stream a b c'));
      assert.equal(streamed.ok, true);
      const events = (streamed as { events: unknown[] }).events.length;
      const stream = await recordFor(records, (r) => r.binding === f.name && r.operation === 'sendStreamingMessage');
      assert.equal(stream.outcome, 'ok');
      assert.equal(stream.events, events);
      assert.ok(events >= 3, `events ${events}`);
      assert.equal(stream.streamEnd, 'done');
      assert.ok(stream.taskId);
      assert.equal(records.filter((r) => r.binding === f.name && r.operation === 'sendStreamingMessage').length, 1);
      assert.equal(records.filter((r) => r.binding === f.name && r.operation === 'sendMessage').length, 1);
    });
  }
});

describe('OBS-01 a throwing hook', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      handler: {
        onCall: () => {
          throw new Error('hook exploded');
        },
      },
    });
  });
  after(() => server.close());

  for (const f of BINDINGS) {
    test(`${f.name}: the call is answered as usual and the error goes to onError`, async () => {
      const binding = f.create(server);
      const before = server.errors.length;
      const sent = await binding.call('sendMessage', message('hi'));
      assert.equal(sent.ok, true);
      const streamed = await binding.stream('sendStreamingMessage', message('stream x'));
      assert.equal(streamed.ok, true);
      assert.ok((streamed as { events: unknown[] }).events.length >= 3);
      for (let i = 0; i < 50 && server.errors.length < before + 2; i++) await new Promise((r) => setTimeout(r, 20));
      const reported = server.errors.slice(before).map((e) => (e as Error).message);
      assert.deepEqual(reported, ['hook exploded', 'hook exploded']);
    });
  }
});

test('OBS-01 without a hook no call is observed and no clock is read', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const handler = server.handler.requestHandler;
  assert.equal(handler.calls, undefined);
  const reads = t.mock.method(performance, 'now');
  const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [], binding: 'JSONRPC' };
  await handler.unary('sendMessage', message('hi'), ctx);
  const stream = await handler.stream('sendStreamingMessage', message('stream q'), ctx);
  for await (const _ of stream) void _;
  assert.equal(ctx.observation, undefined);
  assert.equal(reads.mock.callCount(), 0);
});
