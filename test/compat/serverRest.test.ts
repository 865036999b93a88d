/**
 * Issue 9, server side, HTTP+JSON: the official A2A 0.3 JS SDK client's RestTransport (which
 * sends and parses the 0.3 proto-JSON dialect through its own ToProto/FromProto converters)
 * against our 0.3 REST routes (/v1/...), every operation it has; tasks are shared with 1.0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as Sdk from 'a2a-sdk-03';
import { RestTransport, TaskNotCancelableError, TaskNotFoundError, type Client } from 'a2a-sdk-03/client';
import { ok, send } from '../support/assertions.js';
import type { TestBinding } from '../support/bindings.js';
import { asTask, collect, EXTENDED_SUFFIX, params03, startCompatServer, startSdkClientSetup, textOf, type CompatServer, type Event03 } from './serverSupport.js';

describe('0.3 SDK client over HTTP+JSON (0.3 REST, proto-JSON dialect)', () => {
  let s: CompatServer;
  let client: Client;
  let v10: TestBinding;

  before(async () => {
    ({ s, client, v10 } = await startSdkClientSetup('HTTP+JSON'));
  });
  after(() => s.close());

  test('the factory picks the HTTP+JSON interface of the hybrid card; the extended card over GET /v1/card', async () => {
    const card = await client.getAgentCard();
    assert.equal(card.name, s.card.name + EXTENDED_SUFFIX);
    assert.equal(card.url, s.jsonRpcUrl);
    assert.ok(s.seen.some((r) => r.path === '/a2a/rest/v1/card' && r.status === 200));
  });

  test('message:send: Task, Message, data and file parts, states in the 0.3 vocabulary', async () => {
    const task = asTask(await client.sendMessage(params03('hi rest')));
    assert.equal(task.status.state, 'completed');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'hi rest');
    const message = (await client.sendMessage(params03('msg hello'))) as Sdk.Message;
    assert.equal(message.kind, 'message');
    assert.equal(message.role, 'agent');
    const data = asTask(await client.sendMessage(params03('data x')));
    assert.ok(data.artifacts?.[0]?.parts.some((p) => p.kind === 'data'));
    const file = asTask(await client.sendMessage(params03('file x')));
    const filePart = file.artifacts?.[0]?.parts.find((p) => p.kind === 'file') as Sdk.FilePart | undefined;
    assert.ok(filePart && 'bytes' in filePart.file);
  });

  test('MSG-03 non-blocking message:send to an agent that replies: the direct Message, no task', async () => {
    const message = (await client.sendMessage(params03('msg hello', { blocking: false }))) as Sdk.Message;
    assert.equal(message.kind, 'message', JSON.stringify(message));
    assert.equal(textOf(message.parts), 'hello');
  });

  test('non-blocking send, get, cancel → canceled (TASK_STATE_CANCELLED on the wire), cancel again → TaskNotCancelable', async () => {
    const started = asTask(await client.sendMessage(params03('slow rest', { blocking: false })));
    assert.ok(['submitted', 'working'].includes(started.status.state), started.status.state);
    assert.equal(asTask(await client.getTask({ id: started.id, historyLength: 1 })).id, started.id);
    assert.equal(asTask(await client.cancelTask({ id: started.id })).status.state, 'canceled');
    const raw = await fetch(`${s.restUrl}/v1/tasks/${started.id}`);
    assert.equal(((await raw.json()) as { status: { state: string } }).status.state, 'TASK_STATE_CANCELLED');
    await assert.rejects(client.cancelTask({ id: started.id }), TaskNotCancelableError);
    await assert.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
  });

  test('message:stream and tasks/{id}:subscribe, final on the last status update', async () => {
    const events = (await collect(client.sendMessageStream(params03('stream rest')))) as Event03[];
    assert.equal(events[0]?.kind, 'task');
    const last = events.at(-1) as Sdk.TaskStatusUpdateEvent;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'completed');
    assert.equal(last.final, true);
    assert.ok(events.some((e) => e.kind === 'artifact-update'));
    const started = asTask(await client.sendMessage(params03('slow resub rest', { blocking: false })));
    const resub = (await collect(client.resubscribeTask({ id: started.id }))) as Event03[];
    assert.equal(resub[0]?.kind, 'task');
    assert.equal((resub.at(-1) as Sdk.TaskStatusUpdateEvent).final, true);
  });

  test('push configs: set, get, list, delete', async () => {
    const task = asTask(await client.sendMessage(params03('hi push rest')));
    const set = await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'one', url: 'https://example.com/one', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'c' } },
    });
    assert.equal(set.taskId, task.id);
    assert.equal(set.pushNotificationConfig.id, 'one');
    assert.deepEqual(set.pushNotificationConfig.authentication?.schemes, ['Bearer']);
    const withId: Sdk.GetTaskPushNotificationConfigParams = { id: task.id, pushNotificationConfigId: 'one' };
    assert.equal((await client.getTaskPushNotificationConfig(withId)).pushNotificationConfig.url, 'https://example.com/one');
    // A config without id: stored under the task id (0.3 default config).
    const noId = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'https://example.com/default' } });
    assert.equal(noId.pushNotificationConfig.id, task.id);
    const list = await client.listTaskPushNotificationConfig({ id: task.id });
    assert.deepEqual(list.map((c) => c.pushNotificationConfig.id).sort(), ['one', task.id].sort());
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'one' });
    assert.deepEqual(
      (await client.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id),
      [task.id],
    );
  });

  test('tasks are shared with 1.0 REST; a 1.0 path without A2A-Version is refused', async () => {
    const task03 = asTask(await client.sendMessage(params03('hi shared')));
    assert.equal(ok(await v10.call('getTask', { id: task03.id })).status.state, 'TASK_STATE_COMPLETED');
    const created10 = ok(await v10.call('sendMessage', send('hi from rest 1.0')));
    assert.equal(asTask(await client.getTask({ id: created10.task.id })).status.state, 'completed');
    const refused = await fetch(`${s.restUrl}/tasks/${task03.id}`);
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as { error: { details: { reason: string; metadata: Record<string, string> }[] } };
    assert.equal(body.error.details[0]?.reason, 'VERSION_NOT_SUPPORTED');
    assert.equal(body.error.details[0]?.metadata.supportedVersions, '1.0,0.3');
  });

  test('a JSON-RPC-dialect body on a 0.3 route is read too; errors are {code, message, data}', async () => {
    const res = await fetch(`${s.restUrl}/v1/message:send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params03('hi kind')) });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { task: { status: { state: string } } }).task.status.state, 'TASK_STATE_COMPLETED');
    const missing = await fetch(`${s.restUrl}/v1/tasks/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { code: -32001, message: 'Task nope not found', data: { reason: 'TASK_NOT_FOUND', metadata: { taskId: 'nope' } } });
  });

  test('an unknown /v1 path without A2A-Version is a 0.3 404 METHOD_NOT_FOUND, not a 1.0 refusal; another method is 405', async () => {
    for (const path of ['/v1/tasks', '/v1/tasks/x:bogus', '/v1/nothing/here', '/v1']) {
      const res = await fetch(`${s.restUrl}${path}`);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await res.json()) as { code: number; message: string; data: { reason: string } };
      assert.equal(body.code, -32601, path);
      assert.match(body.message, /No A2A 0\.3 operation at GET \/v1/);
      assert.equal(body.data.reason, 'METHOD_NOT_FOUND');
    }
    const wrongMethod = await fetch(`${s.restUrl}/v1/message:send`);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    assert.equal(((await wrongMethod.json()) as { code: number }).code, -32600);
    // With A2A-Version: 1.0, /v1/... is tenant v1 of the 1.0 binding.
    const tenant = await fetch(`${s.restUrl}/v1/tasks`, { headers: { 'A2A-Version': '1.0' } });
    assert.equal(tenant.status, 200);
    // The official 0.3 REST client reads the top-level code (its generic error for -32601).
    const t = new RestTransport({ endpoint: `${s.restUrl}/v1/nothing` });
    await assert.rejects(t.getTask({ id: 'x' }), /REST error: No A2A 0\.3 operation at GET \/v1\/nothing\/v1\/tasks\/x \(Code: -32601\)/);
  });

  test('compat off: the 0.3 REST transport gets the 1.0 VersionNotSupported answer', async () => {
    const off = await startCompatServer({ compat03: false });
    try {
      const t = new RestTransport({ endpoint: off.restUrl });
      await assert.rejects(t.sendMessage(params03('hi off')), /Status: 400[\s\S]*VERSION_NOT_SUPPORTED/);
    } finally {
      await off.close();
    }
  });
});
