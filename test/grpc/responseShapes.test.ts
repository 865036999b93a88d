/**
 * A10 with a real `a2a serve --grpc-port 0`: every operation answers the same JSON whatever the
 * binding — createClient over JSON-RPC, HTTP+JSON and gRPC, createGrpcClient, and the CLI's
 * `--json` output. gRPC cannot tell a field at its default from an absent one, so the gRPC
 * client fills in what the HTTP bindings always write: a ListTaskPushNotificationConfigsResponse
 * used to arrive as `{}` (no `configs: []`, no `nextPageToken: ""`) and `a2a push list … --json |
 * jq '.configs[]'` failed over gRPC only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGrpcClient, grpcTransport, type GrpcTransportFactory } from '../../src/bindings/grpc/client.js';
import { createClient, type A2AClient } from '../../src/client/client.js';
import type { StreamResponse } from '../../src/protocol/types.js';
import { runToExit, startServe, type A2AProcess, type ServeUrls } from '../cli/cliHelpers.js';

const BINDINGS = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' } as const;
type Binding = keyof typeof BINDINGS;

let proc: A2AProcess | undefined;
let urls: ServeUrls & { grpc: string; listening: string };
let transport: GrpcTransportFactory;
const clients = {} as Record<Binding, A2AClient>;

before(async () => {
  // `slow` tasks stay WORKING at "progress 0/…" for the whole test: their snapshots are comparable.
  const served = await startServe(['--grpc-port', '0', '--allow-private-webhooks'], { A2A_DEMO_SLOW_MS: '120000', A2A_DEMO_TICK_MS: '60000' });
  proc = served.proc;
  urls = served.urls as typeof urls;
  transport = grpcTransport();
  for (const [name, binding] of Object.entries(BINDINGS) as [Binding, string][]) {
    clients[name] = await createClient(urls.listening, { cardCache: false, bindings: [binding], transports: [transport] });
  }
});
after(() => {
  transport?.close();
  proc?.kill();
});

/** Ids and timestamps (which differ between the tasks each binding creates) as placeholders. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, /^(id|timestamp)$|Ids?$/.test(k) && typeof v === 'string' ? `<${k}>` : shape(v)]),
  );
}

/** The answer of `call` over each binding (in turn: a stateful call sees the same server state). */
async function each<T>(call: (client: A2AClient, binding: Binding) => Promise<T>): Promise<Record<Binding, T>> {
  const out = {} as Record<Binding, T>;
  for (const name of Object.keys(BINDINGS) as Binding[]) out[name] = await call(clients[name], name);
  return out;
}

function assertSame(answers: Record<string, unknown>, what: string, normalize: (v: unknown) => unknown = (v) => v): void {
  const [first, ...rest] = Object.entries(answers);
  for (const [name, answer] of rest) {
    assert.deepStrictEqual(normalize(answer), normalize(first?.[1]), `${what}: ${name} answers differently from ${first?.[0]}`);
  }
}

async function taskOf(client: A2AClient, text: string): Promise<string> {
  const sent = await client.sendText(text, { configuration: { returnImmediately: true } });
  assert.ok('task' in sent, `${text}: a task`);
  return sent.task.id;
}

async function events(stream: AsyncIterable<StreamResponse>, max = Infinity): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) {
    out.push(e);
    if (out.length >= max) break;
  }
  return out;
}

