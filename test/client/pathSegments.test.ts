/**
 * REST-02: an id is one path segment below the interface URL. `.` and `..` cannot be one: URL
 * parsers (fetch's among them) read them — and their escapes `%2E` / `%2E%2E` — as steps up the
 * path, so `getTask({ id: '..' })` went out as `GET /a2a/rest/` and took the unrelated answer
 * for the task. Over HTTP+JSON (1.0 and A2A 0.3) such an id is refused before anything is sent;
 * JSON-RPC carries it in the body as any other.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '../../src/client/index.js';
import { wasNotSent } from '../../src/client/errors.js';
import { InvalidParamsError } from '../../src/protocol/errors.js';
import { cardAt, rpcId, sendJson, startFakeAgent, task, type FakeAgent } from './fakeAgent.js';

/** Answers every request with a task (whatever its path: a wrong route would be taken for an answer). */
let agent: FakeAgent;

before(async () => {
  agent = await startFakeAgent((req, res) => {
    if (req.url.startsWith('/rpc')) return sendJson(res, 200, { jsonrpc: '2.0', id: rpcId(req), result: task((JSON.parse(req.body) as { params: { id: string } }).params.id) });
    sendJson(res, 200, req.url.startsWith('/v03/') ? { id: 'unrelated', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } : task('unrelated'));
  });
});
after(() => agent?.close());

function refused(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof InvalidParamsError, String(error));
    assert.equal(error.fieldViolations[0]?.field, field);
    assert.match(error.message, /cannot be sent in an HTTP\+JSON URL path/);
    assert.ok(wasNotSent(error));
    return true;
  };
}

describe('REST-02 ids "." and ".." over HTTP+JSON', () => {
  for (const [version, base] of [
    ['1.0', '/a2a/rest'],
    ['0.3', '/v03'],
  ] as const) {
    test(`A2A ${version}: refused before sending, never sent to the parent path`, async () => {
      const client = await createClient(cardAt(`${agent.url}${base}`, { binding: 'HTTP+JSON', version }));
      const sent = agent.requests.length;
      await assert.rejects(client.getTask({ id: '..' }), refused('id'));
      await assert.rejects(client.cancelTask({ id: '.' }), refused('id'));
      await assert.rejects(client.getTaskPushNotificationConfig({ taskId: 't1', id: '..' }), refused(version === '1.0' ? 'id' : 'pushNotificationConfigId'));
      assert.equal(agent.requests.length, sent, 'nothing was sent');
    });
  }

  test('ids that merely contain dots are sent as they are', async () => {
    const client = await createClient(cardAt(`${agent.url}/a2a/rest`, { binding: 'HTTP+JSON' }));
    await client.getTask({ id: '...' });
    await client.getTask({ id: 'a.b' });
    assert.deepEqual(agent.requests.slice(-2).map((r) => r.url), ['/a2a/rest/tasks/...', '/a2a/rest/tasks/a.b']);
  });

  test('JSON-RPC carries ".." in the body', async () => {
    const client = await createClient(cardAt(`${agent.url}/rpc`));
    assert.equal((await client.getTask({ id: '..' })).id, '..');
  });
});
