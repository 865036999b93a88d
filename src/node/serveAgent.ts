/**
 * Serve an agent definition on Node in one call: bind the listener, write the final URLs into
 * the card's supportedInterfaces (the port may have been 0), then install the handler.
 */
import { withInterfaces, type AgentDefinition } from '../server/agentDefinition.js';
import { createA2AHandler, handlerAuthenticator, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler, type A2AHandlerOptions } from '../server/createA2AHandler.js';
import type { AgentCard } from '../protocol/types.js';
import type { RunningGrpcServer } from '../bindings/grpc/server.js';
import { serve, type RunningServer, type ServeOptions } from './serve.js';
import { createPushRuntime } from '../push/pushOptions.js';
import type { AuthConfig } from '../auth/authConfig.js';
import { nodeJsonFetcher } from '../auth/nodeJsonFetcher.js';

export interface ServeAgentOptions extends ServeOptions {
  agent: AgentDefinition;
  /** Base URL written into the card (default http://localhost:PORT on loopback, else http://HOST:PORT). */
  publicUrl?: string;
  /** Everything else createA2AHandler accepts (store, bus, limits, onError...). */
  handler?: Omit<A2AHandlerOptions, 'agentCard' | 'executor' | 'extendedAgentCard'>;
  /**
   * Also serve gRPC (needs the optional dependency @grpc/grpc-js) on its own port, over the
   * same request handler, with `tls` when given. The card's GRPC interface is `host:port`
   * (GRPC-06): `publicAddress`, else the host of `publicUrl` (or localhost on loopback) and
   * the bound port.
   */
  grpc?: { port: number; host?: string; publicAddress?: string; maxMessageBytes?: number };
  /** Applied to the final cards (with their interfaces) before they are served, e.g. `signCardWith(keyFile)` from a2a-kit's signing module. */
  signCard?: (card: AgentCard) => Promise<AgentCard>;
}

export interface RunningAgent extends RunningServer {
  readonly handler: A2AHandler;
  /** The gRPC listener, when `grpc` was given. */
  readonly grpc: RunningGrpcServer | undefined;
  readonly agentCard: AgentCard;
  /** The public base URL the card advertises. */
  readonly baseUrl: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serveAgent(options: ServeAgentOptions): Promise<RunningAgent> {
  // A card whose security cannot be enforced as configured fails before anything listens.
  handlerAuthenticator(options.agent.card, options.handler?.auth);
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
  const publicHost = LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const baseUrl = (options.publicUrl ?? `${options.tls ? 'https' : 'http'}://${publicHost}:${server.port}`).replace(/\/$/, '');
  let grpc: RunningGrpcServer | undefined;
  if (options.grpc) {
    // Loaded only when asked for: @grpc/grpc-js is an optional dependency.
    const { serveGrpc } = await import('../bindings/grpc/server.js');
    try {
      grpc = await serveGrpc(() => (ref.handler as A2AHandler).requestHandler, {
        port: options.grpc.port,
        host: options.grpc.host ?? host,
        // The HTTP listener drains the shared handler on close.
        drainOnClose: false,
        // The card's security is enforced by the same authenticator as over HTTP.
        auth: () => ref.handler?.authenticator,
        ...(options.tls ? { tls: options.tls } : {}),
        ...(options.grpc.maxMessageBytes ? { maxMessageBytes: options.grpc.maxMessageBytes } : {}),
        ...(options.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: options.shutdownTimeoutMs } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
      });
    } catch (error) {
      await server.close();
      throw error;
    }
  }
  const grpcAddress = grpc ? (options.grpc?.publicAddress ?? `${options.publicUrl ? new URL(options.publicUrl).hostname : publicHost}:${grpc.port}`) : undefined;
  const jsonRpcPath = options.handler?.jsonRpcPath === undefined ? DEFAULT_JSONRPC_PATH : options.handler.jsonRpcPath;
  const restPath = options.handler?.restPath === undefined ? DEFAULT_REST_PATH : options.handler.restPath;
  const urls = { httpBaseUrl: baseUrl, jsonRpcPath, restPath, ...(grpcAddress ? { grpcAddress } : {}) };
  let agentCard = withInterfaces(options.agent.card, urls);
  let extendedCard = options.agent.extendedCard ? withInterfaces(options.agent.extendedCard, urls) : undefined;
  if (options.signCard) {
    try {
      agentCard = await options.signCard(agentCard);
      if (extendedCard) extendedCard = await options.signCard(extendedCard);
    } catch (error) {
      await Promise.all([grpc?.close(), server.close()]);
      throw error;
    }
  }
  const handler = createA2AHandler({
    ...options.handler,
    ...(options.handler?.auth ? { auth: withNodeFetcher(options.handler.auth) } : {}),
    push: { runtime: createPushRuntime, ...options.handler?.push },
    ...(options.agent.resumable ? { resumable: true } : {}),
    agentCard,
    executor: options.agent.executor,
    ...(extendedCard ? { extendedAgentCard: extendedCard } : {}),
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
    async close() {
      // gRPC streams end with UNAVAILABLE, HTTP streams with a retry hint; then the handler drains.
      await Promise.all([grpc?.close(), server.close()]);
    },
    handler,
    grpc,
    agentCard,
    baseUrl,
  };
}

/** JWKS and discovery documents are fetched through the SSRF guard (R14) unless a fetcher is given. */
function withNodeFetcher(auth: AuthConfig | 'external'): AuthConfig | 'external' {
  if (auth === 'external' || auth.fetchJson) return auth;
  return { ...auth, fetchJson: nodeJsonFetcher({ ssrf: { allowPrivate: auth.allowPrivateNetworks === true } }) };
}
