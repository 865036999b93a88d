/**
 * LIST-01: ListTasks returns only the tasks the caller may see, even without filters. Every
 * anonymous caller is the same owner (''), so on an agent where callers can authenticate (a card
 * allowing anonymous calls besides a scheme) an anonymous ListTasks is refused with
 * UNAUTHENTICATED on every binding instead of listing every anonymous caller's tasks. Operations
 * by id stay open to anonymous callers (the unguessable id is the capability); an agent without
 * authentication lists all tasks (everyone is the same anonymous caller).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import { testCard } from '../server/support.js';
import { assertAuthFailure, message, startSecured, taskPerPrincipal, type SecuredAgent } from './support.js';

const ALICE_KEY = 'ak-2b7e15';
let server: SecuredAgent;

before(async () => {
  server = await startSecured({
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    // Anonymous, or the key.
    securityRequirements: [{ schemes: {} }, { schemes: { key: {} } }],
    auth: { schemes: { key: { keys: { [ALICE_KEY]: 'alice' } } } },
    executor: taskPerPrincipal,
  });
});

after(() => server?.close());

test('LIST-01 an anonymous ListTasks is UNAUTHENTICATED with the key challenge on every binding; anonymous tasks stay reachable by id', async () => {
  const [jsonRpc] = server.bindings;
  const sent = await jsonRpc!.call('sendMessage', message('my medical question'));
  assert.ok(sent.ok, JSON.stringify(!sent.ok && sent.error.raw));
  const taskId = sent.result.task?.id as string;
  assert.ok(taskId, 'the agent answers with a task');
  for (const b of server.bindings) {
    const listed = await b.call('listTasks', {});
    const error = assertAuthFailure(b, listed, { reason: 'UNAUTHENTICATED', challenge: /APIKey realm="a2a", in="header", name="X-Api-Key"/ });
    assert.match(error.message, /ListTasks needs an authenticated caller on this agent/, b.name);
    assert.ok(!JSON.stringify(error.raw).includes('medical'), `${b.name}: nothing of the task leaks`);
    // Filters do not help either.
    assertAuthFailure(b, await b.call('listTasks', { contextId: sent.result.task.contextId }), { reason: 'UNAUTHENTICATED' });
    // By id, anonymous callers keep their tasks (GetTask is not refused).
    const got = await b.call('getTask', { id: taskId });
    assert.ok(got.ok, `${b.name}: ${JSON.stringify(!got.ok && got.error.raw)}`);
  }
});

test('LIST-01 an authenticated caller lists its own tasks only, not the anonymous ones', async () => {
  for (const b of server.bindings) {
    const mine = await b.call('sendMessage', message('alice asks'), { headers: { 'X-Api-Key': ALICE_KEY } });
    assert.ok(mine.ok, b.name);
    await b.call('sendMessage', message('anonymous asks'));
    const listed = await b.call('listTasks', {}, { headers: { 'X-Api-Key': ALICE_KEY } });
    assert.ok(listed.ok, `${b.name}: ${JSON.stringify(!listed.ok && listed.error.raw)}`);
    const ids = (listed.result.tasks as { id: string }[]).map((t) => t.id);
    assert.ok(ids.includes(mine.result.task.id), b.name);
    assert.ok(!JSON.stringify(listed.result).includes('anonymous asks') && !JSON.stringify(listed.result).includes('medical'), `${b.name}: only alice's tasks`);
  }
  // A wrong key is a failed authentication, as for any operation.
  for (const b of server.bindings) assertAuthFailure(b, await b.call('listTasks', {}, { headers: { 'X-Api-Key': 'nope-1' } }), { reason: 'UNAUTHENTICATED' });
});

test('LIST-01 an agent without authentication lists every task: all callers are the same anonymous caller', async () => {
  const handler = createA2AHandler({ agentCard: testCard('open'), executor: taskPerPrincipal });
  const rpc = async (method: string, params: object) => {
    const res = await handler.fetch(
      new Request('http://localhost/a2a/jsonrpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
    );
    assert.equal(res.status, 200);
    return (await res.json()) as { result?: { tasks?: unknown[] } };
  };
  await rpc('SendMessage', message('open question'));
  await rpc('SendMessage', message('another caller'));
  const listed = await rpc('ListTasks', {});
  assert.equal(listed.result?.tasks?.length, 2);
});
