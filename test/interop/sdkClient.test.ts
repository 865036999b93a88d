/**
 * Interop: the OFFICIAL A2A JS SDK client (@a2a-js/sdk 1.3.0) against our server (demo agent),
 * over real sockets, once per binding: JSON-RPC and HTTP+JSON (REST).
 *
 * SDK client surface (dist/client/index.d.ts, `Client` from ClientFactory):
 *   getAgentCard ............................ covered (public card; extended card over the wire)
 *   sendMessage ............................. covered (task, message, historyLength, returnImmediately, polling,
 *                                             multi-turn, push config in the request, errors)
 *   sendMessageStream ....................... covered (task + 10 chunks + completed; message; follow-up; error)
 *   getTask (historyLength) ................. covered
 *   listTasks (contextId, status, pageSize/pageToken, historyLength, includeArtifacts,
 *             statusTimestampAfter) ......... covered
 *   cancelTask .............................. covered (slow → CANCELED; again → TaskNotCancelable)
 *   resubscribeTask (SubscribeToTask) ....... covered (snapshot first, ends when canceled; terminal → error)
 *   create/get/list/deleteTaskPushNotificationConfig  covered: our demo card declares pushNotifications, so the
 *                                             Client creates (server id and client id), gets, lists (JSON-RPC also
 *                                             pages), deletes (twice) configs; unknown task → TaskNotFound, bad URL →
 *                                             RequestMalformedError(INVALID_PARAMS)
 *   push deliveries ......................... covered: configuration.taskPushNotificationConfig on sendMessage and
 *                                             ClientConfig.pushNotificationConfig on sendMessageStream → a loopback
 *                                             webhook receives the task's events; the bodies decode with the SDK's
 *                                             StreamResponse model
 *   push on a card without pushNotifications  covered: the Client refuses create/get/list locally (no request is
 *                                             sent); delete and the same calls on `client.transport` reach our
 *                                             server → typed PushNotificationNotSupported; so does an inline config
 *   Transport.getExtendedAgentCard .......... covered (extendedAgentCard:false → UnsupportedOperation)
 * Also: DefaultAgentCardResolver on /.well-known/agent-card.json, transport selection
 * (card order vs preferredTransports), A2A-Version: 1.0 on every Client request, the `tenant`
 * request field, typed error classes (JsonRpc*Error.envelopeCode / Rest*Error.statusCode).
 * Mid-stream SSE errors: sdkClientStreamErrors.test.ts. The 0.3 SDK: sdkClient03.test.ts.
 * No SDK method needed a `todo`: every one works against our server as the SDK intends.
 *
 * SDK quirks seen (not bugs in our server):
 *  - Client.createTaskPushNotificationConfig/get/list throw the SDK's base PushNotificationNotSupportedError
 *    client-side when card.capabilities.pushNotifications is not true; delete is not gated.
 *  - Its REST transport sends ListTaskPushNotificationConfigs without pageSize/pageToken (the JSON-RPC one
 *    passes them), so REST paging of configs is only covered by our own suites.
 *  - INVALID_PARAMS has no class of its own: it arrives as RequestMalformedError with reason INVALID_PARAMS.
 *  - ClientConfig.pushNotificationConfig is added to every message the Client sends that has no config of its own.
 *  - Client.getAgentCard() only calls GetExtendedAgentCard when the card declares extendedAgentCard.
 *  - The A2A-Version header is added by Client, not by the transports: calling `client.transport.*`
 *    without serviceParameters sends no A2A-Version, which a 1.0 server must read as 0.3
 *    (VersionNotSupportedError -32009); asserted below.
 *  - REST SubscribeToTask is sent as POST /tasks/{id}:subscribe (spec text); the proto says GET. We serve both.
 *  - The SDK maps TaskNotCancelable to HTTP 400 (FAILED_PRECONDITION), as we do; REST error bodies
 *    arrive as application/a2a+json and are decoded from ErrorInfo.reason, JSON-RPC ones from the code.
 *  - JSON-RPC errors that arrive *inside* an SSE stream surface as a plain Error with the typed
 *    error in `cause` (JsonRpcTransport._processSseEventData); REST raises a typed error only for
 *    frames marked `event: error` (see sdkClientStreamErrors.test.ts — our server omits it: bug).
 *    Errors found before the stream starts come back as ordinary responses, so tests see typed errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SubscribeToTaskRequest,
  StreamResponse,
  TaskPushNotificationConfig,
  type Message,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, ServiceParameters, withA2AVersion, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import * as sdkErrors from '@a2a-js/sdk/errors';
import {
  ERR,
  EXTENDED_NAME_SUFFIX,
  TaskState,
  asTask,
  collect,
  kinds,
  sdkClient,
  startDemoServer,
  stateName,
  textOf,
  typedError,
  userMessage,
  type Binding,
  type Fixture,
} from './support.js';
import { sdkPushCrud } from './sdkPushCrud.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhookReceiver.js';

const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON'];
const PATH: Record<Binding, string> = { JSONRPC: '/a2a/jsonrpc', 'HTTP+JSON': '/a2a/rest' };
/** For calls made on `client.transport` directly (the Client normally adds this header). */
const V1: RequestOptions = { serviceParameters: ServiceParameters.create(withA2AVersion('1.0')) };

