/**
 * JSON-08 / LIST-09: an agent's unary answer that is not the operation's response shape is a
 * local A2AClientError INVALID_RESPONSE, checked in one place for every transport (JSON-RPC,
 * HTTP+JSON, a plugged-in one, A2A 0.3 after translation), as stream events are; and the CLI
 * reports it as a client error (exit 4) instead of crashing or printing it as a result.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type AgentCard, type TransportFactory } from '../../src/client/index.js';
import { runToExit } from '../cli/cliHelpers.js';
import { invalidResponse } from './helpers.js';

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };

function cardFor(url: string, protocolBinding: string, protocolVersion = '1.0'): AgentCard {
  return {
    name: 'wrong answers',
    description: 'answers every call with something else',
    version: '1',
    capabilities: { streaming: false },
    supportedInterfaces: [{ url, protocolBinding, protocolVersion }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** A fetch answering every call with `result` (JSON-RPC: as the result; HTTP+JSON: as the body). */
function answering(result: (method: string) => unknown) {
  return async (_url: string, init: RequestInit) => {
    const rpc = init.body ? (JSON.parse(init.body as string) as { method?: string; id?: number }) : {};
    const body = rpc.method ? { jsonrpc: '2.0', id: rpc.id, result: result(rpc.method) } : result('');
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
}

describe('JSON-08 unary answers of the wrong shape are INVALID_RESPONSE', () => {
  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    test(`${binding}: {"foo":1} for every operation`, async () => {
      const client = await createClient(cardFor('http://agent.invalid/a2a', binding), { fetch: answering(() => ({ foo: 1 })), retry: false });
      await assert.rejects(client.sendText('hi'), invalidResponse);
      await assert.rejects(client.getTask({ id: 't1' }), invalidResponse);
      await assert.rejects(client.cancelTask({ id: 't1' }), invalidResponse);
      await assert.rejects(client.listTasks(), invalidResponse);
      await assert.rejects(client.createTaskPushNotificationConfig({ taskId: 't1', url: 'https://hook.example' }), invalidResponse);
      await assert.rejects(client.getTaskPushNotificationConfig({ taskId: 't1', id: 'p1' }), invalidResponse);
    });
  }

  test('LIST-09 ListTasks: tasks must be a list of Tasks, nextPageToken a string', async () => {
    for (const answer of [{ tasks: 'nope' }, { tasks: [{ id: 't1' }] }, { tasks: [task], nextPageToken: 5 }, {}]) {
      const client = await createClient(cardFor('http://agent.invalid/a2a', 'JSONRPC'), { fetch: answering(() => answer), retry: false });
      await assert.rejects(client.listTasks(), invalidResponse, JSON.stringify(answer));
    }
  });

  test('ListTaskPushNotificationConfigs: configs, when given, a list of configs (ProtoJSON leaves an empty one out)', async () => {
    for (const answer of [{ configs: 'x' }, { configs: [{ id: 'p1' }] }, { configs: [], nextPageToken: null }]) {
      const client = await createClient(cardFor('http://agent.invalid/a2a', 'JSONRPC'), { fetch: answering(() => answer) });
      await assert.rejects(client.listTaskPushNotificationConfigs({ taskId: 't1' }), invalidResponse, JSON.stringify(answer));
    }
  });

  test('SendMessage: exactly one of task and message, each well formed', async () => {
    const message = { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    for (const answer of [{ task, message }, { task: { ...task, status: {} } }, { message: { ...message, parts: 'hi' } }, { task: { ...task, id: '' } }]) {
      const client = await createClient(cardFor('http://agent.invalid/a2a', 'JSONRPC'), { fetch: answering(() => answer) });
      await assert.rejects(client.sendText('hi'), invalidResponse, JSON.stringify(answer));
    }
  });

  test('valid answers pass unchanged (ProtoJSON may leave out an empty page token or config list)', async () => {
    const answers: Record<string, unknown> = {
      SendMessage: { message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], extra: 1 } },
      GetTask: task,
      ListTasks: { tasks: [], pageSize: 50, totalSize: 0 },
      ListTaskPushNotificationConfigs: {},
    };
    const client = await createClient(cardFor('http://agent.invalid/a2a', 'JSONRPC'), { fetch: answering((m) => answers[m]) });
    assert.deepEqual(await client.sendText('hi'), answers.SendMessage);
    assert.deepEqual(await client.getTask({ id: 't1' }), task);
    assert.deepEqual(await client.listTasks(), answers.ListTasks);
    assert.deepEqual(await client.listTaskPushNotificationConfigs({ taskId: 't1' }), {});
  });

  test('a plugged-in transport (gRPC is one) and an A2A 0.3 agent are checked alike', async () => {
    const plugged: TransportFactory = {
      binding: 'GRPC',
      create: () => ({ unary: async () => ({}) as never, stream: () => Promise.reject(new Error('not here')) }),
    };
    const grpc = await createClient(cardFor('agent.invalid:50051', 'GRPC'), { transports: [plugged] });
    await assert.rejects(grpc.sendText('hi'), invalidResponse);
    await assert.rejects(grpc.getTask({ id: 't1' }), invalidResponse);
    const v03 = await createClient(cardFor('http://agent.invalid/a2a', 'JSONRPC', '0.3'), { fetch: answering(() => ({ foo: 1 })), retry: false });
    await assert.rejects(v03.sendText('hi'), invalidResponse);
    await assert.rejects(v03.getTask({ id: 't1' }), invalidResponse);
  });
});

describe('JSON-08 the CLI reports a wrong answer as a client error, exit 4', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'GET') return res.end(JSON.stringify(cardFor(`${url}/rpc`, 'JSONRPC')));
        const rpc = JSON.parse(body) as { id: number; method: string };
        res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: rpc.method === 'ListTasks' ? { tasks: 'nope' } : { foo: 1 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  for (const args of [['send', 'hi'], ['send', 'hi', '--json'], ['get', 't1', '--json'], ['list', '--all', '--json']]) {
    test(`a2a ${args.join(' ')}`, async () => {
      const [command, ...rest] = args as [string, ...string[]];
      const r = await runToExit([command, url, ...rest]);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      if (args.includes('--json')) {
        const out = JSON.parse(r.stdout) as { error: { type: string; code: string } };
        assert.deepEqual([out.error.type, out.error.code], ['client', 'INVALID_RESPONSE']);
      } else {
        assert.match(r.stderr, /client error: INVALID_RESPONSE/);
      }
    });
  }
});
