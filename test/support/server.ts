/**
 * A real A2A server on 127.0.0.1:<free port> (node:http through serve()), serving the demo
 * agent (plus two failure keywords) with a card whose supportedInterfaces carry the real URLs.
 */
import { createDemoAgent, demoCard, type DemoOptions } from '../../src/cli/agents/demo.js';
import { serve, type RunningServer } from '../../src/node/serve.js';
import { withInterfaces, type AgentCardBase } from '../../src/server/agentDefinition.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import {
  DEFAULT_JSONRPC_PATH,
  DEFAULT_REST_PATH,
  createA2AHandler,
  type A2AHandler,
  type A2AHandlerOptions,
} from '../../src/server/createA2AHandler.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { createPushRuntime } from '../../src/push/pushOptions.js';

export interface TestServerOptions {
  /** Changes the demo card before the interfaces are added. */
  card?: (card: AgentCardBase) => AgentCardBase;
  /** Replaces the test agent. */
  executor?: AgentExecutor;
  /** Timings of the demo agent (defaults: slowMs 1500, tickMs 50). */
  demo?: DemoOptions;
  /** A card served by GetExtendedAgentCard (interfaces are added). */
  extendedCard?: AgentCardBase;
  /** Further handler options. */
  handler?: Partial<Omit<A2AHandlerOptions, 'agentCard' | 'executor' | 'extendedAgentCard'>>;
}

export interface TestServer {
  /** http://127.0.0.1:port */
  url: string;
  jsonRpcUrl: string;
  restUrl: string;
  card: AgentCard;
  handler: A2AHandler;
  running: RunningServer;
  /** Errors the handler reported through onError. */
  errors: unknown[];
  close(): Promise<void>;
}

/** Push for test servers: the Node runtime, loopback webhooks allowed (test receivers listen there). */
export const TEST_PUSH = { runtime: createPushRuntime, allowPrivateWebhooks: true };

export const DEFAULT_SLOW_MS = 1500;
export const DEFAULT_TICK_MS = 50;

/**
 * The demo agent plus:
 *   throw <text>  → execute() throws before anything else
 *   crash <text>  → WORKING, then execute() throws
 */
export function testAgent(options: DemoOptions = {}): AgentExecutor {
  const demo = createDemoAgent({ slowMs: DEFAULT_SLOW_MS, tickMs: DEFAULT_TICK_MS, ...options });
  return {
    async execute(ctx, task) {
      const keyword = ctx.text.trim().split(/\s+/)[0]?.toLowerCase();
      if (!ctx.task && keyword === 'throw') throw new Error('boom before start');
      if (!ctx.task && keyword === 'crash') {
        await task.startWork('about to crash');
        throw new Error('boom while working');
      }
      return demo.execute(ctx, task);
    },
  };
}

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const ref: { handler?: A2AHandler } = {};
  const errors: unknown[] = [];
  const running = await serve(
    {
      handle: (req) => (ref.handler as A2AHandler).handle(req),
      refusal: (refused) => (ref.handler as A2AHandler).refusal(refused),
      get requestHandler() {
        return ref.handler?.requestHandler;
      },
    },
    { port: 0, host: '127.0.0.1', shutdownTimeoutMs: 300, onError: (e) => errors.push(e) },
  );
  const urls = { httpBaseUrl: running.url, jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH };
  const base = demoCard() as AgentCardBase;
  const card = withInterfaces(options.card ? options.card(structuredClone(base)) : base, urls);
  ref.handler = createA2AHandler({
    agentCard: card,
    executor: options.executor ?? testAgent(options.demo),
    // An extended card needs authentication (§13.3): the test servers stand for an agent behind
    // a gateway that authenticates (the auth suites in test/auth configure real schemes).
    ...(options.extendedCard ? { extendedAgentCard: withInterfaces(options.extendedCard, urls), auth: 'external' as const } : {}),
    onError: (e) => errors.push(e),
    ...options.handler,
    // Test webhooks listen on loopback, which the SSRF guard refuses unless allowed.
    push: { ...TEST_PUSH, ...options.handler?.push },
  });
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  const rest = card.supportedInterfaces.find((i) => i.protocolBinding === 'HTTP+JSON');
  if (!jsonRpc || !rest) throw new Error('the test card must list JSONRPC and HTTP+JSON');
  return {
    url: running.url,
    jsonRpcUrl: jsonRpc.url,
    restUrl: rest.url,
    card,
    handler: ref.handler,
    running,
    errors,
    close: () => running.close(),
  };
}
