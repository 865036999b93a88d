/**
 * Our client against A2A 0.3-only agents: the OFFICIAL 0.3 JS SDK server (a2a-sdk-03, its
 * DefaultRequestHandler and Express JSON-RPC handler; test/support/sdk03Server.ts), reached
 * with `v03Transport` (src/client/v03.ts). Every operation the 0.3 server has, with the same
 * 1.0-shaped API and the same typed errors; ListTasks refused locally; the VersionNotSupported
 * fallback from a 1.0 interface; resumption without Last-Event-ID; the `a2a` CLI.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import {
  A2AClientError,
  A2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  collectTask,
  createClient,
  type A2AClient,
  type ClientOptions,
  type FetchLike,
  type StreamResponse,
  type Task,
} from '../../src/client/index.js';
import { v03Transport } from '../../src/client/v03.js';
import type { V03AgentCard } from '../../src/compat/index.js';
import { startSdk03Server, type Sdk03Server } from '../support/sdk03Server.js';
import { runToExit } from '../cli/cliHelpers.js';
import { collect, trace } from './helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

const base: ClientOptions = { transports: [v03Transport], cardCache: false };

describe('our client against the official A2A 0.3 SDK server', () => {
  let sdk: Sdk03Server;
  let client: A2AClient;
  before(async () => {
    sdk = await startSdk03Server();
    client = await createClient(sdk.url, base);
  });
  after(() => sdk.close());

  const since = (n: number) => sdk.requests.slice(n);

  test('the 0.3 card is read as a 1.0 card with 0.3 interfaces; the original stays available', async () => {
    assert.equal(client.card.name, 'SDK 0.3 agent');
    assert.deepEqual(client.card.supportedInterfaces, [{ url: `${sdk.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    assert.equal(client.card.capabilities.streaming, true);
    assert.equal(client.card.capabilities.extendedAgentCard, true);
    assert.deepEqual(client.agentInterface, client.card.supportedInterfaces[0]);
    assert.deepEqual(client.rawCard, sdk.card);
    // A card object in the 0.3 shape works as well.
    const fromObject = await createClient(sdk.card as V03AgentCard, base);
    assert.equal(fromObject.agentInterface.protocolVersion, '0.3');
    assert.equal(fromObject.rawCard, sdk.card);
  });

  test('without v03Transport a 0.3 card is not usable (BAD_CARD), as before', async () => {
    await assert.rejects(createClient(sdk.url, { cardCache: false }), (e) => A2AClientError.is(e, 'BAD_CARD'));
  });

  test('sendMessage → a task, and → a message; 0.3 methods, no A2A-Version header', async () => {
    const n = sdk.requests.length;
    const task = taskOf(await client.sendText('hi there'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hi there' }]);
    assert.equal(task.history?.[0]?.role, 'ROLE_USER');
    const reply = await client.sendText('msg hello');
    assert.ok('message' in reply);
    assert.equal(reply.message.role, 'ROLE_AGENT');
    assert.deepEqual(reply.message.parts, [{ text: 'hello' }]);
    assert.deepEqual(
      since(n).map((r) => [r.method, r.version]),
      [
        ['message/send', undefined],
        ['message/send', undefined],
      ],
    );
  });

  test('sendMessage with returnImmediately: the submitted/working task comes back at once', async () => {
    const started = taskOf(await client.sendText('slow quick return', { configuration: { returnImmediately: true } }));
    assert.notEqual(started.status.state, 'TASK_STATE_COMPLETED');
    const done = await client.waitForTask(started.id, { timeoutMs: 10_000 });
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  });

  test('sendStreamingMessage: task, status and artifact events in 1.0 shape; ends on final', async () => {
    const events = await collect(client.streamText('stream it'));
    const steps = trace(events);
    assert.equal(steps[0], 'task:SUBMITTED');
    assert.equal(steps.at(-1), 'status:COMPLETED');
    const task = await collectTask((async function* () {
      yield* events;
    })());
    assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'chunk 1 ' }, { text: 'chunk 2 ' }, { text: 'chunk 3 ' }]);
    assert.deepEqual(trace(await collect(client.streamText('msg streamed'))), ['message']);
  });

  test('a stream stops at the event marked final even if the server keeps the connection open', async () => {
    // A server that sends a final status update and then never closes.
    const encoder = new TextEncoder();
    const fetch: FetchLike = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            const send = (result: unknown) => controller.enqueue(encoder.encode(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`));
            send({ kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } });
            send({ kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: { state: 'completed' } });
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const open = await createClient(sdk.card as V03AgentCard, { ...base, fetch });
    assert.deepEqual(trace(await collect(open.streamText('x'))), ['task:WORKING', 'status:COMPLETED']);
  });

  test('getTask with historyLength; cancelTask; resubscribe (subscribeToTask)', async () => {
    const task = taskOf(await client.sendText('echo me'));
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    assert.equal(got.id, task.id);
    assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
    assert.ok((got.history?.length ?? 0) <= 1);
    await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);

    const slow = taskOf(await client.sendText('slow job', { configuration: { returnImmediately: true } }));
    const n = sdk.requests.length;
    const seen: StreamResponse[] = [];
    for await (const event of client.subscribeToTask({ id: slow.id })) {
      seen.push(event);
      if (seen.length === 2) break;
    }
    assert.equal(trace(seen)[0], 'task:WORKING', 'the 0.3 SDK opens a resubscription with the task');
    assert.equal(since(n)[0]?.method, 'tasks/resubscribe');
    const canceled = await client.cancelTask({ id: slow.id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  });

  test('push notification configs: create, get, list, delete', async () => {
    const task = taskOf(await client.sendText('for push'));
    const created = await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } });
    assert.deepEqual(created, { taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } });
    await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'c2', url: 'https://hooks.example/2' });
    assert.equal((await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'c2' })).url, 'https://hooks.example/2');
    const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
    assert.deepEqual(listed.configs?.map((c) => c.id).sort(), ['c1', 'c2']);
    assert.deepEqual(await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), {});
    assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs?.map((c) => c.id), ['c2']);
  });

  test('the extended card: agent/getAuthenticatedExtendedCard, read as 1.0, becomes client.card', async () => {
    const own = await createClient(sdk.url, base);
    const n = sdk.requests.length;
    const card = await own.getExtendedAgentCard();
    assert.equal(since(n)[0]?.method, 'agent/getAuthenticatedExtendedCard');
    assert.equal(card.name, 'SDK 0.3 agent (extended)');
    assert.deepEqual(card.skills.map((s) => s.id), ['echo', 'secret']);
    assert.equal(card.supportedInterfaces[0]?.protocolVersion, '0.3');
    assert.equal(own.card, card);
    assert.equal((own.rawCard as { name: string; url: string }).url, `${sdk.url}/a2a/jsonrpc`, 'the extended card as served (0.3)');
  });

  test('errors are the same typed classes as over 1.0', async () => {
    await assert.rejects(client.getTask({ id: 'no-such-task' }), (e) => {
      assert.ok(e instanceof TaskNotFoundError);
      assert.equal(e.reason, 'TASK_NOT_FOUND');
      return true;
    });
    await assert.rejects(client.cancelTask({ id: 'no-such-task' }), TaskNotFoundError);
    await assert.rejects(collect(client.subscribeToTask({ id: 'no-such-task' })), TaskNotFoundError);
    await assert.rejects(client.getTaskPushNotificationConfig({ taskId: 'no-such-task', id: 'x' }), A2AError);
  });

  test('listTasks: a clear UnsupportedOperationError, without a request', async () => {
    const n = sdk.requests.length;
    await assert.rejects(client.listTasks({ pageSize: 5 }), (e) => {
      assert.ok(e instanceof UnsupportedOperationError);
      assert.match(e.message, /listTasks has no A2A 0\.3 equivalent/);
      return true;
    });
    assert.equal(sdk.requests.length, n);
  });

  test('a dropped stream is resumed with tasks/resubscribe, without Last-Event-ID, no event twice', async () => {
    // Cut the first message/stream response after its second event.
    let cut = false;
    const fetch: FetchLike = async (input, init) => {
      const res = await globalThis.fetch(input, init);
      if (cut || !String(init.body).includes('message/stream') || !res.body) return res;
      cut = true;
      const reader = res.body.getReader();
      let events = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (events >= 2) {
            void reader.cancel();
            controller.error(new TypeError('terminated'));
            return;
          }
          const { done, value } = await reader.read();
          if (done) return controller.close();
          events += new TextDecoder().decode(value).split('\n\n').length - 1;
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const resumed = await createClient(sdk.url, { ...base, fetch, resume: { delayMs: 10 } });
    const n = sdk.requests.length;
    const events = await collect(resumed.streamText('slow resumable'));
    const methods = since(n).map((r) => r.method);
    assert.deepEqual(methods.slice(0, 2), ['message/stream', 'tasks/resubscribe']);
    assert.ok(since(n).every((r) => r.lastEventId === undefined), 'no Last-Event-ID');
    const steps = trace(events);
    assert.equal(steps.at(-1), 'status:COMPLETED');
    assert.equal(steps.filter((s) => s === 'task:SUBMITTED').length, 1, 'the opening task once');
    const task = await collectTask((async function* () {
      yield* events;
    })());
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(task.artifacts?.map((a) => a.parts), [[{ text: 'done' }]]);
  });

  test('the v03 entry point bundles for a neutral platform (no node:, no Buffer)', async () => {
    const result = await build({
      stdin: { contents: `export * from './src/client/v03.ts';`, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
      bundle: true,
      write: false,
      platform: 'neutral',
      format: 'esm',
      minify: true,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.text ?? '';
    assert.doesNotMatch(code, /\bnode:/);
    assert.doesNotMatch(code, /\bBuffer\b/);
  });
});

describe('fallback: a 1.0 interface that answers VersionNotSupported', () => {
  let sdk: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server();
  });
  after(() => sdk.close());

  test('the error lists 0.3: the call is repeated over 0.3, and later calls go there directly', async () => {
    const client = await createClient(sdk.fallbackUrl, base);
    assert.equal(client.agentInterface.protocolVersion, '1.0');
    const n = sdk.requests.length;
    const task = taskOf(await client.sendText('hi fallback'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await client.getTask({ id: task.id })).id, task.id);
    assert.deepEqual(
      sdk.requests.slice(n).map((r) => [r.path, r.method, r.version]),
      [
        ['/v10/a2a/jsonrpc', 'SendMessage', '1.0'],
        ['/v10/a2a/jsonrpc', 'message/send', undefined],
        ['/v10/a2a/jsonrpc', 'tasks/get', undefined],
      ],
    );
    // Streams too (the choice is remembered per client).
    assert.equal(trace(await collect(client.streamText('stream fb'))).at(-1), 'status:COMPLETED');
  });

  test("the card lists a 0.3 interface (the error says nothing): its URL is used", async () => {
    const client = await createClient(sdk.fallbackCardUrl, base);
    assert.equal(client.agentInterface.protocolVersion, '1.0', '1.0 is preferred when both are listed');
    const n = sdk.requests.length;
    const events = await collect(client.streamText('stream card'));
    assert.equal(trace(events).at(-1), 'status:COMPLETED');
    assert.deepEqual(
      sdk.requests.slice(n).map((r) => [r.path, r.method]),
      [
        ['/v10card/a2a/jsonrpc', 'SendStreamingMessage'],
        ['/v10card/a2a/jsonrpc03', 'message/stream'],
      ],
    );
  });

  test('without v03Transport the VersionNotSupportedError reaches the caller', async () => {
    const client = await createClient(sdk.fallbackUrl, { cardCache: false });
    await assert.rejects(client.sendText('hi'), VersionNotSupportedError);
  });

  test('a 0.3 interface alone is chosen (and a 1.0 one is not needed)', async () => {
    const card = (await createClient(sdk.fallbackCardUrl, base)).card;
    const only03 = await createClient({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') }, base);
    assert.equal(only03.agentInterface.url, `${sdk.fallbackCardUrl}/a2a/jsonrpc03`);
    assert.equal(taskOf(await only03.sendText('direct')).status.state, 'TASK_STATE_COMPLETED');
    // Without the 0.3 transport, nothing is usable.
    await assert.rejects(createClient(only03.card, { cardCache: false }), (e) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE'));
  });
});

describe('the a2a CLI against a 0.3 agent', () => {
  let sdk: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server();
  });
  after(() => sdk.close());

  test('a2a send <url> "hi" → the completed task', async () => {
    const r = await runToExit(['send', sdk.url, 'hi']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^task\s+\S+\s+completed$/m);
    assert.match(r.stdout, /^\s+hi$/m);
  });

  test('a2a send --json, and a2a stream', async () => {
    const j = await runToExit(['send', sdk.url, 'msg over json', '--json']);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual((JSON.parse(j.stdout) as { message: { parts: unknown } }).message.parts, [{ text: 'over json' }]);
    const s = await runToExit(['stream', sdk.url, 'stream cli']);
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stdout, /completed/);
  });

  test('a2a card shows a 0.3 agent\'s card translated to 1.0', async () => {
    const r = await runToExit(['card', sdk.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const card = JSON.parse(r.stdout) as { supportedInterfaces: Array<{ protocolVersion: string }> };
    assert.ok(card.supportedInterfaces.some((i) => i.protocolVersion === '0.3'));
  });

  test('a2a send through the fallback', async () => {
    const r = await runToExit(['send', sdk.fallbackUrl, 'hi']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^task\s+\S+\s+completed$/m);
  });
});