const chunkTexts = (rest: string) => Array.from({ length: 10 }, (_, i) => `chunk ${i + 1}/10: ${rest}\n`);

for (const binding of BINDINGS) {
  describe(`@a2a-js/sdk client over ${binding}`, () => {
    let f: Fixture;
    let client: Client;
    const slowIds: string[] = [];
    const slow = async (c: Client, text: string) => {
      const task = asTask(await c.sendMessage(userMessage(`slow ${text}`, { configuration: { returnImmediately: true } })));
      slowIds.push(task.id);
      return task;
    };

    let hook: Receiver;

    before(async () => {
      f = await startDemoServer({ slowMs: 60_000, tickMs: 100 });
      client = await sdkClient(f, binding);
      hook = await startReceiver();
    });
    after(async () => {
      for (const id of slowIds) await client.cancelTask(CancelTaskRequest.fromJSON({ id })).catch(() => undefined);
      await f.close();
      await hook.close();
    });

    test('resolves our card from /.well-known/agent-card.json and picks the binding', async () => {
      const resolved = await new DefaultAgentCardResolver().resolve(f.server.url);
      assert.deepEqual(resolved, JSON.parse(JSON.stringify(f.card)));
      assert.equal(client.transport.protocolName, binding);
      assert.equal(client.protocolVersion, '1.0');
      const card = await client.getAgentCard();
      assert.equal(card.name, 'a2a-kit demo agent');
      assert.deepEqual(
        card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion]),
        [
          ['JSONRPC', `${f.server.url}/a2a/jsonrpc`, '1.0'],
          ['HTTP+JSON', `${f.server.url}/a2a/rest`, '1.0'],
        ],
      );
      assert.equal(f.seen[0]?.path, '/.well-known/agent-card.json');
      assert.equal(f.seen[0]?.a2aVersion, '1.0');
    });

    test('sendMessage: "hi" → completed task with an "echo" artifact', async () => {
      const task = asTask(await client.sendMessage(userMessage('hi there')));
      assert.equal(stateName(task.status?.state), 'TASK_STATE_COMPLETED');
      assert.equal(task.artifacts.length, 1);
      assert.equal(task.artifacts[0]?.name, 'echo');
      assert.equal(textOf(task.artifacts[0]?.parts), 'hi there');
      assert.equal(textOf(task.history[0]?.parts), 'hi there');
      assert.ok(task.contextId);
      const trimmed = asTask(await client.sendMessage(userMessage('hi again', { configuration: { historyLength: 0 } })));
      assert.deepEqual(trimmed.history, []);
      assert.equal(textOf(trimmed.artifacts[0]?.parts), 'hi again');
    });

    test('sendMessage: "msg" → a direct Message (no task)', async () => {
      const result = await client.sendMessage(userMessage('msg hello sdk'));
      assert.ok('messageId' in result, `expected a Message, got ${JSON.stringify(result)}`);
      const message = result as Message;
      assert.equal(message.role, 2 /* ROLE_AGENT */);
      assert.equal(textOf(message.parts), 'hello sdk');
      assert.equal(message.taskId, '');
    });

    test('sendMessage: data, file, fail, reject decode into the SDK model', async () => {
      const data = asTask(await client.sendMessage(userMessage('data abc')));
      assert.deepEqual(data.artifacts[0]?.parts[0]?.content, { $case: 'data', value: { echo: 'abc', length: 3 } });
      assert.equal(data.artifacts[0]?.parts[0]?.mediaType, 'application/json');
      const file = asTask(await client.sendMessage(userMessage('file héllo')));
      const part = file.artifacts[0]?.parts[0];
      assert.equal(part?.content?.$case, 'raw');
      assert.equal(Buffer.from(part?.content?.value as Buffer).toString('utf8'), 'héllo');
      assert.equal(part?.filename, 'echo.txt');
      const failed = asTask(await client.sendMessage(userMessage('fail boom')));
      assert.equal(stateName(failed.status?.state), 'TASK_STATE_FAILED');
      assert.equal(textOf(failed.status?.message?.parts), 'Failed as requested: boom');
      const rejected = asTask(await client.sendMessage(userMessage('reject nope')));
      assert.equal(stateName(rejected.status?.state), 'TASK_STATE_REJECTED');
    });

    test('sendMessage: returnImmediately / ClientConfig.polling return a non-terminal task', async () => {
      const explicit = await slow(client, 'explicit');
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(stateName(explicit.status?.state)));
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding], clientConfig: { polling: true } }),
      );
      const polling = await factory.createFromUrl(f.server.url);
      const task = asTask(await polling.sendMessage(userMessage('slow polled')));
      slowIds.push(task.id);
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(stateName(task.status?.state)));
    });

    test('multi-turn: "ask" → INPUT_REQUIRED; follow-up (streamed) completes the same task', async () => {
      const first = asTask(await client.sendMessage(userMessage('ask your name')));
      assert.equal(stateName(first.status?.state), 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(textOf(first.status?.message?.parts), 'your name?');
      const events = await collect(client.sendMessageStream(userMessage('Ada', { taskId: first.id })));
      const trace = kinds(events);
      assert.equal(trace[0], 'task:INPUT_REQUIRED');
      assert.equal(trace[trace.length - 1], 'status:COMPLETED');
      const done = await client.getTask(GetTaskRequest.fromJSON({ id: first.id }));
      assert.equal(stateName(done.status?.state), 'TASK_STATE_COMPLETED');
      assert.equal(done.artifacts[0]?.name, 'answer');
      assert.equal(textOf(done.artifacts[0]?.parts), 'Ada');
    });

    test('sendMessageStream: task, WORKING, 10 artifact chunks that assemble, COMPLETED', async () => {
      const events: StreamResponse[] = await collect(client.sendMessageStream(userMessage('stream a story')));
      assert.deepEqual(kinds(events), [
        'task:SUBMITTED',
        'status:WORKING',
        'artifact',
        ...Array(8).fill('artifact+'),
        'artifact+!',
        'status:COMPLETED',
      ]);
      const first = events[0]?.payload;
      assert.equal(first?.$case, 'task');
      const taskId = first?.$case === 'task' ? first.value.id : '';
      const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
      assert.ok(chunks.every((c) => c.taskId === taskId && c.artifact?.artifactId === chunks[0]?.artifact?.artifactId));
      assert.deepEqual(
        chunks.map((c) => textOf(c.artifact?.parts)),
        chunkTexts('a story'),
      );
      const stored = await client.getTask(GetTaskRequest.fromJSON({ id: taskId }));
      assert.equal(textOf(stored.artifacts[0]?.parts), chunkTexts('a story').join(''));
    });

    test('sendMessageStream: "msg" → a single Message event', async () => {
      const events = await collect(client.sendMessageStream(userMessage('msg streamed')));
      assert.deepEqual(kinds(events), ['message']);
      const p = events[0]?.payload;
      assert.equal(p?.$case === 'message' ? textOf(p.value.parts) : '', 'streamed');
    });

    test('getTask honours historyLength', async () => {
      const task = asTask(await client.sendMessage(userMessage('hi history')));
      const full = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      assert.equal(full.id, task.id);
      assert.ok(full.history.length >= 1);
      assert.equal(textOf(full.history[0]?.parts), 'hi history');
      const none = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 0 }));
      assert.deepEqual(none.history, []);
      const one = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 1 }));
      assert.equal(one.history.length, 1);
      assert.deepEqual(one.history[0], full.history[full.history.length - 1]);
      assert.equal(textOf(one.artifacts[0]?.parts), 'hi history');
    });

    test('listTasks: contextId, status, pagination, historyLength, includeArtifacts, statusTimestampAfter', async () => {
      const contextId = `sdk-list-${binding}-${Date.now()}`;
      const ids: string[] = [];
      for (const text of ['hi one', 'hi two', 'hi three', 'fail four']) {
        ids.push(asTask(await client.sendMessage(userMessage(text, { contextId }))).id);
      }
      const all = await client.listTasks(ListTasksRequest.fromJSON({ contextId }));
      assert.equal(all.totalSize, 4);
      assert.deepEqual(all.tasks.map((t) => t.id).sort(), [...ids].sort());
      assert.ok(all.tasks.every((t) => t.contextId === contextId && t.artifacts.length === 0), 'artifacts omitted by default');
      assert.equal(all.nextPageToken, '');
      const stamps = all.tasks.map((t) => t.status?.timestamp ?? '');
      assert.deepEqual(stamps, [...stamps].sort().reverse(), 'newest status first');

      const completed = await client.listTasks(ListTasksRequest.fromJSON({ contextId, status: 'TASK_STATE_COMPLETED' }));
      assert.equal(completed.totalSize, 3);
      assert.ok(completed.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_COMPLETED));

      const page1 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 3 }));
      assert.equal(page1.tasks.length, 3);
      assert.equal(page1.pageSize, 3);
      assert.equal(page1.totalSize, 4);
      assert.notEqual(page1.nextPageToken, '');
      const page2 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 3, pageToken: page1.nextPageToken }));
      assert.equal(page2.tasks.length, 1);
      assert.equal(page2.nextPageToken, '');
      assert.deepEqual([...page1.tasks, ...page2.tasks].map((t) => t.id).sort(), [...ids].sort());

      const shaped = await client.listTasks(ListTasksRequest.fromJSON({ contextId, historyLength: 0, includeArtifacts: true, status: 'TASK_STATE_COMPLETED' }));
      assert.ok(shaped.tasks.every((t) => t.history.length === 0));
      assert.deepEqual(shaped.tasks.map((t) => textOf(t.artifacts[0]?.parts)).sort(), ['hi one', 'hi three', 'hi two']);

      const future = new Date(Date.now() + 3_600_000).toISOString();
      const none = await client.listTasks(ListTasksRequest.fromJSON({ contextId, statusTimestampAfter: future }));
      assert.equal(none.tasks.length, 0);
      assert.equal(none.totalSize, 0);
    });

    test('cancelTask on a running "slow" task → CANCELED; again → TaskNotCancelableError', async () => {
      const task = await slow(client, 'to cancel');
      const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
      assert.equal(canceled.id, task.id);
      assert.equal(stateName(canceled.status?.state), 'TASK_STATE_CANCELED');
      const stored = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      assert.equal(stateName(stored.status?.state), 'TASK_STATE_CANCELED');
      await assert.rejects(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })), typedError(binding, ERR.taskNotCancelable));
    });

    test('resubscribeTask on a running task: snapshot first, progress, ends when canceled', async () => {
      const task = await slow(client, 'to watch');
      const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }))[Symbol.asyncIterator]();
      const first = (await stream.next()).value as StreamResponse;
      assert.equal(first.payload?.$case, 'task');
      assert.equal(first.payload?.$case === 'task' ? first.payload.value.id : '', task.id);
      assert.ok(['task:SUBMITTED', 'task:WORKING'].includes(kinds([first])[0] as string));
      let next = (await stream.next()).value as StreamResponse;
      assert.equal(kinds([next])[0], 'status:WORKING');
      await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
      const rest: StreamResponse[] = [];
      for (let r = await stream.next(); !r.done; r = await stream.next()) rest.push(r.value);
      next = rest[rest.length - 1] as StreamResponse;
      assert.equal(kinds([next])[0], 'status:CANCELED');
      assert.equal(next.payload?.$case === 'statusUpdate' ? next.payload.value.taskId : '', task.id);
    });

    test('errors: unknown task → TaskNotFoundError; terminal task → UnsupportedOperationError', async () => {
      await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })), typedError(binding, ERR.taskNotFound));
      await assert.rejects(client.cancelTask(CancelTaskRequest.fromJSON({ id: 'no-such-task' })), typedError(binding, ERR.taskNotFound));
      await assert.rejects(collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: 'no-such-task' }))), typedError(binding, ERR.taskNotFound));
      const done = asTask(await client.sendMessage(userMessage('hi done')));
      await assert.rejects(client.sendMessage(userMessage('more', { taskId: done.id })), typedError(binding, ERR.unsupported));
      await assert.rejects(collect(client.sendMessageStream(userMessage('more', { taskId: done.id }))), typedError(binding, ERR.unsupported));
      await assert.rejects(collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: done.id }))), typedError(binding, ERR.unsupported));
    });

    test('PUSH-02..07 the SDK Client creates, gets, lists and deletes push configs on our server', async () => {
      const task = asTask(await client.sendMessage(userMessage('ask for a webhook')));
      assert.equal(stateName(task.status?.state), 'TASK_STATE_INPUT_REQUIRED');
      const url = `${hook.url}/${binding}/crud`;
      // The SDK's REST transport sends no pageSize/pageToken for this call (see the header): paging only over JSON-RPC.
      const { created, listed, deleted } = await sdkPushCrud(client, task.id, url, 'sdk', { notFound: typedError(binding, ERR.taskNotFound), paged: binding === 'JSONRPC' });
      assert.deepEqual(listed.configs.find((c) => c.id === created.id), created);
      assert.equal(deleted, undefined);
      await assert.rejects(
        client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: 'no-such-task' })),
        typedError(binding, ERR.taskNotFound),
      );
      // An invalid config comes back as the SDK's RequestMalformedError with reason INVALID_PARAMS.
      const bad = TaskPushNotificationConfig.fromJSON({ taskId: task.id, url: 'ftp://127.0.0.1/hook' });
      await assert.rejects(client.createTaskPushNotificationConfig(bad), (err: unknown) => {
        assert.ok(err instanceof sdkErrors.RequestMalformedError, String(err));
        assert.equal(err.reason, 'INVALID_PARAMS');
        return true;
      });
    });

    test('MSG-07 PUSHD-01..03 a message sent with configuration.taskPushNotificationConfig → deliveries on the webhook', async () => {
      const path = `/webhook/${binding}/deliver`;
      const origin = new URL(hook.url).origin;
      const config = { url: origin + path, token: 'sdk-notify', authentication: { scheme: 'Bearer', credentials: 'sdk-hook' } };
      const task = asTask(await client.sendMessage(userMessage('hi via sdk push', { configuration: { taskPushNotificationConfig: config } })));
      assert.equal(stateName(task.status?.state), 'TASK_STATE_COMPLETED');
      const got = await deliveriesOf(hook, path);
      assert.ok(got.every((r) => r.headers.authorization === 'Bearer sdk-hook' && r.headers['x-a2a-notification-token'] === 'sdk-notify'));
      assert.ok(got.every((r) => r.headers['content-type'] === 'application/a2a+json' && r.headers['a2a-task-id'] === task.id));
      // The bodies decode with the SDK's own StreamResponse model.
      const events = got.map((r) => StreamResponse.fromJSON(r.json));
      const trace = kinds(events);
      assert.match(trace[0] as string, /^task:/, JSON.stringify(trace));
      assert.equal(trace.at(-1), 'status:COMPLETED');
      const last = events.at(-1)?.payload;
      assert.equal(last?.$case === 'statusUpdate' ? last.value.taskId : '', task.id);
      const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
      assert.deepEqual(
        listed.configs.map((c) => c.url),
        [config.url],
      );

      // ClientConfig.pushNotificationConfig: the Client adds it to every message it sends.
      const defaultPath = `/webhook/${binding}/client-config`;
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          preferredTransports: [binding],
          clientConfig: { pushNotificationConfig: TaskPushNotificationConfig.fromJSON({ url: origin + defaultPath }) },
        }),
      );
      const withDefault = await factory.createFromUrl(f.server.url);
      const streamed = await collect(withDefault.sendMessageStream(userMessage('stream with a default webhook')));
      assert.equal(kinds(streamed).at(-1), 'status:COMPLETED');
      const pushed = kinds((await deliveriesOf(hook, defaultPath)).map((r) => StreamResponse.fromJSON(r.json)));
      assert.deepEqual(pushed.slice(1), kinds(streamed).slice(1), 'PUSHD-09 D5: the webhook gets what the stream got');
    });

    test('GetExtendedAgentCard: getAgentCard() stays local; the wire call → UnsupportedOperationError', async () => {
      const before = f.seen.length;
      assert.equal((await client.getAgentCard()).name, 'a2a-kit demo agent');
      assert.equal(f.seen.length, before, 'no request: the card has extendedAgentCard:false');
      await assert.rejects(client.transport.getExtendedAgentCard({ tenant: '' }, V1), typedError(binding, ERR.unsupported));
    });

    test('a bare transport call (no A2A-Version) is read as 0.3 → VersionNotSupportedError', async () => {
      await assert.rejects(client.transport.getTask(GetTaskRequest.fromJSON({ id: 'x' })), typedError(binding, ERR.versionNotSupported));
    });

    test('tenant: requests carrying a tenant are scoped to it', async () => {
      const sent = userMessage('hi tenant');
      sent.tenant = 'acme';
      const task = asTask(await client.sendMessage(sent));
      const got = await client.getTask(GetTaskRequest.fromJSON({ tenant: 'acme', id: task.id }));
      assert.equal(textOf(got.artifacts[0]?.parts), 'hi tenant');
      const listed = await client.listTasks(ListTasksRequest.fromJSON({ tenant: 'acme' }));
      assert.deepEqual(listed.tasks.map((t) => t.id), [task.id]);
      await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: task.id })), typedError(binding, ERR.taskNotFound));
      if (binding === 'HTTP+JSON') assert.equal(f.seen[f.seen.length - 1]?.path, `/a2a/rest/tasks/${task.id}`);
      assert.ok(f.seen.some((r) => r.path === (binding === 'JSONRPC' ? '/a2a/jsonrpc' : `/a2a/rest/acme/tasks/${task.id}`)));
    });

    test('every Client request carried A2A-Version: 1.0 and went to the chosen binding', () => {
      const viaClient = f.seen.filter((r) => r.a2aVersion !== undefined);
      assert.equal(f.seen.length - viaClient.length, 1, 'only the bare transport call lacked the header');
      assert.ok(viaClient.every((r) => r.a2aVersion === '1.0'));
      const rpc = f.seen.filter((r) => r.path !== '/.well-known/agent-card.json');
      assert.ok(rpc.length > 20);
      assert.ok(rpc.every((r) => r.path.startsWith(PATH[binding])), JSON.stringify(rpc.map((r) => r.path)));
    });

    test('extended card: getAgentCard() fetches it when the card declares it', async () => {
      const ext = await startDemoServer({ extendedCard: true });
      try {
        const c = await sdkClient(ext, binding);
        const card = await c.getAgentCard();
        assert.equal(card.name, `a2a-kit demo agent${EXTENDED_NAME_SUFFIX}`);
        assert.equal(card.capabilities?.extendedAgentCard, true);
        const call = ext.seen[ext.seen.length - 1];
        assert.equal(call?.path, binding === 'JSONRPC' ? '/a2a/jsonrpc' : '/a2a/rest/extendedAgentCard');
        assert.equal(call?.a2aVersion, '1.0');
      } finally {
        await ext.close();
      }
    });
  });
}

