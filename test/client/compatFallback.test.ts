/**
 * The VersionNotSupported fallback (issue 9), with NO client options: a 1.0 interface whose
 * server answers VersionNotSupported (VER-06) is called again over A2A 0.3 (VER-05: no
 * A2A-Version) when the card lists a 0.3 interface of that binding or the error lists 0.3, and
 * the client stays on 0.3. Against the official 0.3 SDK behind a 1.0 card (JSON-RPC), and our
 * own server with only 0.3 enabled (JSON-RPC and HTTP+JSON). Pinned to 1.0 (VER-09), no fallback.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, VersionNotSupportedError, createClient, type Task } from '../../src/client/index.js';
import { startSdk03Server, type Sdk03Server } from '../support/sdk03Server.js';
import { startServer, type TestServer } from '../support/server.js';
import { BINDINGS, collect, record, trace } from './helpers.js';

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

describe('VER-06 fallback: a 1.0 JSON-RPC interface in front of the official 0.3 SDK', () => {
  let sdk: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server();
  });
  after(() => sdk.close());

  test('the error lists 0.3: the call is repeated over 0.3, and later calls go there directly', async () => {
    const client = await createClient(sdk.fallbackUrl);
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

  test('the card lists a 0.3 interface (the error says nothing): its URL is used', async () => {
    const client = await createClient(sdk.fallbackCardUrl);
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

  test('VER-09 pinned to 1.0 (versions: ["1.0"]): the VersionNotSupportedError reaches the caller', async () => {
    const client = await createClient(sdk.fallbackUrl, { versions: ['1.0'] });
    const n = sdk.requests.length;
    await assert.rejects(client.sendText('hi'), VersionNotSupportedError);
    assert.deepEqual(
      sdk.requests.slice(n).map((r) => r.method),
      ['SendMessage'],
    );
  });

  test('a 0.3 interface alone is chosen (a 1.0 one is not needed); pinned to 1.0 nothing is usable', async () => {
    const card = (await createClient(sdk.fallbackCardUrl)).card;
    const only03 = await createClient({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') });
    assert.equal(only03.agentInterface.url, `${sdk.fallbackCardUrl}/a2a/jsonrpc03`);
    assert.equal(taskOf(await only03.sendText('direct')).status.state, 'TASK_STATE_COMPLETED');
    await assert.rejects(createClient(only03.card, { versions: ['1.0'] }), (e) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE'));
  });
});

describe('VER-06 fallback: our own server with only A2A 0.3 enabled', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ handler: { supportedVersions: ['0.3'] } });
  });
  after(() => server.close());

  for (const binding of BINDINGS) {
    test(`${binding}: the 1.0 call answered VersionNotSupported succeeds over 0.3, without options`, async () => {
      const seen = record(server);
      const client = await createClient(server.card, { bindings: [binding] });
      assert.equal(client.agentInterface.protocolVersion, '1.0');
      const task = taskOf(await client.sendText('hello old server'));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hello old server' }]);
      const events = await collect(client.streamText('stream please'));
      assert.equal(trace(events)[0], 'task:SUBMITTED');
      assert.equal(trace(events).at(-1), 'status:COMPLETED');
      assert.equal((await client.getTask({ id: task.id })).status.state, 'TASK_STATE_COMPLETED');
      const base = new URL(binding === 'JSONRPC' ? server.jsonRpcUrl : server.restUrl).pathname.replace(/\/+$/, '');
      const wire = seen.map((s) => [s.path.slice(base.length), s.headers['a2a-version'], s.status]);
      if (binding === 'JSONRPC') {
        assert.deepEqual(
          seen.map((s) => [(JSON.parse(s.body) as { method: string }).method, s.headers['a2a-version']]),
          [
            ['SendMessage', '1.0'],
            ['message/send', undefined],
            ['message/stream', undefined],
            ['tasks/get', undefined],
          ],
        );
      } else {
        assert.deepEqual(wire, [
          ['/message:send', '1.0', 400],
          ['/v1/message:send', undefined, 201],
          ['/v1/message:stream', undefined, 200],
          [`/v1/tasks/${task.id}`, undefined, 200],
        ]);
      }
    });
  }
});
