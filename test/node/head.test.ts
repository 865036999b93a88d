/**
 * HEAD is served wherever GET is (RFC 9110 §9.3.2): the REST GET routes answer HEAD with the
 * GET's status and headers (Content-Length included) and no body, and their 405s allow
 * `GET, HEAD`. Real server on a loopback socket, raw requests so every byte is seen.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import type { Task } from '../../src/protocol/types.js';
import { rawExchange, request, rpcResult, startServer, userMessage, waitUntil, type TestServer } from './helpers.js';

/**
 * One raw request with Connection: close: its head (status line and headers) and what followed.
 * `A2A-Version: 1.0` unless the target says otherwise (`version: undefined` sends none: 0.3).
 */
async function raw(s: TestServer, method: string, target: string | { path: string; version?: string }): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const { path, version } = typeof target === 'string' ? { path: target, version: '1.0' } : target;
  const versionLine = version === undefined ? '' : `A2A-Version: ${version}\r\n`;
  const text = await rawExchange(s.port, `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${versionLine}Connection: close\r\n\r\n`);
  const split = text.indexOf('\r\n\r\n');
  assert.ok(split > 0, `an answer to ${method} ${path}: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) };
}

describe('HEAD on the REST GET routes', () => {
  let s: TestServer;
  let done: Task;
  before(async () => {
    s = await startServer(createDemoAgent({ slowMs: 3000, tickMs: 1000 }));
    done = (await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('hi') })).task;
  });
  after(async () => {
    await s?.close();
  });

  test('GetTask, ListTasks and GetTask 404: the GET status and headers, Content-Length included, no body', async () => {
    for (const path of [`/a2a/rest/tasks/${done.id}`, '/a2a/rest/tasks?pageSize=1', '/a2a/rest/tasks/no-such-task']) {
      const get = await raw(s, 'GET', path);
      const head = await raw(s, 'HEAD', path);
      assert.equal(head.status, get.status, path);
      assert.equal(head.body, '', `${path}: no body`);
      assert.ok(get.body.length > 0);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.body)), `${path}: the GET's length`);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
      assert.equal(head.headers.get('a2a-version'), get.headers.get('a2a-version'));
    }
    assert.equal((await raw(s, 'HEAD', `/a2a/rest/tasks/${done.id}`)).status, 200);
  });

  test('405s list HEAD next to GET; HEAD on a POST-only route is a 405 allowing POST', async () => {
    const post = await request(`${s.restUrl}/tasks`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
    const sub = await request(`${s.restUrl}/tasks/x:subscribe`, { method: 'DELETE' });
    assert.deepEqual(sub.headers.allow?.split(/,\s*/).sort(), ['GET', 'HEAD', 'POST']);
    const head = await raw(s, 'HEAD', '/a2a/rest/message:send');
    assert.equal(head.status, 405);
    assert.equal(head.headers.get('allow'), 'POST');
    assert.equal(head.body, '');
  });

  test('0.3 REST GET routes answer HEAD as GET, and their 405s allow HEAD next to GET', async () => {
    for (const path of [`/a2a/rest/v1/tasks/${done.id}`, '/a2a/rest/v1/tasks/no-such-task', `/a2a/rest/v1/tasks/${done.id}/pushNotificationConfigs`]) {
      const get = await raw(s, 'GET', { path });
      const head = await raw(s, 'HEAD', { path });
      assert.equal(head.status, get.status, path);
      assert.equal(head.body, '', `${path}: no body`);
      assert.ok(get.body.length > 0, `${path}: the GET has a body`);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.body)), `${path}: the GET's length`);
    }
    const wrong = await raw(s, 'DELETE', { path: `/a2a/rest/v1/tasks/${done.id}` });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET, HEAD');
    const postOnly = await raw(s, 'HEAD', { path: '/a2a/rest/v1/message:send' });
    assert.equal(postOnly.status, 405);
    assert.equal(postOnly.headers.get('allow'), 'POST');
  });

  test('HEAD of a :subscribe stream: its headers at once, and the subscription is released', async () => {
    const running = (
      await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('slow one'), configuration: { returnImmediately: true } })
    ).task;
    const start = performance.now();
    const head = await raw(s, 'HEAD', `/a2a/rest/tasks/${running.id}:subscribe`);
    const ms = performance.now() - start;
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/event-stream');
    assert.equal(head.body, '');
    assert.ok(ms < 1_500, `answered in ${ms.toFixed(0)} ms, not when the task ended`);
    await waitUntil(() => !s.bus.has('', running.id), 1_000, 'the subscription to be released');
    const task = await rpcResult<Task>(s.rpcUrl, 'GetTask', { id: running.id });
    assert.equal(task.status.state, 'TASK_STATE_WORKING', 'the task is still running');
  });
});
