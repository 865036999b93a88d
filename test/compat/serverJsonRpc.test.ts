/**
 * Issue 9, server side, JSON-RPC: the official A2A 0.3 JS SDK client (`a2a-sdk-03` =
 * @a2a-js/sdk@0.3.x, ClientFactory → JsonRpcTransport, and the legacy A2AClient) against our
 * server, every operation it has, results checked in the 0.3 shapes the SDK's types describe
 * (`kind`, lowercase states, `final`, FilePart/DataPart); tasks created over 0.3 are visible
 * over 1.0 and vice versa; errors in the 0.3 shape; compat off → VersionNotSupported.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as Sdk from 'a2a-sdk-03';
import { A2AClient, ClientFactory, JsonRpcTransport, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError, type Client } from 'a2a-sdk-03/client';
import { jsonRpcBinding, type TestBinding } from '../support/bindings.js';
import { expectError, ok, send } from '../support/assertions.js';
import { asTask, collect, EXTENDED_SUFFIX, params03, startCompatServer, startSdkClientSetup, textOf, type CompatServer, type Event03 } from './serverSupport.js';

/** A compact trace: task:state, status:state[!final], artifact, message. */
function trace(events: readonly Event03[]): string[] {
  return events.map((e) => {
    if (e.kind === 'task') return `task:${e.status.state}`;
    if (e.kind === 'status-update') return `status:${e.status.state}${e.final ? '!' : ''}`;
    if (e.kind === 'artifact-update') return 'artifact';
    return 'message';
  });
}

async function rawRpc(url: string, body: object, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; json: Record<string, unknown> & { error?: { code: number; message: string; data?: unknown } } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', json: (await res.json()) as never };
}

