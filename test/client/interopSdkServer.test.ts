/**
 * Interop: our client against the OFFICIAL A2A JS SDK (@a2a-js/sdk 1.3) server — its
 * DefaultRequestHandler with in-memory task and push stores, and its Express apps for the
 * agent card, JSON-RPC and HTTP+JSON — over both bindings, for every operation both support
 * (all eleven: the SDK server implements push configuration and the extended card).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  A2AError,
  CardCache,
  TaskNotCancelableError,
  TaskNotFoundError,
  collectTask,
  createClient,
  type A2AClient,
  type Task,
} from '../../src/client/index.js';
import { startSdkServer, type SdkServer } from '../support/sdkServer.js';
import { BINDINGS, collect, trace } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

describe('our client against the official SDK server', () => {
  let sdk: SdkServer;
  let hookUrl: string;
  before(async () => {
    sdk = await startSdkServer();
    hookUrl = sdk.hookUrl;
  });
  after(() => sdk.close());

  test('the card is resolved from the SDK well-known route and revalidated with its ETag', async () => {
    const statuses: number[] = [];
    // Without a lifetime the cached card is revalidated on every use (CACHE-05).
    const fetch = async (input: string, init: RequestInit) => {
      const res = await globalThis.fetch(input, init);
      statuses.push(res.status);
      const headers = new Headers(res.headers);
      headers.delete('cache-control');
      return new Response(res.status === 304 ? null : await res.text(), { status: res.status, headers });
    };
    const cache = new CardCache();
    const client = await createClient(sdk.url, { cardCache: cache, fetch });
    assert.equal(client.card.name, 'SDK agent');
    assert.equal(client.agentInterface.protocolBinding, 'JSONRPC', "the card's first interface");
    const again = await createClient(sdk.url, { cardCache: cache, fetch });
    assert.deepEqual(again.card, client.card);
    assert.deepEqual(statuses, [200, 304]);
  });

  for (const binding of BINDINGS) {
    describe(`over ${binding}`, () => {
      let client: A2AClient;
      before(async () => {
        client = await createClient(sdk.url, { bindings: [binding], cardCache: false });
      });

      test('sendMessage: a completed task, and a direct message', async () => {
        const task = taskOf(await client.sendText('hi sdk'));
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
        assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hi sdk' }]);
        const reply = await client.sendText('msg hello');
        assert.ok('message' in reply);
        assert.deepEqual(reply.message.parts, [{ text: 'hello' }]);
      });

      test('sendStreamingMessage: chunks assembled into one artifact; a message stream', async () => {
        const events = await collect(client.streamText('stream it'));
        assert.equal(trace(events)[0], 'task:SUBMITTED');
        assert.equal(trace(events).at(-1), 'status:COMPLETED');
        const task = await collectTask((async function* () { yield* events; })());
        assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'chunk 1 ' }, { text: 'chunk 2 ' }, { text: 'chunk 3 ' }]);
        assert.deepEqual(trace(await collect(client.streamText('msg streamed'))), ['message']);
      });

      test('getTask, listTasks', async () => {
        const task = taskOf(await client.sendText('hi list'));
        const got = await client.getTask({ id: task.id, historyLength: 0 });
        assert.equal(got.id, task.id);
        assert.equal(got.history?.length ?? 0, 0);
        const list = await client.listTasks({ contextId: task.contextId as string });
        assert.deepEqual(list.tasks.map((t) => t.id), [task.id]);
        await assert.rejects(client.getTask({ id: 'no-such-task' }), (e: unknown) => e instanceof TaskNotFoundError);
      });

      test('multi-turn: INPUT_REQUIRED, then the answer completes the task', async () => {
        const asked = taskOf(await client.sendText('ask colour'));
        assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
        const done = taskOf(await client.sendText('blue', { taskId: asked.id, contextId: asked.contextId as string }));
        assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
      });

      test('subscribeToTask and waitForTask on a running task; cancelTask, then TaskNotCancelable', async () => {
        const running = taskOf(await client.sendText('slow one', { configuration: { returnImmediately: true } }));
        const events = await collect(client.subscribeToTask({ id: running.id }));
        assert.match(trace(events)[0] ?? '', /^task:/);
        assert.equal(trace(events).at(-1), 'status:COMPLETED');
        const second = taskOf(await client.sendText('slow two', { configuration: { returnImmediately: true } }));
        assert.equal((await client.waitForTask(second.id)).status.state, 'TASK_STATE_COMPLETED');
        const third = taskOf(await client.sendText('slow three', { configuration: { returnImmediately: true } }));
        await sleep(30);
        assert.equal((await client.cancelTask({ id: third.id })).status.state, 'TASK_STATE_CANCELED');
        // A11: the SDK answers a repeated cancel with the canceled task; a completed task is not cancelable.
        assert.equal((await client.cancelTask({ id: third.id })).status.state, 'TASK_STATE_CANCELED');
        const completed = taskOf(await client.sendText('hi done'));
        await assert.rejects(client.cancelTask({ id: completed.id }), (e: unknown) => e instanceof TaskNotCancelableError);
      });

      test('push notification configs: create, get, list, delete', async () => {
        const task = taskOf(await client.sendText('slow pushed', { configuration: { returnImmediately: true } }));
        const created = await client.createTaskPushNotificationConfig({ taskId: task.id, url: hookUrl, token: 'tok' });
        assert.equal(created.taskId, task.id);
        assert.equal(created.url, hookUrl);
        assert.ok(created.id);
        const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id as string });
        assert.equal(got.url, hookUrl);
        const list = await client.listTaskPushNotificationConfigs({ taskId: task.id });
        assert.deepEqual(list.configs?.map((c) => c.id), [created.id]);
        assert.deepEqual(await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id as string }), {});
        const after = await client.listTaskPushNotificationConfigs({ taskId: task.id });
        assert.equal(after.configs?.length ?? 0, 0);
        await client.cancelTask({ id: task.id });
      });

      test('getExtendedAgentCard', async () => {
        const extended = await client.getExtendedAgentCard();
        assert.equal(extended.name, 'SDK agent (extended)');
      });

      test('tenant: requests carry it and the SDK scopes tasks by it', async () => {
        const card = { ...sdk.card, supportedInterfaces: sdk.card.supportedInterfaces.map((i) => ({ ...i, tenant: 'acme' })) };
        const acme = await createClient(card, { bindings: [binding] });
        const task = taskOf(await acme.sendText('hi tenant'));
        assert.equal((await acme.getTask({ id: task.id })).id, task.id);
        await assert.rejects(client.getTask({ id: task.id }), (e: unknown) => A2AError.is(e) && e.reason === 'TASK_NOT_FOUND');
      });
    });
  }
});
