/**
 * The OFFICIAL A2A 0.3 JS SDK (`a2a-sdk-03` = @a2a-js/sdk@0.3.x) gRPC server, for client compat
 * tests: its DefaultRequestHandler (in-memory task and push stores, the authenticated extended
 * card on) behind its `grpcService` (`a2a.v1.A2AService`) on a grpc-js Server on a loopback
 * port, running the shared test agent (sdk03Server.ts, agentScript.ts).
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type * as Sdk from 'a2a-sdk-03';
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from 'a2a-sdk-03/server';
import { A2AService, UserBuilder, grpcService } from 'a2a-sdk-03/server/grpc';
import { sdk03Agent } from './sdk03Server.js';

export interface Sdk03GrpcServer {
  /** host:port, the card's GRPC url. */
  address: string;
  /** Its 0.3 card (preferredTransport GRPC at `address`). */
  card: Sdk.AgentCard;
  close(): Promise<void>;
}

export async function startSdk03GrpcServer(options: { pushNotifications?: boolean } = {}): Promise<Sdk03GrpcServer> {
  const server = new Server();
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const address = `127.0.0.1:${port}`;
  const card: Sdk.AgentCard = {
    protocolVersion: '0.3.0',
    name: 'SDK 0.3 gRPC agent',
    description: 'An agent served by the official 0.3 SDK over gRPC',
    url: address,
    preferredTransport: 'GRPC',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: options.pushNotifications ?? true },
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['demo'] }],
  };
  const extendedCard: Sdk.AgentCard = { ...card, name: `${card.name} (extended)` };
  const push = options.pushNotifications === false ? undefined : new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), sdk03Agent(), undefined, push, undefined, async () => extendedCard);
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    address,
    card,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