for (const binding of BINDINGS) {
  describe(`@a2a-js/sdk client over ${binding}, card without pushNotifications`, () => {
    let f: Fixture;
    let client: Client;
    before(async () => {
      f = await startDemoServer({ pushNotifications: false });
      client = await sdkClient(f, binding);
    });
    after(() => f.close());

    test('CAP-02 PUSH-01 D2 push notification configs → PushNotificationNotSupportedError', async () => {
      const task = asTask(await client.sendMessage(userMessage('hi push')));
      const before = f.seen.length;
      // The Client refuses these itself: the card says pushNotifications:false. No request is sent.
      const local = (err: unknown) => err instanceof sdkErrors.PushNotificationNotSupportedError && !sdkErrors.isJsonRpcError(err) && !sdkErrors.isRestError(err);
      const config = TaskPushNotificationConfig.fromJSON({ taskId: task.id, url: 'https://example.com/hook' });
      assert.throws(() => client.createTaskPushNotificationConfig(config), local);
      assert.throws(() => client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: 'c1' })), local);
      assert.throws(() => client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id })), local);
      assert.equal(f.seen.length, before);
      // Over the wire, our server answers each with the typed error (-32003 / HTTP 400).
      const pushErr = typedError(binding, ERR.pushNotSupported);
      await assert.rejects(client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: 'c1' })), pushErr);
      await assert.rejects(client.transport.createTaskPushNotificationConfig(config, V1), pushErr);
      await assert.rejects(client.transport.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: 'c1' }), V1), pushErr);
      await assert.rejects(client.transport.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }), V1), pushErr);
      const withPush = userMessage('hi', { configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } } });
      await assert.rejects(client.sendMessage(withPush), pushErr);
      assert.equal(f.seen.length, before + 5);
    });
  });
}

/** The deliveries that reached `path`, once the COMPLETED status update is among them. */
async function deliveriesOf(hook: Receiver, path: string): Promise<ReceivedRequest[]> {
  const mine = (all: ReceivedRequest[]) => all.filter((r) => r.path === path);
  await hook.waitUntil((all) => mine(all).some((r) => r.json?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), 10_000);
  return mine(hook.requests);
}

test('transport selection: card order by default, preferredTransports overrides', async () => {
  const f = await startDemoServer();
  try {
    const byCard = await new ClientFactory().createFromUrl(f.server.url);
    assert.equal(byCard.transport.protocolName, 'JSONRPC');
    const restFirst = { ...f.card, supportedInterfaces: [...f.card.supportedInterfaces].reverse() };
    const fromCard = await new ClientFactory().createFromAgentCard(JSON.parse(JSON.stringify(restFirst)));
    assert.equal(fromCard.transport.protocolName, 'HTTP+JSON');
    const task = asTask(await fromCard.sendMessage(userMessage('hi rest-first')));
    assert.equal(textOf(task.artifacts[0]?.parts), 'hi rest-first');
    assert.equal(f.seen[f.seen.length - 1]?.path, '/a2a/rest/message:send');
  } finally {
    await f.close();
  }
});
