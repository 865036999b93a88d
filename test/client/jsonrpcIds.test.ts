/**
 * RPC-09 (JSON-RPC 2.0 §5): an answer is taken only as the answer to its request. A response
 * carrying another request's id (99 for request 1), or a result without an id, is
 * INVALID_RESPONSE — over A2A 1.0 and 0.3, for unary calls and for a JSON answer in place of a
 * stream. An error response may carry `null` (the server could not read the request's id).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, createClient } from '../../src/client/index.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import { cardAt, rpcId, sendJson, startFakeAgent, type FakeAgent } from './fakeAgent.js';

/** How the agent answers: the id it puts in the response (`echo`: the request's). */
let answerId: unknown = 'echo';
let agent: FakeAgent;

before(async () => {
  agent = await startFakeAgent((req, res) => {
    const id = answerId === 'echo' ? rpcId(req) : answerId;
    const envelope = answerId === undefined ? { jsonrpc: '2.0' } : { jsonrpc: '2.0', id };
    if (req.url.startsWith('/error')) return sendJson(res, 200, { ...envelope, error: { code: -32001, message: 'Task not found' } });
    const v03 = req.url.startsWith('/v03');
    sendJson(res, 200, { ...envelope, result: v03 ? { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } } : { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});
after(() => agent?.close());

function mismatched(got: string) {
  return (error: unknown) => {
    assert.ok(A2AClientError.is(error, 'INVALID_RESPONSE'), String(error));
    assert.match(error.message, new RegExp(`^The agent answered JSON-RPC request \\d+ with ${got}$`));
    return true;
  };
}

describe('RPC-09 the JSON-RPC response id must be the request id', () => {
  for (const [version, path] of [
    ['1.0', '/rpc'],
    ['0.3', '/v03'],
  ] as const) {
    test(`A2A ${version}: id 99 for request n, or no id on a result, is INVALID_RESPONSE; the echoed id is accepted`, async () => {
      const client = await createClient(cardAt(`${agent.url}${path}`, { version }), { retry: false });
      answerId = 99;
      await assert.rejects(client.getTask({ id: 't1' }), mismatched('id 99'));
      answerId = '1';
      await assert.rejects(client.getTask({ id: 't1' }), mismatched('id "1"'));
      answerId = undefined;
      await assert.rejects(client.getTask({ id: 't1' }), mismatched('no id'));
      answerId = 'echo';
      assert.equal((await client.getTask({ id: 't1' })).id, 't1');
    });
  }

  test('a JSON answer in place of a stream is checked too', async () => {
    answerId = 99;
    const client = await createClient(cardAt(`${agent.url}/error`), { retry: false, resume: false });
    await assert.rejects(async () => {
      for await (const event of client.streamText('hi')) void event;
    }, mismatched('id 99'));
  });

  test('an error response may carry null (or no id); another id is refused', async () => {
    const client = await createClient(cardAt(`${agent.url}/error`), { retry: false });
    answerId = null;
    await assert.rejects(client.getTask({ id: 't1' }), TaskNotFoundError);
    answerId = undefined;
    await assert.rejects(client.getTask({ id: 't1' }), TaskNotFoundError);
    answerId = 99;
    await assert.rejects(client.getTask({ id: 't1' }), mismatched('id 99'));
    answerId = 'echo';
    await assert.rejects(client.getTask({ id: 't1' }), TaskNotFoundError);
  });
});
