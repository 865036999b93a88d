/**
 * A gRPC A2A server on 127.0.0.1:<free port> (serveGrpc) over the same request handler the HTTP
 * bindings use, serving the test agent (demo + throw/crash) with a card whose GRPC interface url
 * is the real `host:port` (GRPC-06).
 */
import { demoCard, type DemoOptions } from '../../src/cli/agents/demo.js';
import { serveGrpc, type RunningGrpcServer, type ServeGrpcOptions } from '../../src/bindings/grpc/listener.js';
import { withInterfaces, type AgentCardBase } from '../../src/server/agentDefinition.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { A2ARequestHandler, type RequestHandlerOptions } from '../../src/server/requestHandler.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { testAgent } from '../support/server.js';
import { TEST_PUSH } from '../support/server.js';

export interface GrpcTestServerOptions {
  /** Changes the demo card before the interfaces are added. */
  card?: (card: AgentCardBase) => AgentCardBase;
  executor?: AgentExecutor;
  demo?: DemoOptions;
  extendedCard?: AgentCardBase;
  handler?: Partial<Omit<RequestHandlerOptions, 'agentCard' | 'executor'>>;
  grpc?: Omit<ServeGrpcOptions, 'port' | 'host'>;
}

export interface GrpcTestServer {
  /** host:port */
  address: string;
  card: AgentCard;
  handler: A2ARequestHandler;
  bus: LocalEventBus;
  running: RunningGrpcServer;
  errors: unknown[];
  close(): Promise<void>;
}

export async function startGrpcServer(options: GrpcTestServerOptions = {}): Promise<GrpcTestServer> {
  const errors: unknown[] = [];
  const ref: { handler?: A2ARequestHandler } = {};
  const running = await serveGrpc(() => ref.handler as A2ARequestHandler, {
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    onError: (e) => errors.push(e),
    // An extended card needs authenticated callers (XCARD-03); tests without auth say a gateway does.
    ...(options.extendedCard ? { auth: 'external' as const } : {}),
    ...options.grpc,
  });
  const urls = { httpBaseUrl: 'http://127.0.0.1', jsonRpcPath: null, restPath: null, grpcAddress: running.address };
  const base = demoCard() as AgentCardBase;
  const card = withInterfaces(options.card ? options.card(structuredClone(base)) : base, urls);
  const bus = new LocalEventBus();
  ref.handler = new A2ARequestHandler({
    agentCard: card,
    executor: options.executor ?? testAgent(options.demo),
    bus,
    ...(options.extendedCard ? { extendedAgentCard: withInterfaces(options.extendedCard, urls) } : {}),
    onError: (e) => errors.push(e),
    ...options.handler,
    push: { ...TEST_PUSH, ...options.handler?.push },
  });
  return { address: running.address, card, handler: ref.handler, bus, running, errors, close: () => running.close() };
}
