/**
 * Extensions over A2A 0.3 (EXT rules in the 0.3 dialect): 0.3 clients activate extensions with
 * `X-A2A-Extensions` (the 0.3 JS SDK's HTTP_EXTENSION_HEADER, also its gRPC metadata key), not
 * `A2A-Extensions`. Over real sockets:
 *  - the official 0.3 SDK client (JSON-RPC, REST, gRPC) against our server whose card requires
 *    an extension: without it -32008, with it served and the activated extension echoed in
 *    X-A2A-Extensions; browsers may send and read it (CORS); 1.0 calls still read A2A-Extensions;
 *  - our client against the official 0.3 SDK server: it sends the extension as X-A2A-Extensions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Metadata } from '@grpc/grpc-js';
import type * as Sdk from 'a2a-sdk-03';
import { HTTP_EXTENSION_HEADER } from 'a2a-sdk-03';
import { JsonRpcTransport, RestTransport, ServiceParameters, withA2AExtensions } from 'a2a-sdk-03/client';
import { GrpcTransport } from 'a2a-sdk-03/client/grpc';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from 'a2a-sdk-03/server';
import { UserBuilder, jsonRpcHandler, restHandler } from 'a2a-sdk-03/server/express';
import { createClient } from '../../src/client/index.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { TEST_PUSH } from '../support/server.js';
import { jsonRpcBinding } from '../support/bindings.js';
import { expectError } from '../support/assertions.js';
import { asTask, collect, params03 } from './serverSupport.js';

const EXT = 'https://example.com/ext/required/v1';
const WITH_EXT = { serviceParameters: ServiceParameters.create(withA2AExtensions(EXT)) };

/** A fetch that keeps the response headers the 0.3 SDK client received. */
function recordingFetch(seen: Headers[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    seen.push(res.headers);
    return res;
  };
}

test('the 0.3 SDK names the header X-A2A-Extensions (HTTP and gRPC metadata)', () => {
  assert.equal(HTTP_EXTENSION_HEADER, 'X-A2A-Extensions');
});

