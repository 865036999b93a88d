/**
 * Serve an agent definition on Node in one call: bind the listener, write the final URLs into
 * the card's supportedInterfaces (the port may have been 0), then install the handler.
 */
import { withInterfaces, type AgentDefinition } from '../server/agentDefinition.js';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler, type A2AHandlerOptions } from '../server/createA2AHandler.js';
import type { AgentCard } from '../protocol/types.js';
import { serve, type RunningServer, type ServeOptions } from './serve.js';

export interface ServeAgentOptions extends ServeOptions {
  agent: AgentDefinition;
  /** Base URL written into the card (default http://localhost:PORT on loopback, else http://HOST:PORT). */
  publicUrl?: string;
  /** Everything else createA2AHandler accepts (store, bus, limits, onError...). */
  handler?: Omit<A2AHandlerOptions, 'agentCard' | 'executor' | 'extendedAgentCard'>;
}

export interface RunningAgent extends RunningServer {
  readonly handler: A2AHandler;
  readonly agentCard: AgentCard;
  /** The public base URL the card advertises. */
  readonly baseUrl: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serveAgent(options: ServeAgentOptions): Promise<RunningAgent> {
  const ref: { handler?: A2AHandler } = {};
  const server = await serve(
    {
      handle: (req) => (ref.handler as A2AHandler).handle(req),
      get requestHandler() {
        return ref.handler?.requestHandler;
      },
    },
    options,
  );
  const host = options.host ?? '127.0.0.1';
  const baseUrl = (options.publicUrl ?? `http://${LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${server.port}`).replace(/\/$/, '');
  const jsonRpcPath = options.handler?.jsonRpcPath === undefined ? DEFAULT_JSONRPC_PATH : options.handler.jsonRpcPath;
  const restPath = options.handler?.restPath === undefined ? DEFAULT_REST_PATH : options.handler.restPath;
  const urls = { httpBaseUrl: baseUrl, jsonRpcPath, restPath };
  const agentCard = withInterfaces(options.agent.card, urls);
  const handler = createA2AHandler({
    ...options.handler,
    agentCard,
    executor: options.agent.executor,
    ...(options.agent.extendedCard ? { extendedAgentCard: withInterfaces(options.agent.extendedCard, urls) } : {}),
  });
  ref.handler = handler;
  return {
    url: server.url,
    port: server.port,
    host: server.host,
    server: server.server,
    get openStreams() {
      return server.openStreams;
    },
    close: () => server.close(),
    handler,
    agentCard,
    baseUrl,
  };
}
