/**
 * The VersionNotSupported fallback (issue 9) over gRPC, as over JSON-RPC and HTTP+JSON
 * (test/client/compatFallback.test.ts): with `grpc03Transport()`, a call over a 1.0 GRPC
 * interface answered VersionNotSupported (VER-06) is repeated once over A2A 0.3 (VER-05: no
 * a2a-version, `a2a.v1.A2AService`) when the error lists 0.3 or the card lists a 0.3 GRPC
 * interface, and the client stays on 0.3. Against our own grpc-js server with only 0.3 enabled,
 * and the OFFICIAL 0.3 JS SDK gRPC server behind a 1.0 interface that refuses 1.0. Pinned to 1.0
 * (VER-09), no fallback.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChannelOptions, Interceptor } from '@grpc/grpc-js';
import { InterceptingCall } from '@grpc/grpc-js';
import { grpc03Transport, type Grpc03TransportFactory } from '../../src/bindings/grpc/index.js';
import { VersionNotSupportedError, createClient, type Task } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { startSdk03GrpcServer, type Sdk03GrpcServer } from '../support/sdk03GrpcServer.js';
import { collect, trace } from '../client/helpers.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

/** Every rpc the client sends, as [host:port, path, a2a-version metadata]. */
type Sent = [string, string, string | undefined];

/** grpc03Transport with a grpc-js client interceptor recording each rpc (the fallback happens below the client's own interceptors). */
function recordingTransport(): { transport: Grpc03TransportFactory; sent: Sent[] } {
  const sent: Sent[] = [];
  const interceptor: Interceptor = (options, next) => {
    const call = next(options);
    return new InterceptingCall(call, {
      start(metadata, listener, start) {
        const version = metadata.get('a2a-version')[0];
        sent.push([call.getPeer().replace(/^dns:/, ''), options.method_definition.path, version === undefined ? undefined : String(version)]);
        start(metadata, listener);
      },
    });
  };
  // grpc-js reads `interceptors` from the client options the channel options are spread into.
  return { transport: grpc03Transport({ channelOptions: { interceptors: [interceptor] } as ChannelOptions }), sent };
}

function taskOf(result: { task: Task } | { message: unknown }): Task {
  assert.ok('task' in result, `expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

const V10 = '/lf.a2a.v1.A2AService';
const V03 = '/a2a.v1.A2AService';
const pathsOf = (sent: readonly Sent[]) => sent.map(([, path, version]) => [path, version]);

describe('VER-06 fallback over gRPC: our own server with only A2A 0.3 enabled', () => {
  let server: GrpcTestServer;
  before(async () => {
    server = await startGrpcServer({ grpc: { supportedVersions: ['0.3'] } });
  });
  after(() => server.close());

  test('the error lists 0.3: the 1.0 call is repeated over 0.3 at the same address, and later calls go there directly', async () => {
    const { transport, sent } = recordingTransport();
    try {
      const client = await createClient(server.card, { transports: [transport], bindings: ['GRPC'] });
      assert.equal(client.agentInterface.protocolVersion, '1.0');
      const task = taskOf(await client.sendText('hello old server'));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(task.artifacts?.[0]?.parts, [{ text: 'hello old server' }]);
      const events = await collect(client.streamText('stream please'));
      assert.equal(trace(events).at(-1), 'status:COMPLETED');
      assert.equal((await client.getTask({ id: task.id })).status.state, 'TASK_STATE_COMPLETED');
      assert.deepEqual(pathsOf(sent), [
        [`${V10}/SendMessage`, '1.0'],
        [`${V03}/SendMessage`, undefined],
        [`${V03}/SendStreamingMessage`, undefined],
        [`${V03}/GetTask`, undefined],
      ]);
    } finally {
      transport.close();
    }
  });

  test('a stream is the first call: it falls back too (the refusal comes before the first event)', async () => {
    const { transport, sent } = recordingTransport();
    try {
      const client = await createClient(server.card, { transports: [transport], bindings: ['GRPC'] });
      assert.equal(trace(await collect(client.streamText('stream first'))).at(-1), 'status:COMPLETED');
      assert.deepEqual(pathsOf(sent), [
        [`${V10}/SendStreamingMessage`, '1.0'],
        [`${V03}/SendStreamingMessage`, undefined],
      ]);
    } finally {
      transport.close();
    }
  });

  test('VER-09 pinned to 1.0 (versions: ["1.0"]): the VersionNotSupportedError reaches the caller', async () => {
    const { transport, sent } = recordingTransport();
    try {
      const client = await createClient(server.card, { transports: [transport], bindings: ['GRPC'], versions: ['1.0'] });
      await assert.rejects(client.sendText('hi'), (e) => e instanceof VersionNotSupportedError && e.metadata.supportedVersions === '0.3');
      assert.deepEqual(pathsOf(sent), [[`${V10}/SendMessage`, '1.0']]);
    } finally {
      transport.close();
    }
  });
});

describe('VER-06 fallback over gRPC: the official 0.3 SDK gRPC server listed as the 0.3 interface of a 1.0 card', () => {
  let sdk: Sdk03GrpcServer;
  let refusing: GrpcTestServer;
  let card: AgentCard;
  before(async () => {
    sdk = await startSdk03GrpcServer();
    // A 1.0 interface whose server refuses 1.0 without naming 0.3: only the card leads to 0.3.
    refusing = await startGrpcServer({ grpc: { supportedVersions: ['2.0'], compat03: false } });
    card = { ...refusing.card, supportedInterfaces: [...refusing.card.supportedInterfaces, { url: sdk.address, protocolBinding: 'GRPC', protocolVersion: '0.3' }] };
  });
  after(async () => {
    await refusing.close();
    await sdk.close();
  });

  test("the card's 0.3 GRPC interface is used (the error says nothing of 0.3), for unary calls and streams", async () => {
    const { transport, sent } = recordingTransport();
    try {
      const client = await createClient(card, { transports: [transport], bindings: ['GRPC'] });
      assert.equal(client.agentInterface.url, refusing.address, '1.0 is preferred when both are listed');
      const task = taskOf(await client.sendText('hi sdk'));
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal((await client.getTask({ id: task.id })).id, task.id);
      assert.equal(trace(await collect(client.streamText('stream sdk'))).at(-1), 'status:COMPLETED');
      assert.deepEqual(sent, [
        [refusing.address, `${V10}/SendMessage`, '1.0'],
        [sdk.address, `${V03}/SendMessage`, undefined],
        [sdk.address, `${V03}/GetTask`, undefined],
        [sdk.address, `${V03}/SendStreamingMessage`, undefined],
      ]);
    } finally {
      transport.close();
    }
  });
});
