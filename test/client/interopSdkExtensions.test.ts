/**
 * EXT-05 interop: our client against the OFFICIAL A2A JS SDK (@a2a-js/sdk 1.3) server, whose
 * agent activates an extension it declares (`context.addActivatedExtension`) when the client
 * asked for it; the SDK's Express apps echo the activated ones in `A2A-Extensions` (its gRPC
 * service in `a2a-extensions` metadata), and our client reports them (`onActivatedExtensions`)
 * over JSON-RPC, HTTP+JSON and gRPC.
 *
 * Streams: the SDK's HTTP+JSON app sets the header once the first event exists (the agent has
 * run), so the stream's echo lists the extension; its JSON-RPC app and gRPC service send it as
 * soon as the handler returns the stream, before the agent ran, so their echo is empty. All are
 * checked below, so that a change in the SDK shows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import { grpcTransport, type GrpcTransportFactory } from '../../src/bindings/grpc/index.js';
import { createClient } from '../../src/client/index.js';
import type { AgentCard, Message } from '../../src/protocol/types.js';
import { sdkAgent } from '../support/sdkServer.js';

const EXT = 'https://example.com/ext/audit/v1';
const UNKNOWN = 'https://example.com/ext/unknown/v1';

let counter = 0;
const user = (text: string): Message => ({ messageId: `sdk-ext-${process.pid}-${++counter}`, role: 'ROLE_USER', parts: [{ text }] });

/** The shared SDK test agent, activating EXT whenever the call asked for it. */
function activatingAgent(): AgentExecutor {
  const inner = sdkAgent();
  return {
    execute(ctx, bus) {
      if (ctx.context?.requestedExtensions?.includes(EXT)) ctx.context.addActivatedExtension(EXT);
      return inner.execute(ctx, bus);
    },
    cancelTask: (taskId, bus) => inner.cancelTask(taskId, bus),
  };
}

describe('EXT-05 interop: the official SDK server activates an extension, our client reports it', () => {
  let http: Server;
  let grpc: GrpcServer;
  let card: AgentCard;
  const transports: GrpcTransportFactory[] = [grpcTransport()];
  before(async () => {
    const app = express();
    http = createServer(app);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    grpc = new GrpcServer();
    const grpcPort = await new Promise<number>((resolve, reject) => grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    card = {
      name: 'SDK agent with an extension',
      description: 'An agent served by the official SDK',
      version: '1.0.0',
      supportedInterfaces: [
        { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, extensions: [{ uri: EXT, description: 'audit trail' }] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
    };
    const handler = new DefaultRequestHandler(SdkAgentCard.fromJSON(card), new InMemoryTaskStore(), activatingAgent());
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    grpc.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }));
  });
  after(async () => {
    transports[0]?.close();
    grpc.forceShutdown();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
    test(`${binding}: a unary call reports the activated extension, not the unknown one; without asking, none`, async () => {
      const client = await createClient(card, { bindings: [binding], transports, extensions: [EXT, UNKNOWN] });
      const reports: string[][] = [];
      const result = await client.sendMessage({ message: user('hi sdk') }, { onActivatedExtensions: (uris) => reports.push(uris) });
      assert.ok('task' in result && result.task.status.state === 'TASK_STATE_COMPLETED', JSON.stringify(result));
      assert.deepEqual(reports, [[EXT]]);
      const plain = await createClient(card, { bindings: [binding], transports });
      await plain.sendMessage({ message: user('hi sdk') }, { onActivatedExtensions: (uris) => reports.push(uris) });
      assert.deepEqual(reports, [[EXT], []]);
    });

    const streamed = binding === 'HTTP+JSON' ? EXT : '';
    test(`${binding}: a stream is reported once open, before its first event (the SDK echoes [${streamed}])`, async () => {
      const client = await createClient(card, { bindings: [binding], transports, extensions: [EXT] });
      const seen: string[] = [];
      for await (const event of client.sendStreamingMessage({ message: user('stream it') }, { onActivatedExtensions: (uris) => seen.push(`activated [${uris.join()}]`) })) {
        seen.push(Object.keys(event)[0] as string);
      }
      assert.equal(seen[0], `activated [${streamed}]`);
      assert.equal(seen.at(-1), 'statusUpdate');
    });
  }
});
