/**
 * JSON-08 over gRPC: every stream event is checked as the HTTP transports check theirs (one
 * piece of code, checkEvent). A bare grpc-js agent answering SendStreamingMessage with the bytes
 * `0a 00` (a StreamResponse holding an empty Task) made createGrpcClient yield {"task":{"id":""}},
 * createClient(...).streamText throw a TypeError from the TaskAssembler, and `a2a stream` exit 1
 * with "Cannot read properties of undefined (reading 'state')"; now each is INVALID_RESPONSE
 * (the CLI: exit 4). STREAM-09: createGrpcClient's streams refuse an event about another task.
 */
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { Server, ServerCredentials, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { createGrpcClient, grpcTransport } from '../../src/bindings/grpc/client.js';
import { createClient } from '../../src/client/index.js';
import { StreamResponseSchema } from '../../src/gen/a2a_pb.js';
import type { AgentCard, StreamResponse } from '../../src/protocol/types.js';
import { runToExit } from '../cli/cliHelpers.js';
import { collect, invalidResponse } from '../client/helpers.js';

const event = (json: object) => Buffer.from(toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, json as JsonValue)));
const WORKING = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
const COMPLETED = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };

/** The messages the agent streams, as bytes. */
let messages: Buffer[] = [];

let grpc: Server;
let address = '';
let cardServer: HttpServer;
let url = '';

function card(): AgentCard {
  return {
    name: 'hostile gRPC agent',
    description: 'streams what it likes',
    version: '1',
    capabilities: { streaming: true },
    supportedInterfaces: [{ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

before(async () => {
  grpc = new Server();
  const passthrough = (b: Buffer) => b;
  const def = (name: string) => ({
    path: `/lf.a2a.v1.A2AService/${name}`,
    requestStream: false,
    responseStream: true,
    requestSerialize: passthrough,
    requestDeserialize: passthrough,
    responseSerialize: passthrough,
    responseDeserialize: passthrough,
  });
  const stream = (call: ServerWritableStream<Buffer, Buffer>) => {
    for (const m of messages) call.write(m);
    call.end();
  };
  const impl: UntypedServiceImplementation = { SendStreamingMessage: stream, SubscribeToTask: stream };
  grpc.addService({ SendStreamingMessage: def('SendStreamingMessage'), SubscribeToTask: def('SubscribeToTask') }, impl);
  const port = await new Promise<number>((resolve, reject) => grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  address = `127.0.0.1:${port}`;
  cardServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card())));
  await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;
});
after(async () => {
  cardServer.close();
  await new Promise<void>((resolve) => grpc.tryShutdown(() => resolve()));
});

const request = { message: { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] } };

describe('JSON-08 gRPC stream events are shape-checked', () => {
  const malformed: Record<string, Buffer> = {
    'a StreamResponse holding an empty Task (0a 00)': Buffer.from([0x0a, 0x00]),
    'an empty StreamResponse (0 bytes)': Buffer.alloc(0),
    'a status update whose message has an empty part': event({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{}] } } } }),
  };

  test('createGrpcClient: INVALID_RESPONSE, nothing yielded', async () => {
    const client = createGrpcClient(address);
    try {
      for (const [name, bytes] of Object.entries(malformed)) {
        messages = [bytes];
        await assert.rejects(collect(client.sendStreamingMessage(request)), invalidResponse, name);
      }
      messages = [event(WORKING), event(COMPLETED)];
      assert.deepEqual(await collect(client.sendStreamingMessage(request)), [WORKING, COMPLETED]);
    } finally {
      client.close();
    }
  });

  test('createClient with grpcTransport: streamText rejects with INVALID_RESPONSE, not a TypeError', async () => {
    const transport = grpcTransport();
    try {
      const client = await createClient(card(), { transports: [transport], resume: false });
      for (const [name, bytes] of Object.entries(malformed)) {
        messages = [bytes];
        await assert.rejects(collect(client.streamText('x')), invalidResponse, name);
      }
    } finally {
      transport.close();
    }
  });

  test('a2a stream against an agent offering only gRPC: exit 4 INVALID_RESPONSE', async () => {
    messages = [Buffer.from([0x0a, 0x00])];
    const [human, json] = await Promise.all([runToExit(['stream', url, 'hi']), runToExit(['stream', url, 'hi', '--json'])]);
    assert.equal(human.code, 4, human.stdout + human.stderr);
    assert.match(human.stderr, /client error: INVALID_RESPONSE/);
    assert.equal(json.code, 4, json.stdout + json.stderr);
    assert.deepEqual(
      json.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { error: { code: string } }).error.code),
      ['INVALID_RESPONSE'],
    );
  });
});

describe('STREAM-09 gRPC: an event about another task', () => {
  test('createGrpcClient: INVALID_RESPONSE after the events of the stream’s own task', async () => {
    const client = createGrpcClient(address);
    try {
      messages = [event(WORKING), event({ statusUpdate: { ...COMPLETED.statusUpdate, taskId: 'OTHER' } })];
      const seen: StreamResponse[] = [];
      await assert.rejects(
        (async () => {
          for await (const e of client.sendStreamingMessage(request)) seen.push(e);
        })(),
        invalidResponse,
      );
      assert.deepEqual(seen, [WORKING]);
      messages = [event(WORKING)];
      await assert.rejects(collect(client.subscribeToTask({ id: 'OTHER' })), invalidResponse);
    } finally {
      client.close();
    }
  });
});