describe('A10 the same JSON over JSON-RPC, HTTP+JSON and gRPC', () => {
  test('A10 each operation through createClient (and createGrpcClient) answers the same JSON on every binding', async () => {
    const ask = await taskOf(clients.jsonrpc, 'ask what?');
    const done = await clients.jsonrpc.sendText('hi there');
    assert.ok('task' in done);

    // Reads of shared state: byte-for-byte the same JSON (key order aside).
    assertSame(await each((c) => c.getTask({ id: ask })), 'GetTask');
    assertSame(await each((c) => c.getTask({ id: done.task.id, historyLength: 0 })), 'GetTask historyLength 0');
    assertSame(await each((c) => c.listTasks({ contextId: done.task.contextId as string })), 'ListTasks');
    assertSame(await each((c) => c.listTasks({ contextId: 'no-such-context' })), 'ListTasks (empty)');
    assertSame(await each((c) => c.listTaskPushNotificationConfigs({ taskId: ask })), 'ListTaskPushNotificationConfigs (empty)');

    // Writes: each binding makes its own, compared with ids and timestamps as placeholders.
    for (const text of ['hi', 'msg hello', 'file hello', 'data hello', 'fail x', 'reject x', 'ask q']) {
      assertSame(await each((c) => c.sendText(text)), `SendMessage "${text}"`, shape);
    }
    assertSame(await each((c) => events(c.streamText('stream ab'))), 'SendStreamingMessage', shape);
    const configs = await each((c, name) => c.createTaskPushNotificationConfig({ taskId: ask, url: `http://127.0.0.1:9/${name}`, token: 't' }));
    assertSame(configs, 'CreateTaskPushNotificationConfig', (v) => shape({ ...(v as object), url: '<url>' }));
    assertSame(await each((c) => c.getTaskPushNotificationConfig({ taskId: ask, id: configs.jsonrpc.id as string })), 'GetTaskPushNotificationConfig');
    assertSame(await each((c) => c.listTaskPushNotificationConfigs({ taskId: ask })), 'ListTaskPushNotificationConfigs');
    assertSame(await each((c) => c.listTaskPushNotificationConfigs({ taskId: ask, pageSize: 1 })), 'ListTaskPushNotificationConfigs pageSize 1');
    assertSame(await each((c, name) => c.deleteTaskPushNotificationConfig({ taskId: ask, id: configs[name].id as string })), 'DeleteTaskPushNotificationConfig');

    const slow = await each((c) => taskOf(c, 'slow work'));
    assertSame(await each((c, name) => events(c.subscribeToTask({ id: slow[name] }), 1)), 'SubscribeToTask (snapshot)', shape);
    assertSame(await each((c, name) => c.cancelTask({ id: slow[name] })), 'CancelTask', shape);

    // createGrpcClient, for callers without a card: the same answers as createClient's gRPC.
    const direct = createGrpcClient(urls.grpc);
    try {
      assert.deepStrictEqual(await direct.listTaskPushNotificationConfigs({ taskId: done.task.id }), { configs: [], nextPageToken: '' });
      assert.deepStrictEqual(await direct.listTasks({ contextId: 'no-such-context' }), await clients.jsonrpc.listTasks({ contextId: 'no-such-context' }));
      assert.deepStrictEqual(await direct.getTask({ id: ask }), await clients.jsonrpc.getTask({ id: ask }));
    } finally {
      direct.close();
    }
  });

  test('A10 a2a push list and a2a list --json print the same document over --binding jsonrpc, rest and grpc', async () => {
    const task = await taskOf(clients.jsonrpc, 'hi cli');
    const printed = async (args: string[]) => {
      const out: Record<string, unknown> = {};
      for (const binding of Object.keys(BINDINGS)) {
        const run = await runToExit([...args, '--binding', binding, '--json']);
        assert.equal(run.code, 0, `${args.join(' ')} --binding ${binding}: ${run.stderr}`);
        out[binding] = JSON.parse(run.stdout);
      }
      return out;
    };
    const empty = await printed(['push', 'list', urls.listening, task]);
    assert.deepStrictEqual(empty.grpc, { configs: [], nextPageToken: '' });
    assertSame(empty, 'a2a push list (empty)');
    await clients.jsonrpc.createTaskPushNotificationConfig({ taskId: task, url: 'http://127.0.0.1:9/cli' });
    assertSame(await printed(['push', 'list', urls.listening, task]), 'a2a push list');
    assertSame(await printed(['list', urls.listening, '--context', 'no-such-context']), 'a2a list (empty)');
  });
});
