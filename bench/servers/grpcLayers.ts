/**
 * One gRPC SendMessage server per child process for bench/grpcLayers.ts, built up layer by layer
 * on grpc-js (compiled JavaScript from dist/, like the other bench servers):
 *
 * - `bare`: a constant answer (our recorded SendMessage response), the request not even decoded;
 * - `decode`: the same, after decoding the request as our binding does (requestToJson);
 * - `binding`: our gRPC service (createGrpcService) over a handler whose `unary` answers a
 *   recorded Task at once: metadata, CallContext, decoding, encoding, no A2A work;
 * - `full`: our gRPC service over the real request handler and the demo agent, in-memory store.
 *
 * Reports `{ port }` over IPC; on 'start' / 'stop' messages it measures its own CPU (all
 * threads, process.cpuUsage) and sends `{ cpuUs }` back.
 */
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import type * as Codec from '../../src/bindings/grpc/codec.js';
import type * as GrpcServer from '../../src/bindings/grpc/server.js';
import type * as Gen from '../../src/gen/a2a_pb.js';
import type * as RequestHandler from '../../src/server/requestHandler.js';
import type * as Demo from '../../src/cli/agents/demo.js';
import type * as PushOptions from '../../src/push/pushOptions.js';
import { GRPC_LAYERS, type GrpcLayer } from './ipc.js';

const layer = process.argv[2] as GrpcLayer;
if (!GRPC_LAYERS.includes(layer)) throw new Error(`unknown layer ${layer}`);
const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const { requestToJson } = (await import(dist('bindings/grpc/codec.js'))) as typeof Codec;
const { createGrpcService, encodeResponse } = (await import(dist('bindings/grpc/server.js'))) as typeof GrpcServer;
const { SendMessageRequestSchema, SendMessageResponseSchema } = (await import(dist('gen/a2a_pb.js'))) as typeof Gen;
const { A2ARequestHandler } = (await import(dist('server/requestHandler.js'))) as typeof RequestHandler;
const { demoAgent, demoCard } = (await import(dist('cli/agents/demo.js'))) as typeof Demo;
const { createPushRuntime } = (await import(dist('push/pushOptions.js'))) as typeof PushOptions;

// The handler of row 6's `ours` (servers/grpc.ts).
const handler = new A2ARequestHandler({
  agentCard: { ...demoCard(), supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0' }] },
  executor: demoAgent,
  push: { runtime: createPushRuntime },
});
const recorded = await handler.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { protocolVersion: '1.0', requestedExtensions: [] });
const answer = encodeResponse(SendMessageResponseSchema, recorded);

const server = new Server();
if (layer === 'bare' || layer === 'decode') {
  const id = (b: Buffer): Buffer => b;
  const definition = { path: '/lf.a2a.v1.A2AService/SendMessage', requestStream: false, responseStream: false, requestSerialize: id, requestDeserialize: id, responseSerialize: id, responseDeserialize: id };
  server.addService({ sendMessage: definition }, {
    sendMessage: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
      if (layer === 'decode') requestToJson(SendMessageRequestSchema, call.request);
      callback(null, answer);
    },
  });
} else {
  // `binding`: every other member (card, limits, observer) is the real handler's.
  const served = layer === 'binding' ? Object.assign(Object.create(handler) as typeof handler, { unary: async () => recorded }) : handler;
  const service = createGrpcService(served);
  server.addService(service.definition, service.implementation);
}
const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))));
let since = process.cpuUsage();
process.on('message', (message: string) => {
  if (message === 'start') since = process.cpuUsage();
  if (message === 'stop') {
    const used = process.cpuUsage(since);
    process.send?.({ cpuUs: used.user + used.system });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ port });