describe('0.3 SDK client over JSON-RPC, compat on (issue 9)', () => {
  let s: CompatServer;
  let client: Client;
  let v10: TestBinding;

  before(async () => {
    ({ s, client, v10 } = await startSdkClientSetup('JSONRPC'));
  });
  after(() => s.close());

  test('discovery: the hybrid card (no A2A-Version) points the 0.3 factory at the JSON-RPC endpoint', async () => {
    const res = await fetch(`${s.url}/.well-known/agent-card.json`);
    const hybrid = (await res.json()) as Sdk.AgentCard & { supportedInterfaces?: unknown[] };
    assert.equal(hybrid.protocolVersion, '0.3.0');
    assert.equal(hybrid.url, s.jsonRpcUrl);
    assert.equal(hybrid.preferredTransport, 'JSONRPC');
    assert.deepEqual(hybrid.additionalInterfaces, [
      { url: s.jsonRpcUrl, transport: 'JSONRPC' },
      { url: s.restUrl, transport: 'HTTP+JSON' },
    ]);
    assert.equal(hybrid.supportsAuthenticatedExtendedCard, true);
    assert.ok(Array.isArray(hybrid.supportedInterfaces), 'header-less 1.0 readers still find supportedInterfaces');
    const v10Card = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as Record<string, unknown>;
    assert.deepEqual(v10Card, s.card as unknown as Record<string, unknown>);
    const v03Card = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as Record<string, unknown>;
    assert.equal(v03Card.url, s.jsonRpcUrl);
    assert.equal(v03Card.supportedInterfaces, undefined);
    const card = await client.getAgentCard();
    assert.equal(card.name, s.card.name + EXTENDED_SUFFIX, 'supportsAuthenticatedExtendedCard → agent/getAuthenticatedExtendedCard');
  });

  test('message/send (blocking): a completed Task in the 0.3 shape', async () => {
    const task = asTask(await client.sendMessage(params03('hi there')));
    assert.equal(task.status.state, 'completed');
    assert.equal(typeof task.contextId, 'string');
    assert.equal(task.artifacts?.[0]?.parts[0]?.kind, 'text');
    assert.equal(textOf(task.artifacts?.[0]?.parts), 'hi there');
    assert.ok(task.history?.every((m) => m.kind === 'message' && (m.role === 'user' || m.role === 'agent')));
  });

  test('message/send: a direct Message, DataPart and FilePart artifacts', async () => {
    const message = (await client.sendMessage(params03('msg hello'))) as Sdk.Message;
    assert.equal(message.kind, 'message');
    assert.equal(message.role, 'agent');
    const data = asTask(await client.sendMessage(params03('data x')));
    const dataPart = data.artifacts?.[0]?.parts.find((p) => p.kind === 'data') as Sdk.DataPart | undefined;
    assert.ok(dataPart && typeof dataPart.data === 'object', JSON.stringify(data.artifacts));
    const file = asTask(await client.sendMessage(params03('file x')));
    const filePart = file.artifacts?.[0]?.parts.find((p) => p.kind === 'file') as Sdk.FilePart | undefined;
    assert.ok(filePart && 'bytes' in filePart.file, JSON.stringify(file.artifacts));
    assert.equal(typeof filePart.file.mimeType, 'string');
  });

  test('MSG-03 message/send blocking: false to an agent that replies: the direct Message, no task', async () => {
    const message = (await client.sendMessage(params03('msg hello', { blocking: false }))) as Sdk.Message;
    assert.equal(message.kind, 'message', JSON.stringify(message));
    assert.equal(message.role, 'agent');
    assert.equal(textOf(message.parts), 'hello');
  });

  test('message/send with a FilePart and a DataPart from the client is accepted', async () => {
    const params: Sdk.MessageSendParams = {
      message: {
        kind: 'message',
        role: 'user',
        messageId: `m03-parts-${process.pid}`,
        parts: [
          { kind: 'text', text: 'hi parts' },
          { kind: 'file', file: { uri: 'https://example.com/a.txt', mimeType: 'text/plain', name: 'a.txt' } },
          { kind: 'data', data: { n: 1 } },
        ],
      },
    };
    const task = asTask(await client.sendMessage(params));
    assert.equal(task.status.state, 'completed');
    const user = task.history?.find((m) => m.role === 'user');
    assert.deepEqual(
      user?.parts.map((p) => p.kind),
      ['text', 'file', 'data'],
    );
  });

  test('message/send blocking: false returns at once; tasks/get follows the task; tasks/cancel → canceled', async () => {
    const started = asTask(await client.sendMessage(params03('slow cancel me', { blocking: false })));
    assert.ok(['submitted', 'working'].includes(started.status.state), started.status.state);
    const got = asTask(await client.getTask({ id: started.id, historyLength: 1 }));
    assert.equal(got.id, started.id);
    assert.ok((got.history?.length ?? 0) <= 1);
    const canceled = asTask(await client.cancelTask({ id: started.id }));
    assert.equal(canceled.status.state, 'canceled');
    assert.equal(asTask(await client.getTask({ id: started.id })).status.state, 'canceled');
    await assert.rejects(client.cancelTask({ id: started.id }), (e: unknown) => {
      assert.ok(e instanceof TaskNotCancelableError);
      assert.equal((e as unknown as { errorResponse: { error: { code: number } } }).errorResponse.error.code, -32002);
      return true;
    });
  });

  test('message/stream: kind-tagged events, final:true exactly on the last status update', async () => {
    const events = (await collect(client.sendMessageStream(params03('stream abc')))) as Event03[];
    const t = trace(events);
    assert.equal(t[0], 'task:submitted');
    assert.equal(t.at(-1), 'status:completed!');
    assert.equal(t.filter((x) => x.endsWith('!')).length, 1, t.join(' '));
    assert.ok(t.includes('artifact'));
    const artifact = events.find((e) => e.kind === 'artifact-update') as Sdk.TaskArtifactUpdateEvent;
    assert.equal(artifact.artifact.parts[0]?.kind, 'text');
    for (const e of events) if (e.kind === 'status-update') assert.equal(typeof e.final, 'boolean');
  });

  test('message/stream to input-required ends with final:true; the follow-up completes the task', async () => {
    const first = (await collect(client.sendMessageStream(params03('ask what?')))) as Event03[];
    const last = first.at(-1) as Sdk.TaskStatusUpdateEvent;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'input-required');
    assert.equal(last.final, true);
    const taskId = last.taskId;
    const done = asTask(await client.sendMessage(params03('blue', { taskId, contextId: last.contextId })));
    assert.equal(done.id, taskId);
    assert.equal(done.status.state, 'completed');
  });

  test('tasks/resubscribe follows a running task to its end', async () => {
    const started = asTask(await client.sendMessage(params03('slow resubscribe', { blocking: false })));
    const events = (await collect(client.resubscribeTask({ id: started.id }))) as Event03[];
    const t = trace(events);
    assert.equal(t[0]?.startsWith('task:'), true, t.join(' '));
    assert.equal(t.at(-1), 'status:completed!');
  });

  test('a 0.3 stream refused before its first event is one SSE error event: the 0.3 SDK client throws its typed error', async () => {
    // The 0.3 SDK client reads stream errors only from SSE; a plain JSON answer was an untyped
    // "Invalid response Content-Type for SSE stream" there.
    const t = new JsonRpcTransport({ endpoint: s.jsonRpcUrl });
    const typed = (type: abstract new (...args: never[]) => Error, code: number) => (e: unknown) => {
      assert.ok(e instanceof Error, String(e));
      assert.match(e.message, new RegExp(`SSE event contained an error: .*\\(Code: ${code}\\)`));
      assert.ok(e.cause instanceof type, String(e.cause));
      assert.equal((e.cause as unknown as { errorResponse: { error: { code: number } } }).errorResponse.error.code, code);
      return true;
    };
    await assert.rejects(collect(t.resubscribeTask({ id: 'no-such-task' })), typed(TaskNotFoundError, -32001));
    await assert.rejects(collect(t.sendMessageStream(params03('hi unknown', { taskId: 'no-such-task' }))), typed(TaskNotFoundError, -32001));
    const done = asTask(await client.sendMessage(params03('hi finished')));
    await assert.rejects(collect(t.resubscribeTask({ id: done.id })), typed(UnsupportedOperationError, -32004));
    await assert.rejects(collect(client.resubscribeTask({ id: 'no-such-task' })), typed(TaskNotFoundError, -32001));
    // On the wire, as the 0.3 SDK server frames it: 200, text/event-stream, one `event: error`
    // carrying the JSON-RPC error response with the request id, then the end of the stream.
    const res = await fetch(s.jsonRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'tasks/resubscribe', params: { id: 'no-such-task' } }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    assert.match(text, /^event: error\ndata: .*\n\n$/);
    const frame = JSON.parse(text.slice(text.indexOf('data: ') + 6)) as { jsonrpc: string; id: unknown; error: { code: number; data: unknown } };
    assert.equal(frame.id, 'r1');
    assert.equal(frame.error.code, -32001);
    assert.deepEqual(frame.error.data, { reason: 'TASK_NOT_FOUND', metadata: { taskId: 'no-such-task' } });
    // Envelope errors are answered before the method is known: plain JSON, as the 0.3 SDK does.
    const envelope = await rawRpc(s.jsonRpcUrl, { method: 'message/stream', params: [] });
    assert.equal(envelope.contentType, 'application/json');
    assert.equal(envelope.json.error?.code, -32600);
  });

  test('push configs: set (no id → task id, upsert), get with and without id, list (all pages), delete', async () => {
    const task = asTask(await client.sendMessage(params03('hi push')));
    const set = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'https://example.com/a', token: 't1' } });
    assert.equal(set.taskId, task.id);
    assert.equal(set.pushNotificationConfig.id, task.id);
    // 0.3 set is an upsert: the same (default) id again replaces the config.
    await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'https://example.com/b', token: 't2' } });
    const second = await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'second', url: 'https://example.com/c', authentication: { schemes: ['Bearer'], credentials: 'secret' } },
    });
    assert.deepEqual(second.pushNotificationConfig.authentication?.schemes, ['Bearer']);
    const byDefault = await client.getTaskPushNotificationConfig({ id: task.id });
    assert.equal(byDefault.pushNotificationConfig.url, 'https://example.com/b');
    // Client.getTaskPushNotificationConfig is typed TaskIdParams; the transport sends the config id too.
    const withConfigId: Sdk.GetTaskPushNotificationConfigParams = { id: task.id, pushNotificationConfigId: 'second' };
    const byId = await client.getTaskPushNotificationConfig(withConfigId);
    assert.equal(byId.pushNotificationConfig.url, 'https://example.com/c');
    const list = await client.listTaskPushNotificationConfig({ id: task.id });
    assert.ok(Array.isArray(list));
    assert.deepEqual(list.map((c) => c.pushNotificationConfig.id).sort(), [task.id, 'second'].sort());
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: task.id });
    const rest = await client.listTaskPushNotificationConfig({ id: task.id });
    assert.deepEqual(rest.map((c) => c.pushNotificationConfig.id), ['second']);
    // Without a config id and no config under the task id: the first one (0.3 SDK behaviour).
    assert.equal((await client.getTaskPushNotificationConfig({ id: task.id })).pushNotificationConfig.id, 'second');
  });

  test('push list collects every page (more configs than one 1.0 page of 5)', async () => {
    const task = asTask(await client.sendMessage(params03('hi many')));
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const id of ids) await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id, url: `https://example.com/${id}` } });
    const page = ok(await v10.call('listTaskPushNotificationConfigs', { taskId: task.id, pageSize: 5 }));
    assert.equal(page.configs.length, 5);
    assert.ok(page.nextPageToken);
    const all = await client.listTaskPushNotificationConfig({ id: task.id });
    assert.deepEqual(all.map((c) => c.pushNotificationConfig.id).sort(), [...ids].sort());
  });

  test('errors in the 0.3 shape: unknown task → -32001 with a data object', async () => {
    await assert.rejects(client.getTask({ id: 'no-such-task' }), (e: unknown) => {
      assert.ok(e instanceof TaskNotFoundError);
      const error = (e as unknown as { errorResponse: { error: { code: number; data: { reason: string } } } }).errorResponse.error;
      assert.equal(error.code, -32001);
      assert.equal(error.data.reason, 'TASK_NOT_FOUND');
      return true;
    });
    const raw = await rawRpc(s.jsonRpcUrl, { method: 'tasks/get', params: { id: 'no-such-task' } });
    assert.equal(raw.status, 200);
    assert.deepEqual(raw.json.error?.data, { reason: 'TASK_NOT_FOUND', metadata: { taskId: 'no-such-task' } });
    const bad = await rawRpc(s.jsonRpcUrl, { method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'x', parts: [{ kind: 'file', file: {} }] } } });
    assert.equal(bad.json.error?.code, -32602);
    const unknown = await rawRpc(s.jsonRpcUrl, { method: 'tasks/list', params: {} });
    assert.equal(unknown.json.error?.code, -32601);
    assert.ok(!Array.isArray(unknown.json.error?.data));
  });

  test('tasks created over 0.3 are visible over 1.0, and vice versa', async () => {
    const task03 = asTask(await client.sendMessage(params03('hi from 0.3')));
    const seen10 = ok(await v10.call('getTask', { id: task03.id }));
    assert.equal(seen10.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(seen10.contextId, task03.contextId);
    const listed = ok(await v10.call('listTasks', { contextId: task03.contextId }));
    assert.deepEqual(
      listed.tasks.map((t: { id: string }) => t.id),
      [task03.id],
    );
    const created10 = ok(await v10.call('sendMessage', send('hi from 1.0')));
    const seen03 = asTask(await client.getTask({ id: created10.task.id }));
    assert.equal(seen03.status.state, 'completed');
    assert.equal(textOf(seen03.artifacts?.[0]?.parts), 'hi from 1.0');
    // A 0.3 follow-up on a 1.0 task that waits for input.
    const asked = ok(await v10.call('sendMessage', send('ask colour?')));
    assert.equal(asked.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const answered = asTask(await client.sendMessage(params03('red', { taskId: asked.task.id, contextId: asked.task.contextId })));
    assert.equal(answered.status.state, 'completed');
  });

  test('version rules: explicit 0.3 is served, a 1.0 method without A2A-Version and a 0.3 method with 1.0 are refused', async () => {
    const explicit = await rawRpc(s.jsonRpcUrl, { method: 'message/send', params: params03('hi explicit') }, { 'A2A-Version': '0.3' });
    assert.equal((explicit.json.result as { kind: string }).kind, 'task');
    const v10NoHeader = await rawRpc(s.jsonRpcUrl, { method: 'GetTask', params: { id: 'x' } });
    assert.equal(v10NoHeader.json.error?.code, -32009);
    assert.ok(Array.isArray(v10NoHeader.json.error?.data), '1.0-shaped error for a 1.0 method');
    const v03With10 = await rawRpc(s.jsonRpcUrl, { method: 'tasks/get', params: { id: 'x' } }, { 'A2A-Version': '1.0' });
    assert.equal(v03With10.json.error?.code, -32601);
    const v10Old = await v10.call('getTask', { id: 'x' }, { headers: { 'A2A-Version': '0.3' } });
    expectError(v10Old, 'VERSION_NOT_SUPPORTED', { metadata: { requestedVersion: '0.3', supportedVersions: '1.0,0.3', requestShape: '1.0' } });
  });

  test('the legacy A2AClient (0.3) works from the well-known card', async () => {
    const legacy = await A2AClient.fromCardUrl(`${s.url}/.well-known/agent-card.json`);
    const res = await legacy.sendMessage(params03('hi legacy'));
    assert.ok('result' in res, JSON.stringify(res));
    assert.equal(asTask(res.result).status.state, 'completed');
    const missing = await legacy.getTask({ id: 'nope' });
    assert.ok('error' in missing && missing.error.code === -32001);
  });

  test('nothing was reported as an internal error', () => {
    assert.deepEqual(
      s.errors.filter((e) => !(e instanceof Error && /webhook|push/i.test(e.message))),
      [],
    );
  });
});

