/**
 * Absolute-form request targets (`GET http://host/path?query HTTP/1.1`, RFC 9112 §3.2.2: a server
 * MUST accept them) name the resource at their path and query, on every route. Real server on a
 * loopback socket, raw node:net requests (node:http clients only send the origin form).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAgent } from '../../src/cli/agents/demo.js';
import type { Task } from '../../src/protocol/types.js';
import { rawExchange, rpcResult, startServer, userMessage, type TestServer } from './helpers.js';

/** One raw request, Connection: close: the status and the parsed JSON body. */
async function exchange(s: TestServer, requestLine: string, body = ''): Promise<{ status: number; json: Record<string, unknown> }> {
  const length = body ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` : '';
  const text = await rawExchange(s.port, `${requestLine}\r\nHost: localhost\r\nA2A-Version: 1.0\r\n${length}Connection: close\r\n\r\n${body}`);
  const split = text.indexOf('\r\n\r\n');
  return { status: Number(text.split(' ')[1]), json: JSON.parse(text.slice(split + 4)) as Record<string, unknown> };
}

describe('absolute-form request targets', () => {
  let s: TestServer;
  let origin: string;
  before(async () => {
    s = await startServer(demoAgent);
    origin = `http://127.0.0.1:${s.port}`;
    for (const text of ['one', 'two']) await rpcResult(s.rpcUrl, 'SendMessage', { message: userMessage(text) });
  });
  after(async () => {
    await s?.close();
  });

  test('REST GET: path and query are taken from the URL', async () => {
    const res = await exchange(s, `GET ${origin}/a2a/rest/tasks?pageSize=1 HTTP/1.1`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal((res.json.tasks as Task[]).length, 1, 'pageSize=1 was read from the query');
    assert.equal(res.json.totalSize, 2);
  });

  test('JSON-RPC POST, and a host in the target other than the Host header', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage('three') } });
    const res = await exchange(s, 'POST HTTP://agent.example/a2a/jsonrpc HTTP/1.1', body);
    assert.equal(res.status, 200);
    assert.equal(res.json.id, 7);
    assert.equal((res.json.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  });

  test('the Agent Card, and a target with no path at all', async () => {
    const card = await exchange(s, `GET ${origin}/.well-known/agent-card.json HTTP/1.1`);
    assert.equal(card.status, 200);
    assert.equal(card.json.name, s.handler.agentCard.name);
    const root = await exchange(s, `GET ${origin}?x=1 HTTP/1.1`);
    assert.equal(root.status, 404);
    assert.match(String((root.json.error as { message: string }).message), / \/$/, 'the path is /');
  });
});
