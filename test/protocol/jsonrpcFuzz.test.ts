/**
 * R19 seeded mutation fuzz of the JSON-RPC binding. ~10,000 mutated requests derived from valid
 * requests for every operation go to the handler in-process (fast), a few hundred more over the
 * socket; every answer must be a well-formed JSON-RPC envelope on HTTP 200, and the server must
 * still work afterwards. The mutator is shared with the REST and gRPC fuzz (test/support/fuzz.ts).
 * FUZZ_SEED reproduces a run with another seed; FUZZ_COUNT goes deeper. R17 lives in
 * test/security/pollution.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BINDINGS, type Json } from '../support/bindings.js';
import { assertReached, fuzzCount, fuzzSeed, mutateJson, pick, runFuzz, seedRequests, withFreshMessageId, type SeedRequest } from '../support/fuzz.js';
import { answerProblem, expectedId, inProcessRpc, rawRpc, type RawAnswer } from '../support/jsonrpc.js';
import { startServer, type TestServer } from '../support/server.js';
import { ok, send } from '../support/assertions.js';

const SEED = fuzzSeed(0x5eed);
const IN_PROCESS = fuzzCount(10_000);
const OVER_SOCKET = 300;

const METHODS = [
  'SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig', 'GetExtendedAgentCard',
  'message/send', 'tasks/get', '', 'toString', 'hasOwnProperty',
];

const envelope = ({ method, params }: SeedRequest): Json => ({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });

describe('R19 seeded mutation fuzz of JSON-RPC requests', () => {
  let server: TestServer;
  let corpus: SeedRequest[];
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  before(async () => {
    server = await startServer({ demo: { slowMs: 50, tickMs: 10 } });
    const b = BINDINGS[0]?.create(server);
    const task = ok(await b!.call('sendMessage', send('hi seed'))).task;
    corpus = seedRequests(task.id, task.contextId);
    for (const seed of corpus) {
      const answer = await inProcessRpc(server.handler, '/a2a/jsonrpc', JSON.stringify(envelope(seed)));
      assert.equal(answerProblem(answer, 1), undefined, `seed ${seed.method}: ${answer.text.slice(0, 300)}`);
    }
  });
  after(() => server.close());

  const run = (options: { name: string; count: number; seed: number; concurrency: number; send: (text: string) => Promise<RawAnswer> }) =>
    runFuzz<string, RawAnswer>({
      ...options,
      generate: (random) => mutateJson(envelope(withFreshMessageId(pick(random, corpus), random)), random, { root: { key: 'method', values: METHODS } }),
      check: (text, answer) => {
        const problem = answerProblem(answer, expectedId(text));
        return problem && `${problem}\nanswer: ${answer.text.slice(0, 500)}`;
      },
      classify: (answer) => {
        const first = (answer.events?.[0] ?? answer.json) as Json;
        return first.error ? String(first.error.code) : 'result';
      },
      show: (text) => text,
    });

  test(`${IN_PROCESS} mutated requests in-process: well-formed envelopes only (seed ${SEED})`, async (t) => {
    const outcomes = await run({ name: 'jsonrpc in-process', count: IN_PROCESS, seed: SEED, concurrency: 32, send: (text) => inProcessRpc(server.handler, '/a2a/jsonrpc', text) });
    t.diagnostic(`seed ${SEED}, outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    // The mutations must reach every layer, not just the envelope checks.
    assertReached(outcomes, ['-32700', '-32600', '-32601', '-32602', 'result']);
    assert.equal(outcomes.get('-32603'), undefined, 'no internal errors');
  });

  test(`${OVER_SOCKET} mutated requests over the socket (seed ${SEED + 1})`, async () => {
    const outcomes = await run({ name: 'jsonrpc socket', count: OVER_SOCKET, seed: SEED + 1, concurrency: 8, send: (text) => rawRpc(server.jsonRpcUrl, text) });
    assert.equal(outcomes.get('-32603'), undefined, 'no internal errors');
  });

  test('the server still answers a valid request and nothing was reported as an internal error', async () => {
    const answer = await rawRpc(server.jsonRpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 'ok', method: 'ListTasks', params: { pageSize: 1 } }));
    assert.equal(answerProblem(answer, 'ok'), undefined);
    assert.deepEqual(server.errors, []);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoKeys);
    assert.equal(({} as Json).polluted, undefined);
  });
});