describe('0.3 SDK client over JSON-RPC, compat off (--no-compat)', () => {
  let s: CompatServer;
  before(async () => {
    s = await startCompatServer({ compat03: false });
  });
  after(() => s.close());

  test('0.3 requests get VersionNotSupported (-32009, 1.0 shape) and nothing runs', async () => {
    const t = new JsonRpcTransport({ endpoint: s.jsonRpcUrl });
    await assert.rejects(t.sendMessage(params03('hi off')), (e: unknown) => {
      const envelope = (e as { errorResponse?: { error: { code: number; data: unknown } } }).errorResponse;
      assert.equal(envelope?.error.code, -32009);
      assert.ok(Array.isArray(envelope?.error.data));
      return true;
    });
    await assert.rejects(collect(t.sendMessageStream(params03('stream off'))), /Invalid response Content-Type for SSE stream/);
    const v10 = jsonRpcBinding(s.jsonRpcUrl);
    assert.equal(ok(await v10.call('listTasks', {})).totalSize, 0);
    expectError(await v10.call('listTasks', {}, { headers: { 'A2A-Version': null } }), 'VERSION_NOT_SUPPORTED', {
      metadata: { requestedVersion: '0.3', supportedVersions: '1.0' },
    });
  });

  test('the well-known card is the 1.0 card only: the 0.3 factory finds no endpoint', async () => {
    await assert.rejects(new ClientFactory().createFromUrl(s.url), /No compatible transport found/);
  });
});
