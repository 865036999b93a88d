/**
 * Interop: our client against the OFFICIAL A2A JS SDK (@a2a-js/sdk 1.3) server — its
 * DefaultRequestHandler with in-memory task and push stores, and its Express apps for the
 * agent card, JSON-RPC and HTTP+JSON — over both bindings, for every operation both support
 * (all eleven: the SDK server implements push configuration and the extended card).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard as SdkAgentCard, Message as SdkMessage, Task as SdkTask, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import {
  A2AError,
  CardCache,
  TaskNotCancelableError,
  TaskNotFoundError,
  collectTask,
  createClient,
  type A2AClient,
  type AgentCard,
  type Task,
} from '../../src/client/index.js';
import { BINDINGS, collect, trace } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small agent written against the SDK: hi (echo), msg, stream, ask, slow (cancelable). */
function sdkAgent(): AgentExecutor {
  const canceled = new Set<string>();
  let n = 0;
  const id = () => `sdk-${process.pid}-${++n}`;
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const message = SdkMessage.toJSON(ctx.userMessage) as { parts: { text?: string }[] };
      const text = message.parts.map((p) => p.text ?? '').join(' ').trim();
      const { taskId, contextId } = ctx;
      const status = (state: string, note?: string) =>
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              taskId,
              contextId,
              status: {
                state,
                timestamp: new Date().toISOString(),
                ...(note ? { message: { messageId: id(), role: 'ROLE_AGENT', parts: [{ text: note }], taskId, contextId } } : {}),
              },
            }),
          ),
        );
      const artifact = (artifactId: string, chunk: string, flags: { append?: boolean; lastChunk?: boolean } = {}) =>
        bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId, name: 'out', parts: [{ text: chunk }] }, ...flags })));

      if (text.startsWith('msg ')) {
        bus.publish(AgentEvent.message(SdkMessage.fromJSON({ messageId: id(), role: 'ROLE_AGENT', contextId, parts: [{ text: text.slice(4) }] })));
        return;
      }
      const prior = ctx.task ? (SdkTask.toJSON(ctx.task) as Task) : undefined;
      if (ctx.task && prior?.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        bus.publish(AgentEvent.task(ctx.task));
        artifact('answer', text);
        status('TASK_STATE_COMPLETED');
        return;
      }
      bus.publish(AgentEvent.task(SdkTask.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() }, history: [SdkMessage.toJSON(ctx.userMessage)] })));
      status('TASK_STATE_WORKING');
      if (text.startsWith('stream ')) {
        for (let i = 1; i <= 3; i++) {
          await sleep(5);
          artifact('s', `chunk ${i} `, { append: i > 1, lastChunk: i === 3 });
        }
      } else if (text.startsWith('ask ')) {
        status('TASK_STATE_INPUT_REQUIRED', `${text.slice(4)}?`);
        return;
      } else if (text.startsWith('slow ')) {
        for (let i = 0; i < 60; i++) {
          await sleep(20);
          if (canceled.has(taskId)) return;
          if (i % 10 === 0) status('TASK_STATE_WORKING', `step ${i}`);
        }
        artifact('slow', 'done');
      } else {
        artifact('echo', text);
      }
      status('TASK_STATE_COMPLETED');
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      canceled.add(taskId);
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() } })));
    },
  };
}

interface SdkServer {
  url: string;
  /** A webhook receiver for push notifications. */
  hookUrl: string;
  card: AgentCard;
  webhooks: unknown[];
  close(): Promise<void>;
}

async function startSdkServer(): Promise<SdkServer> {
  const webhooks: unknown[] = [];
  const hookServer: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      webhooks.push(JSON.parse(body || 'null'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  const app = express();
  const http = createServer(app);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'SDK agent',
    description: 'An agent served by the official SDK',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
  };
  const handler = new DefaultRequestHandler(
    SdkAgentCard.fromJSON(card),
    new InMemoryTaskStore(),
    sdkAgent(),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    // A provider function: a static extended card is only given to authenticated users.
    async () => SdkAgentCard.fromJSON({ ...card, name: 'SDK agent (extended)' }),
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    hookUrl: `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`,
    card,
    webhooks,
    close: async () => {
      http.closeAllConnections();
      hookServer.closeAllConnections();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => hookServer.close(r))]);
    },
  };
}

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