describe('0.3 SDK clients activate a required extension on our server with X-A2A-Extensions', () => {
  let agent: RunningAgent;
  let jsonRpcUrl: string;
  let restUrl: string;
  let grpcAddress: string;

  before(async () => {
    const base = demoCard();
    const card: Omit<AgentCard, 'supportedInterfaces'> = { ...base, capabilities: { ...base.capabilities, extensions: [{ uri: EXT, required: true }] } };
    agent = await serveAgent({
      agent: { card, executor: createDemoAgent({ slowMs: 1500, tickMs: 50 }) },
      port: 0,
      host: '127.0.0.1',
      shutdownTimeoutMs: 300,
      grpc: { port: 0 },
      handler: { push: TEST_PUSH, corsOrigins: '*' },
    });
    const interfaces = agent.agentCard.supportedInterfaces;
    jsonRpcUrl = interfaces.find((i) => i.protocolBinding === 'JSONRPC')?.url as string;
    restUrl = interfaces.find((i) => i.protocolBinding === 'HTTP+JSON')?.url as string;
    grpcAddress = `127.0.0.1:${agent.grpc?.port}`;
  });
  after(() => agent.close());

  test('JSON-RPC: without the extension -32008; with X-A2A-Extensions served, the activation echoed in X-A2A-Extensions', async () => {
    const seen: Headers[] = [];
    const t = new JsonRpcTransport({ endpoint: jsonRpcUrl, fetchImpl: recordingFetch(seen) });
    await assert.rejects(t.sendMessage(params03('hi no ext')), (e: unknown) => (e as { errorResponse?: { error: { code: number } } }).errorResponse?.error.code === -32008);
    seen.length = 0;
    assert.equal(asTask(await t.sendMessage(params03('hi ext'), WITH_EXT)).status.state, 'completed');
    assert.equal(seen[0]?.get('x-a2a-extensions'), EXT);
    assert.equal(seen[0]?.get('a2a-extensions'), null, 'a 0.3 answer echoes under the 0.3 name');
    const events = (await collect(t.sendMessageStream(params03('stream ext'), WITH_EXT))) as { kind: string; final?: boolean }[];
    assert.equal(events.at(-1)?.final, true);
  });

  test('REST: without the extension -32008; with X-A2A-Extensions served and echoed', async () => {
    const seen: Headers[] = [];
    const t = new RestTransport({ endpoint: restUrl, fetchImpl: recordingFetch(seen) });
    await assert.rejects(t.sendMessage(params03('hi rest no ext')), /Code: -32008/);
    seen.length = 0;
    assert.equal(asTask(await t.sendMessage(params03('hi rest ext'), WITH_EXT)).status.state, 'completed');
    assert.equal(seen[0]?.get('x-a2a-extensions'), EXT);
  });

  test('gRPC (a2a.v1.A2AService): the x-a2a-extensions metadata activates it', async () => {
    const t = new GrpcTransport({ endpoint: grpcAddress });
    await assert.rejects(t.sendMessage(params03('hi grpc no ext')), /extension/i);
    assert.equal(asTask(await t.sendMessage(params03('hi grpc ext'), WITH_EXT)).status.state, 'completed');
    // What it sends: the metadata key is the header name, lowercased by grpc-js.
    const metadata = new Metadata();
    metadata.set(HTTP_EXTENSION_HEADER, EXT);
    assert.deepEqual(metadata.get('x-a2a-extensions'), [EXT]);
  });

  test('A2A-Extensions on a 0.3 call is read too; 1.0 calls read only A2A-Extensions', async () => {
    const res = await fetch(jsonRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Extensions': EXT },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: params03('hi 1.0 name') }),
    });
    assert.equal(((await res.json()) as { result?: { kind: string } }).result?.kind, 'task');
    assert.equal(res.headers.get('x-a2a-extensions'), EXT);
    const v10 = jsonRpcBinding(jsonRpcUrl);
    const refused = await v10.call('sendMessage', { message: { role: 'ROLE_USER', messageId: `m-${process.pid}-x`, parts: [{ text: 'hi' }] } }, { headers: { 'X-A2A-Extensions': EXT } });
    expectError(refused, 'EXTENSION_SUPPORT_REQUIRED');
  });

  test('CORS: browsers may send X-A2A-Extensions and read it back', async () => {
    const preflight = await fetch(jsonRpcUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-a2a-extensions' },
    });
    assert.ok(preflight.status < 300, String(preflight.status));
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /(^|, )X-A2A-Extensions(,|$)/);
    const res = await fetch(jsonRpcUrl, {
      method: 'POST',
      headers: { origin: 'https://app.example', 'content-type': 'application/json', 'X-A2A-Extensions': EXT },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }),
    });
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /(^|, )X-A2A-Extensions(,|$)/);
  });
});

describe('our client activates extensions on the official 0.3 SDK server with X-A2A-Extensions', () => {
  let http: Server;
  let url: string;

  before(async () => {
    const app = express();
    http = createServer(app);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const card: Sdk.AgentCard = {
      protocolVersion: '0.3.0',
      name: 'SDK 0.3 extension agent',
      description: 'Answers with the extensions it was asked for',
      url: `${url}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: `${url}/a2a/jsonrpc`, transport: 'JSONRPC' },
        { url: `${url}/a2a/rest`, transport: 'HTTP+JSON' },
      ],
      version: '1.0.0',
      capabilities: { streaming: true, extensions: [{ uri: EXT }] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    // The SDK hands the executor the requested extensions the card declares (from X-A2A-Extensions only).
    const executor: AgentExecutor = {
      async execute(ctx, bus) {
        const requested = ctx.context?.requestedExtensions ?? [];
        bus.publish({ kind: 'message', messageId: `r-${ctx.taskId}`, role: 'agent', contextId: ctx.contextId, parts: [{ kind: 'text', text: `requested: ${requested.join(',')}` }] });
        bus.finished();
      },
      async cancelTask() {},
    };
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
    app.get('/.well-known/agent-card.json', (_req, res) => {
      res.json(card);
    });
    app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    test(`${binding}: the 0.3 agent sees the extension our client activates`, async () => {
      const client = await createClient(url, { extensions: [EXT], bindings: [binding] });
      const answer = await client.sendMessage({ message: { role: 'ROLE_USER', messageId: `m-ext-${binding}-${process.pid}`, parts: [{ text: 'hi' }] } });
      assert.ok('message' in answer, JSON.stringify(answer));
      assert.deepEqual(answer.message.parts[0], { text: `requested: ${EXT}` });
    });
  }
});
