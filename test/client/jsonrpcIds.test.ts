/**
 * RPC-09 (JSON-RPC 2.0 §5): an answer is taken only as the answer to its request. A response
 * carrying another request's id (99 for request 1), or a result without an id, is
 * INVALID_RESPONSE — over A2A 1.0 and 0.3, for unary calls, for a JSON answer in place of a
 * stream, and for every event of a stream (RPC-07: each is a JSON-RPC response to the request).
 * An error response may carry `null` (the server could not read the request's id).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, createClient } from '../../src/client/index.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import { cardAt, rpcId, sendJson, startFakeAgent, type FakeAgent, type FakeRequest } from './fakeAgent.js';
import { invalidResponse } from './helpers.js';

/** How the agent answers: the id it puts in the response (`echo`: the request's). */
let answerId: unknown = 'echo';
/**
 * What a stream's second event carries in place of the response to the request (`echo`: a proper
 * one); `result`: the task WORKING, in the request's A2A version.
 */
let secondEvent: (req: FakeRequest, result: unknown) => unknown = () => 'echo';
let agent: FakeAgent;

/** A stream's events: a task WORKING, then COMPLETED (1.0: a StreamResponse; 0.3: the task itself). */
const TASK = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
const DONE = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };
const TASK_03 = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'working' } };
const DONE_03 = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } };

before(async () => {
  agent = await startFakeAgent((req, res) => {
    if (req.url.includes('/sse')) {
      // A stream whose first event answers the request and whose second is `secondEvent`.
      const v03 = req.url.startsWith('/v03');
      const first = { jsonrpc: '2.0', id: rpcId(req), result: v03 ? TASK_03 : TASK };
      const second = secondEvent(req, first.result);
      const done = { jsonrpc: '2.0', id: rpcId(req), result: v03 ? DONE_03 : DONE };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(first)}\n\ndata: ${JSON.stringify(second === 'echo' ? done : second)}\n\n`);
      return;
    }
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

describe('RPC-07 RPC-09 each event of a JSON-RPC stream answers the request', () => {
  const wrong: [string, typeof secondEvent][] = [
    ['another id', (req, result) => ({ jsonrpc: '2.0', id: Number(rpcId(req)) + 1, result })],
    ['no id', (_req, result) => ({ jsonrpc: '2.0', result })],
    ['a bare result, not a JSON-RPC response', (_req, result) => result],
  ];
  for (const [version, path] of [
    ['1.0', '/sse'],
    ['0.3', '/v03/sse'],
  ] as const) {
    for (const [what, event] of wrong) {
      test(`A2A ${version}: an event with ${what} fails the stream with INVALID_RESPONSE`, async () => {
        secondEvent = event;
        const client = await createClient(cardAt(`${agent.url}${path}`, { version }), { retry: false, resume: false });
        const seen: unknown[] = [];
        await assert.rejects(async () => {
          for await (const item of client.streamText('hi')) seen.push(item);
        }, invalidResponse);
        assert.equal(seen.length, 1, 'the first event, which answers the request, is delivered');
      });
    }

    test(`A2A ${version}: events echoing the request id, or an error with id null, are accepted`, async () => {
      secondEvent = () => 'echo';
      const client = await createClient(cardAt(`${agent.url}${path}`, { version }), { retry: false, resume: false });
      const seen: unknown[] = [];
      for await (const item of client.streamText('hi')) seen.push(item);
      assert.equal(seen.length, 2);
      secondEvent = () => ({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Task not found' } });
      await assert.rejects(async () => {
        for await (const item of client.streamText('hi')) void item;
      }, TaskNotFoundError);
    });
  }
});
