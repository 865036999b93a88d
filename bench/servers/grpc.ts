/**
 * gRPC bench servers, one per child process: `node --import tsx bench/servers/grpc.ts <kind>`.
 *
 * - `ours`: serveGrpc (src/bindings/grpc/listener.ts) over A2ARequestHandler + the demo agent and
 *   the in-memory store, compiled JavaScript from dist/ like servers/ours.ts.
 * - `sdk`: the official @a2a-js/sdk gRPC server (grpcService + DefaultRequestHandler), started
 *   exactly as the interop tests start it (test/grpc/sdkServer.ts).
 * - `bare`: a bare @grpc/grpc-js server answering constant, pre-recorded bytes (our own answer
 *   for each method, sent by the parent) — the gRPC ceiling.
 */
import { Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData } from '@grpc/grpc-js';
import type * as Demo from '../../src/cli/agents/demo.js';
import type * as GrpcListener from '../../src/bindings/grpc/listener.js';
import type * as PushOptions from '../../src/push/pushOptions.js';
import type * as RequestHandler from '../../src/server/requestHandler.js';
import { exitWithParent, reportReady, type GrpcCannedConfig } from './ipc.js';

const kind = process.argv[2];
const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const ready = (port: number, close: () => Promise<void> | void): void => {
  const address = `127.0.0.1:${port}`;
  reportReady({ name: `grpc-${kind}`, url: address, jsonrpc: address, rest: address });
  exitWithParent(close);
};

if (kind === 'ours') {
  const { demoAgent, demoCard } = (await import(dist('cli/agents/demo.js'))) as typeof Demo;
  const { serveGrpc } = (await import(dist('bindings/grpc/listener.js'))) as typeof GrpcListener;
  const { A2ARequestHandler } = (await import(dist('server/requestHandler.js'))) as typeof RequestHandler;
  const { createPushRuntime } = (await import(dist('push/pushOptions.js'))) as typeof PushOptions;
  const handler = new A2ARequestHandler({
    agentCard: { ...demoCard(), supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0' }] },
    executor: demoAgent,
    push: { runtime: createPushRuntime },
  });
  const server = await serveGrpc(handler, { port: 0, host: '127.0.0.1', shutdownTimeoutMs: 1000 });
  ready(server.port, () => server.close());
} else if (kind === 'sdk') {
  const { startSdkGrpcServer } = await import('../../test/grpc/sdkServer.js');
  const server = await startSdkGrpcServer();
  ready(Number(server.address.split(':').pop()), () => server.close());
} else if (kind === 'bare') {
  let unary = Buffer.alloc(0);
  let stream: Buffer[] = [];
  process.on('message', (msg: GrpcCannedConfig) => {
    if (msg.type !== 'canned-grpc') return;
    unary = Buffer.from(msg.unary, 'base64');
    stream = msg.stream.map((s) => Buffer.from(s, 'base64'));
    process.send?.({ type: 'configured' });
  });
  const id = (b: Buffer): Buffer => b;
  const method = (name: string, responseStream: boolean) => ({
    path: `/lf.a2a.v1.A2AService/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
  });
  const server = new Server();
  server.addService(
    { SendMessage: method('SendMessage', false), SendStreamingMessage: method('SendStreamingMessage', true) },
    {
      SendMessage: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, unary),
      SendStreamingMessage: (call: ServerWritableStream<Buffer, Buffer>) => {
        for (const event of stream) call.write(event);
        call.end();
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  ready(port, () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
} else {
  throw new Error(`unknown gRPC bench server "${kind}" (ours | sdk | bare)`);
}
