/** Interceptors: `before` on every call (headers, query, request), `after` with the outcome. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AError, createClient, type CallResult, type ClientCall, type Interceptor } from '../../src/client/index.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, record, type Seen } from './helpers.js';

for (const binding of BINDINGS) {
  describe(`interceptors over ${binding}`, () => {
    let server: TestServer;
    let seen: Seen[];
    before(async () => {
      server = await startServer();
      seen = record(server);
    });
    after(() => server.close());

    test('before adds headers and may change the request; after sees values, last stream events and errors', async () => {
      const log: string[] = [];
      const results: [string, CallResult][] = [];
      const tracing: Interceptor = {
        before(call: ClientCall) {
          log.push(`before ${call.op} ${call.agentInterface.protocolBinding}`);
          call.headers.set('x-test', `trace-${call.op}`);
          if (call.op === 'getTask') call.request = { ...call.request, historyLength: 0 };
        },
        after(call, result) {
          log.push(`after ${call.op} ${result.ok}`);
          results.push([call.op, result]);
        },
      };
      const client = await createClient(server.card, { bindings: [binding], interceptors: [tracing] });
      const sent = await client.sendText('hi');
      assert.ok('task' in sent);
      assert.equal(seen.at(-1)?.headers['x-test'], 'trace-sendMessage');
      const task = await client.getTask({ id: sent.task.id });
      assert.equal(task.history, undefined, 'historyLength 0 was added by the interceptor');
      await collect(client.streamText('stream s'));
      await client.getTask({ id: 'missing' }).catch(() => undefined);
      assert.deepEqual(log, [
        `before sendMessage ${binding}`,
        'after sendMessage true',
        `before getTask ${binding}`,
        'after getTask true',
        `before sendStreamingMessage ${binding}`,
        'after sendStreamingMessage true',
        `before getTask ${binding}`,
        'after getTask false',
      ]);
      const [, streamResult] = results[2] as [string, CallResult];
      assert.ok(streamResult.ok && JSON.stringify(streamResult.value).includes('TASK_STATE_COMPLETED'), 'the last event of the stream');
      const [, failed] = results[3] as [string, CallResult];
      assert.ok(!failed.ok && A2AError.is(failed.error) && failed.error.reason === 'TASK_NOT_FOUND');
    });

    test('after also runs when the reader stops a stream early', async () => {
      const seenResults: CallResult[] = [];
      const client = await createClient(server.card, { bindings: [binding], interceptors: [{ after: (_call, result) => void seenResults.push(result) }] });
      for await (const event of client.streamText('slow early stop')) {
        assert.ok('task' in event);
        break;
      }
      assert.equal(seenResults.length, 1);
      const [result] = seenResults;
      assert.ok(result?.ok && typeof result.value === 'object' && result.value !== null && 'task' in result.value);
    });

    test('a throwing before stops the call before anything is sent', async () => {
      const client = await createClient(server.card, {
        bindings: [binding],
        interceptors: [
          {
            before() {
              throw new Error('policy: no calls today');
            },
          },
        ],
      });
      const from = seen.length;
      await assert.rejects(client.listTasks(), /policy/);
      assert.equal(seen.length, from);
    });
  });
}
