/**
 * Our client against A2A 0.3-only agents, with NO options (issue 9): the OFFICIAL 0.3 JS SDK
 * server (a2a-sdk-03, its DefaultRequestHandler behind its Express JSON-RPC and REST handlers;
 * test/support/sdk03Server.ts), on JSON-RPC and on HTTP+JSON (the 0.3 `/v1/…` routes in the
 * proto-JSON dialect). Every operation the 0.3 server has, with the same 1.0-shaped API and the
 * same typed errors; ListTasks refused locally; resumption without Last-Event-ID; pinning to
 * 1.0 (VER-09); the compatibility entry point `a2a-kit/client/v03`; the `a2a` CLI.
 * The VersionNotSupported fallback is in compatFallback.test.ts.
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
  collectTask,
  createClient,
  type A2AClient,
  type FetchLike,
  type StreamResponse,
  type Task,
} from '../../src/client/index.js';
import { wasNotSent } from '../../src/client/errors.js';
import { v03Transport } from '../../src/client/v03.js';
import type { V03AgentCard } from '../../src/compat/index.js';
import { startSdk03Server, type Sdk03Server } from '../support/sdk03Server.js';
import { runToExit } from '../cli/cliHelpers.js';
import { BINDINGS, collect, trace } from './helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

/** What each binding looks like on the wire (sdk.requests): the method or route of each operation. */
const WIRE = {
  JSONRPC: {
    path: '/a2a/jsonrpc',
    send: 'message/send',
    stream: 'message/stream',
    resubscribe: 'tasks/resubscribe',
    card: 'agent/getAuthenticatedExtendedCard',
    getTask: (_id: string) => 'tasks/get',
    /** The first SSE events a server sends before it keeps the connection open, answering the request (`body`). */
    sse: (events: unknown[], body: string) => {
      const { id } = JSON.parse(body) as { id: unknown };
      return events.map((result) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`).join('');
    },
    isStreamRequest: (_url: string, body: unknown) => String(body).includes('message/stream'),
  },
  'HTTP+JSON': {
    path: '/a2a/rest',
    send: 'POST /v1/message:send',
    stream: 'POST /v1/message:stream',
    resubscribe: (id: string) => `GET /v1/tasks/${id}:subscribe`,
    card: 'GET /v1/card',
    getTask: (id: string) => `GET /v1/tasks/${id}`,
    sse: (events: unknown[], _body: string) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''),
    isStreamRequest: (url: string) => url.endsWith('/v1/message:stream'),
  },
} as const;

/** A task event and a final status update in the binding's 0.3 dialect. */
const FINAL_EVENTS = {
  JSONRPC: [
    { kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } },
    { kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: { state: 'completed' } },
  ],
  'HTTP+JSON': [
    { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    { statusUpdate: { taskId: 't', contextId: 'c', final: true, status: { state: 'TASK_STATE_COMPLETED' } } },
  ],
} as const;

for (const binding of BINDINGS) {
  const wire = WIRE[binding];

  describe(`VER-05 our client with no options against the official A2A 0.3 SDK server over ${binding}`, () => {
    let sdk: Sdk03Server;
    let client: A2AClient;
    before(async () => {
      sdk = await startSdk03Server({ preferredTransport: binding });
      client = await createClient(sdk.url);
    });
    after(() => sdk.close());

    const since = (n: number) => sdk.requests.slice(n);

    test('CARD-05 the 0.3 card is read as a 1.0 card with 0.3 interfaces; the original stays available', async () => {
      assert.equal(client.card.name, 'SDK 0.3 agent');
      assert.deepEqual(client.agentInterface, { url: `${sdk.url}${wire.path}`, protocolBinding: binding, protocolVersion: '0.3' });
      assert.deepEqual(client.agentInterface, client.card.supportedInterfaces[0]);
      assert.equal(client.card.capabilities.streaming, true);
      assert.equal(client.card.capabilities.extendedAgentCard, true);
      assert.deepEqual(client.rawCard, sdk.card);
      // A card object in the 0.3 shape works as well.
      const fromObject = await createClient(sdk.card as V03AgentCard);
      assert.deepEqual(fromObject.agentInterface, client.agentInterface);
      assert.equal(fromObject.rawCard, sdk.card);
    });

    test('sendMessage → a task, and → a message; 0.3 wire format, no A2A-Version header (VER-05)', async () => {
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
          [wire.send, undefined],
          [wire.send, undefined],
        ],
      );
      if (binding === 'HTTP+JSON') {
        // The proto-JSON dialect of the 0.3 SDKs: ROLE_USER, `content`, no `kind`.
        const body = since(n)[0]?.body as { message: Record<string, unknown> };
        assert.equal(body.message.role, 'ROLE_USER');
        assert.deepEqual(body.message.content, [{ text: 'hi there' }]);
        assert.equal(body.message.kind, undefined);
      }
    });

    test('sendMessage with returnImmediately: the submitted/working task comes back at once', async () => {
      const started = taskOf(await client.sendText('slow quick return', { configuration: { returnImmediately: true } }));
      assert.notEqual(started.status.state, 'TASK_STATE_COMPLETED');
      const done = await client.waitForTask(started.id, { timeoutMs: 10_000 });
      assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
    });

    test('a configuration without returnImmediately still blocks (0.3 proto default would not)', async () => {
      const task = taskOf(await client.sendText('slow blocking', { configuration: { acceptedOutputModes: ['text/plain'] } }));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    });

    test('sendStreamingMessage: task, status and artifact events in order, 1.0-shaped; the stream ends', async () => {
      const n = sdk.requests.length;
      const events = await collect(client.streamText('stream it'));
      assert.equal(since(n)[0]?.method, wire.stream);
      const steps = trace(events);
      assert.deepEqual(steps, ['task:SUBMITTED', 'status:WORKING', 'artifact', 'artifact+', 'artifact+!', 'status:COMPLETED']);
      const task = await collectTask((async function* () {
        yield* events;
      })());
      assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'chunk 1 ' }, { text: 'chunk 2 ' }, { text: 'chunk 3 ' }]);
      assert.deepEqual(trace(await collect(client.streamText('msg streamed'))), ['message']);
    });

    test('STREAM a stream stops at the event marked final even if the server keeps the connection open', async () => {
      const fetch: FetchLike = async (_url, init) =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(wire.sse([...FINAL_EVENTS[binding]], String(init?.body))));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        );
      const open = await createClient(sdk.card as V03AgentCard, { fetch });
      assert.deepEqual(trace(await collect(open.streamText('x'))), ['task:WORKING', 'status:COMPLETED']);
    });

    test('getTask with historyLength; cancelTask; subscribeToTask (0.3 resubscribe)', async () => {
      // A two-turn task: the question, then the answer.
      const asked = taskOf(await client.sendText('ask your name'));
      assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
      const task = taskOf(await client.sendText('bob', { taskId: asked.id, contextId: asked.contextId }));
      const n = sdk.requests.length;
      const long = await client.getTask({ id: task.id, historyLength: 10 });
      const got = await client.getTask({ id: task.id, historyLength: 1 });
      assert.equal(got.id, task.id);
      assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
      // (The 0.3 SDK sends no history at all without historyLength.)
      assert.ok((long.history?.length ?? 0) >= 2, `both turns with historyLength: 10, got ${JSON.stringify(long.history)}`);
      assert.deepEqual(got.history?.map((m) => [m.role, m.parts]), [['ROLE_USER', [{ text: 'bob' }]]], 'historyLength: 1 → the last message');
      assert.equal(since(n)[0]?.method, wire.getTask(task.id));
      await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);

      const slow = taskOf(await client.sendText('slow job', { configuration: { returnImmediately: true } }));
      const m = sdk.requests.length;
      const seen: StreamResponse[] = [];
      for await (const event of client.subscribeToTask({ id: slow.id })) {
        seen.push(event);
        if (seen.length === 2) break;
      }
      assert.equal(trace(seen)[0], 'task:WORKING', 'the 0.3 SDK opens a resubscription with the task');
      assert.equal(since(m)[0]?.method, typeof wire.resubscribe === 'string' ? wire.resubscribe : wire.resubscribe(slow.id));
      const canceled = await client.cancelTask({ id: slow.id });
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      assert.equal((await client.getTask({ id: slow.id })).status.state, 'TASK_STATE_CANCELED');
    });

    test('push notification configs: create, get, list, delete', async () => {
      const task = taskOf(await client.sendText('for push'));
      const created = await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } });
      assert.deepEqual(created, { taskId: task.id, id: 'c1', url: 'https://hooks.example/1', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } });
      await client.createTaskPushNotificationConfig({ taskId: task.id, id: 'c2', url: 'https://hooks.example/2' });
      assert.deepEqual(await client.getTaskPushNotificationConfig({ taskId: task.id, id: 'c2' }), { taskId: task.id, id: 'c2', url: 'https://hooks.example/2' });
      const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
      assert.deepEqual(listed.configs?.map((c) => [c.taskId, c.id]).sort(), [
        [task.id, 'c1'],
        [task.id, 'c2'],
      ]);
      assert.deepEqual(await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c1' }), {});
      assert.deepEqual((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs?.map((c) => c.id), ['c2']);
    });

    test('XCARD the extended card (0.3 authenticated extended card), read as 1.0, becomes client.card', async () => {
      const own = await createClient(sdk.url);
      const n = sdk.requests.length;
      const card = await own.getExtendedAgentCard();
      assert.equal(since(n)[0]?.method, wire.card);
      assert.equal(card.name, 'SDK 0.3 agent (extended)');
      assert.deepEqual(card.skills.map((s) => s.id), ['echo', 'secret']);
      assert.deepEqual(card.supportedInterfaces[0], own.agentInterface);
      assert.equal(own.card, card);
      assert.equal((own.rawCard as { name: string; url: string }).url, `${sdk.url}${wire.path}`, 'the extended card as served (0.3)');
    });

    test('ERR-08 errors are the same typed classes as over 1.0 (TaskNotFound → TaskNotFoundError)', async () => {
      await assert.rejects(client.getTask({ id: 'no-such-task' }), (e) => {
        assert.ok(e instanceof TaskNotFoundError, String(e));
        assert.equal(e.reason, 'TASK_NOT_FOUND');
        return true;
      });
      await assert.rejects(client.cancelTask({ id: 'no-such-task' }), TaskNotFoundError);
      if (binding === 'JSONRPC') await assert.rejects(collect(client.subscribeToTask({ id: 'no-such-task' })), TaskNotFoundError);
      // The 0.3.14 SDK's REST handler fails its own error path before a stream (a 500 InternalError,
      // "Bug: toJson serializer…"): what it sends is what the client reports.
      else await assert.rejects(collect(client.subscribeToTask({ id: 'no-such-task' })), (e) => A2AError.is(e) && e.reason === 'INTERNAL' && /toJson/.test(e.message));
      await assert.rejects(client.getTaskPushNotificationConfig({ taskId: 'no-such-task', id: 'x' }), A2AError);
    });

    test('listTasks: a clear UnsupportedOperationError, without a request', async () => {
      const n = sdk.requests.length;
      await assert.rejects(client.listTasks({ pageSize: 5 }), (e) => {
        assert.ok(e instanceof UnsupportedOperationError);
        assert.match(e.message, /listTasks is not available over A2A 0\.3/);
        assert.ok(wasNotSent(e), 'marked as refused by the client');
        return true;
      });
      assert.equal(sdk.requests.length, n);
    });

    test('STREAM a dropped stream is resumed with a 0.3 resubscribe, without Last-Event-ID, no event twice', async () => {
      // Cut the first message/stream response after its second event.
      let cut = false;
      const fetch: FetchLike = async (input, init) => {
        const res = await globalThis.fetch(input, init);
        if (cut || !wire.isStreamRequest(input, init.body) || !res.body) return res;
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
      const resumed = await createClient(sdk.url, { fetch, resume: { delayMs: 10 } });
      const n = sdk.requests.length;
      const events = await collect(resumed.streamText('slow resumable'));
      const methods = since(n).map((r) => r.method);
      assert.equal(methods[0], wire.stream);
      assert.match(methods[1] ?? '', binding === 'JSONRPC' ? /^tasks\/resubscribe$/ : /^GET \/v1\/tasks\/[^/]+:subscribe$/);
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

    test('VER-09 pinned to 1.0 (versions: ["1.0"]), a 0.3-only agent offers nothing usable', async () => {
      await assert.rejects(createClient(sdk.url, { versions: ['1.0'] }), (e) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE') && /0\.3/.test(e.message));
    });
  });
}

describe('the 0.3 SDK agent listing both bindings', () => {
  let sdk: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server({ preferredTransport: 'HTTP+JSON' });
  });
  after(() => sdk.close());

  test('CARD-05 the card order decides (REST first); bindings narrows the choice to the JSON-RPC 0.3 interface', async () => {
    const client = await createClient(sdk.url);
    assert.deepEqual(
      client.card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion]),
      [
        ['HTTP+JSON', '0.3'],
        ['JSONRPC', '0.3'],
      ],
    );
    assert.equal(client.agentInterface.protocolBinding, 'HTTP+JSON');
    const rpc = await createClient(sdk.url, { bindings: ['JSONRPC'] });
    assert.equal(rpc.agentInterface.url, `${sdk.url}/a2a/jsonrpc`);
    const n = sdk.requests.length;
    assert.equal(taskOf(await rpc.sendText('over rpc')).status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(
      sdk.requests.slice(n).map((r) => r.method),
      ['message/send'],
    );
  });

  test('CARD-03 a 0.3-shaped card that does not translate is BAD_CARD', async () => {
    await assert.rejects(createClient({ ...sdk.card, skills: 'none' } as unknown as V03AgentCard), (e) => A2AClientError.is(e, 'BAD_CARD') && /not a readable A2A 0\.3 card.*skills/.test(e.message));
  });

  test('v03Transport (a2a-kit/client/v03) still works, and changes nothing', async () => {
    const client = await createClient(sdk.url, { transports: [v03Transport], bindings: ['JSONRPC'] });
    assert.equal(client.agentInterface.protocolVersion, '0.3');
    assert.equal(taskOf(await client.sendText('compat entry')).status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await v03Transport.readCard?.(sdk.card))?.supportedInterfaces[0]?.protocolVersion, '0.3');
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

describe('the a2a CLI against a 0.3 agent', () => {
  let sdk: Sdk03Server;
  let rest: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server();
    rest = await startSdk03Server({ preferredTransport: 'HTTP+JSON' });
  });
  after(async () => {
    await sdk.close();
    await rest.close();
  });

  test('a2a send <url> "hi" → the completed task (JSON-RPC and REST)', async () => {
    for (const agent of [sdk, rest]) {
      const r = await runToExit(['send', agent.url, 'hi']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^task\s+\S+\s+completed$/m);
      assert.match(r.stdout, /^\s+hi$/m);
    }
    assert.ok(rest.requests.some((r) => r.method === 'POST /v1/message:send'), 'the REST agent was called over REST');
  });

  test('a2a send --json, and a2a stream', async () => {
    const j = await runToExit(['send', sdk.url, 'msg over json', '--json']);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual((JSON.parse(j.stdout) as { message: { parts: unknown } }).message.parts, [{ text: 'over json' }]);
    const s = await runToExit(['stream', rest.url, 'stream cli']);
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stdout, /completed/);
  });

  // --json prints the card as received (the 0.3 JSON): test/cli/compat03.test.ts.
  test("a2a card shows a 0.3 agent's card translated to 1.0 (its interfaces at 0.3)", async () => {
    const r = await runToExit(['card', sdk.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\s+\*?\s*(JSONRPC|HTTP\+JSON)\s+0\.3\s+http\S+$/m);
  });

  test('a2a send through the fallback', async () => {
    const r = await runToExit(['send', sdk.fallbackUrl, 'hi']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^task\s+\S+\s+completed$/m);
  });
});
