/**
 * The client against our real server (demo agent) over both bindings: every operation, typed
 * errors whatever the binding (ERR-08), service parameters on every request (VER-02, EXT-02),
 * and the message helpers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  collectTask,
  createClient,
  type A2AClient,
  type A2AError,
  type Task,
} from '../../src/client/index.js';
import { STREAM_CHUNKS } from '../../src/cli/agents/demo.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, record, trace, type Seen } from './helpers.js';

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

function typed<E extends A2AError>(cls: new (...args: never[]) => E, reason: string) {
  return (error: unknown): true => {
    assert.ok(error instanceof cls, `expected ${cls.name}, got ${String(error)}`);
    assert.equal((error as A2AError).reason, reason);
    return true;
  };
}

for (const binding of BINDINGS) {
  describe(`client over ${binding}`, () => {
    let server: TestServer;
    let client: A2AClient;
    let seen: Seen[];

    before(async () => {
      server = await startServer();
      seen = record(server);
      client = await createClient(server.url, { bindings: [binding], cardCache: false, extensions: ['https://example.com/ext/v1'] });
    });
    after(() => server.close());

    test('picks the interface of the binding and reports it', () => {
      assert.equal(client.agentInterface.protocolBinding, binding);
      assert.equal(client.agentInterface.url, binding === 'JSONRPC' ? server.jsonRpcUrl : server.restUrl);
    });

    test('sendMessage: a task, blocking until COMPLETED, with its artifact', async () => {
      const task = taskOf(await client.sendText('hello world'));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hello world' }]);
    });

    test('sendMessage: a direct Message reply', async () => {
      const result = await client.sendText('msg hi there');
      assert.ok('message' in result);
      assert.equal(result.message.role, 'ROLE_AGENT');
      assert.deepEqual(result.message.parts, [{ text: 'hi there' }]);
    });

    test('sendMessage: returnImmediately returns an unfinished task', async () => {
      const task = taskOf(await client.sendText('slow quick', { configuration: { returnImmediately: true } }));
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);
      await client.cancelTask({ id: task.id });
    });

    test('sendStreamingMessage: task first, chunks, COMPLETED; collectTask joins the chunks', async () => {
      const events = await collect(client.streamText('stream story'));
      const kinds = trace(events);
      assert.deepEqual(kinds.slice(0, 2), ['task:SUBMITTED', 'status:WORKING']);
      assert.equal(kinds.at(-1), 'status:COMPLETED');
      assert.equal(kinds.filter((k) => k.startsWith('artifact')).length, STREAM_CHUNKS);
      const task = await collectTask((async function* () { yield* events; })());
      assert.equal(task.artifacts?.length, 1);
      assert.equal(task.artifacts?.[0]?.parts.length, STREAM_CHUNKS);
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    });

    test('sendStreamingMessage: a message-only stream carries exactly one message (STREAM-02)', async () => {
      const events = await collect(client.streamText('msg streamed'));
      assert.deepEqual(trace(events), ['message']);
    });

    test('getTask with historyLength, listTasks with a filter', async () => {
      const created = taskOf(await client.sendText('data {"a":1}'));
      const noHistory = await client.getTask({ id: created.id, historyLength: 0 });
      assert.equal(noHistory.history, undefined);
      assert.deepEqual(noHistory.artifacts?.[0]?.parts[0], { data: { echo: '{"a":1}', length: 7 }, mediaType: 'application/json' });
      const list = await client.listTasks({ contextId: created.contextId as string, includeArtifacts: true });
      assert.deepEqual(list.tasks.map((t) => t.id), [created.id]);
      assert.equal(list.totalSize, 1);
      assert.equal(list.nextPageToken, '');
      assert.ok(list.tasks[0]?.artifacts);
    });

    test('cancelTask, then TaskNotCancelableError', async () => {
      const task = taskOf(await client.sendText('slow cancel me', { configuration: { returnImmediately: true } }));
      const canceled = await client.cancelTask({ id: task.id });
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      await assert.rejects(client.cancelTask({ id: task.id }), typed(TaskNotCancelableError, 'TASK_NOT_CANCELABLE'));
    });

    test('subscribeToTask: snapshot first, then the events to COMPLETED', async () => {
      const task = taskOf(await client.sendText('slow follow', { configuration: { returnImmediately: true } }));
      const events = await collect(client.subscribeToTask({ id: task.id }));
      const kinds = trace(events);
      assert.match(kinds[0] ?? '', /^task:/);
      assert.equal(kinds.at(-1), 'status:COMPLETED');
      await assert.rejects(collect(client.subscribeToTask({ id: task.id })), typed(UnsupportedOperationError, 'UNSUPPORTED_OPERATION'));
    });

    test('multi-turn: INPUT_REQUIRED, then the answer on the same task completes it', async () => {
      const asked = taskOf(await client.sendText('ask your name'));
      assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
      const answered = taskOf(await client.sendText('Ada', { taskId: asked.id }));
      assert.equal(answered.id, asked.id);
      assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
      await assert.rejects(client.sendText('more', { taskId: asked.id }), typed(UnsupportedOperationError, 'UNSUPPORTED_OPERATION'));
    });

    test('the four push configuration operations: create, get, list, delete', async () => {
      const task = taskOf(await client.sendText('ask for a webhook'));
      // Never delivered to: the task stays INPUT_REQUIRED (the test server allows loopback webhooks).
      const url = 'http://127.0.0.1:9/a2a-hook';
      const created = await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'c1', url, token: 't1' });
      assert.deepEqual(created, { id: 'c1', taskId: task.id, url, token: 't1' });
      assert.deepEqual(await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), created);
      assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs, [created]);
      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c1' });
      await assert.rejects(client.getTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), typed(TaskNotFoundError, 'TASK_NOT_FOUND'));
      assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs, []);
    });

    test('the four push configuration operations without the capability: PushNotificationNotSupportedError', async () => {
      const noPush = await startServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
      try {
        const c = await createClient(noPush.url, { bindings: [binding], cardCache: false });
        const task = taskOf(await c.sendText('hi'));
        const check = typed(PushNotificationNotSupportedError, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
        await assert.rejects(c.createTaskPushNotificationConfig({ taskId: task.id, url: 'https://hooks.example.com/a2a' }), check);
        await assert.rejects(c.getTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), check);
        await assert.rejects(c.listTaskPushNotificationConfigs({ taskId: task.id }), check);
        await assert.rejects(c.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), check);
      } finally {
        await noPush.close();
      }
    });

    test('getExtendedAgentCard without the capability: UnsupportedOperationError', async () => {
      await assert.rejects(client.getExtendedAgentCard(), typed(UnsupportedOperationError, 'UNSUPPORTED_OPERATION'));
    });

    test('typed errors: TaskNotFound, InvalidParams (with field violations), ContentTypeNotSupported', async () => {
      await assert.rejects(client.getTask({ id: 'no-such-task' }), (e: unknown) => {
        typed(TaskNotFoundError, 'TASK_NOT_FOUND')(e);
        assert.equal((e as A2AError).metadata.taskId, 'no-such-task');
        return true;
      });
      await assert.rejects(client.listTasks({ pageSize: 0 }), (e: unknown) => {
        typed(InvalidParamsError, 'INVALID_PARAMS')(e);
        assert.deepEqual((e as A2AError).fieldViolations.map((v) => v.field), ['pageSize']);
        return true;
      });
      await assert.rejects(
        client.sendText('look', { file: { bytes: new Uint8Array([0x89, 0x50]), name: 'x.png', mediaType: 'image/png' } }),
        typed(ContentTypeNotSupportedError, 'CONTENT_TYPE_NOT_SUPPORTED'),
      );
      await assert.rejects(client.sendText('hi', { taskId: 'no-such-task' }), typed(TaskNotFoundError, 'TASK_NOT_FOUND'));
    });

    test('helpers: text, data and file parts arrive as built', async () => {
      const bytes = new TextEncoder().encode('héllo');
      const task = taskOf(
        await client.sendText('hi', {
          data: { n: 1 },
          file: [{ bytes, name: 'a.txt', mediaType: 'text/plain' }, { url: 'https://example.com/b.json', mediaType: 'application/json' }],
          metadata: { via: 'test' },
        }),
      );
      const sent = task.history?.[0];
      assert.equal(sent?.role, 'ROLE_USER');
      assert.deepEqual(sent?.parts, [
        { text: 'hi' },
        { data: { n: 1 } },
        { raw: 'aMOpbGxv', filename: 'a.txt', mediaType: 'text/plain' },
        { url: 'https://example.com/b.json', mediaType: 'application/json' },
      ]);
      assert.deepEqual(sent?.metadata, { via: 'test' });
    });

    test('every request carried A2A-Version: 1.0 and the configured A2A-Extensions (VER-02, EXT-02)', () => {
      const calls = seen.filter((s) => !s.path.startsWith('/.well-known/'));
      assert.ok(calls.length > 20);
      for (const s of seen) assert.equal(s.headers['a2a-version'], '1.0', `${s.method} ${s.path}`);
      for (const s of calls) assert.equal(s.headers['a2a-extensions'], 'https://example.com/ext/v1');
      const contentTypes = new Set(calls.filter((s) => s.method === 'POST').map((s) => s.headers['content-type']));
      assert.deepEqual([...contentTypes], [binding === 'JSONRPC' ? 'application/json' : 'application/a2a+json']);
    });

    test('per-call headers and a per-client default header', async () => {
      const withDefault = await createClient(server.card, { bindings: [binding], headers: { 'x-test': 'client' } });
      await withDefault.listTasks({ pageSize: 1 });
      assert.equal(seen.at(-1)?.headers['x-test'], 'client');
      await withDefault.listTasks({ pageSize: 1 }, { headers: { 'X-Test': 'call' } });
      assert.equal(seen.at(-1)?.headers['x-test'], 'call');
    });
  });
}

describe('errors that depend on the agent configuration', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      card: (card) => ({
        ...card,
        capabilities: { ...card.capabilities, extendedAgentCard: true, extensions: [{ uri: 'https://example.com/required/v1', required: true }] },
      }),
      extendedCard: { ...(await import('../../src/cli/agents/demo.js')).demoCard(), name: 'extended demo' },
    });
  });
  after(() => server.close());

  for (const binding of BINDINGS) {
    test(`${binding}: ExtensionSupportRequiredError, then success once the extension is activated; extended card replaces the card`, async () => {
      const plain = await createClient(server.card, { bindings: [binding] });
      await assert.rejects(plain.sendText('hi'), typed(ExtensionSupportRequiredError, 'EXTENSION_SUPPORT_REQUIRED'));
      const client = await createClient(server.card, { bindings: [binding], extensions: ['https://example.com/required/v1'] });
      assert.equal(taskOf(await client.sendText('hi')).status.state, 'TASK_STATE_COMPLETED');
      const extended = await client.getExtendedAgentCard();
      assert.equal(extended.name, 'extended demo');
      assert.equal(client.card.name, 'extended demo');
    });
  }
});

describe('VersionNotSupportedError', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ handler: { supportedVersions: ['0.3'] } });
  });
  after(() => server.close());

  for (const binding of BINDINGS) {
    test(`${binding}: a server that does not speak 1.0 answers with the typed error (VER-09: client pinned to 1.0, no 0.3 fallback)`, async () => {
      const client = await createClient(server.card, { bindings: [binding], versions: ['1.0'] });
      await assert.rejects(client.getTask({ id: 'x' }), (e: unknown) => {
        typed(VersionNotSupportedError, 'VERSION_NOT_SUPPORTED')(e);
        assert.equal((e as A2AError).metadata.requestedVersion, '1.0');
        return true;
      });
      await assert.rejects(collect(client.streamText('stream x')), typed(VersionNotSupportedError, 'VERSION_NOT_SUPPORTED'));
    });
  }
});
