/**
 * Serve an agent definition on Node in one call: bind the listener, write the final URLs into
 * the card's supportedInterfaces (the port may have been 0), then install the handler. With
 * `tenants`, several agents share the listeners, the store and the bus (issue 8).
 */
import { checkExtendedCard, servesExtendedCard, withInterfaces, type AgentCardBase, type AgentDefinition, type InterfaceUrls } from '../server/agentDefinition.js';
import { finishExtendedCard, type ExtendedCardSource } from '../server/extendedCard.js';
import { createA2AHandler, handlerAuthenticator, requireExtendedCardAuth, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler, type A2AHandlerOptions } from '../server/createA2AHandler.js';
import type { A2ARequestHandler } from '../server/requestHandler.js';
import type { RequestHandlerLike } from '../server/tenantRouter.js';
import { TenantRouter, checkSameSecurity, checkTenantName } from '../server/tenantRouter.js';
import { AGENT_CARD_PATH } from '../server/agentCardRoute.js';
import type { AgentCard } from '../protocol/types.js';
import type { HttpRoute } from '../server/http/extraRoutes.js';
import { signCardVariants, signV03CardForms, type V03CardFormOptions, type V03CardForms } from '../compat/card03.js';
import type { CardSigner } from '../signing/cardSigner.js';
import type { GrpcListenerOptions, RunningGrpcServer } from '../bindings/grpc/listener.js';
import { serve, type RunningServer, type ServeOptions } from './serve.js';
import { createPushRuntime } from '../push/pushOptions.js';
import type { AuthConfig } from '../auth/authConfig.js';
import { nodeJsonFetcher } from '../auth/nodeJsonFetcher.js';
import { logError, type ErrorHook } from '../server/errorHook.js';
import { servedMetrics, type MetricsOptions } from './serveMetrics.js';
import type { A2AMetrics } from '../observability/a2aMetrics.js';
import { ServerHealth, type ServerHealthOptions } from '../server/serverHealth.js';
import { healthRoutes, type HealthRouteOptions } from '../server/http/healthRoutes.js';
import { setTimeout as delay } from 'node:timers/promises';
import { PROTOCOL_VERSION } from '../protocol/serviceParams.js';
import { transportRefusal } from '../bindings/transportRefusal.js';

/** What serveAgent and serveTenants share. */
export interface ServeAgentBaseOptions extends ServeOptions {
  /** Base URL written into the card (default http://localhost:PORT on 127.0.0.1 or localhost, http://[::1]:PORT on ::1, else http://HOST:PORT). */
  publicUrl?: string;
  /**
   * One hook for every failure of the server: the HTTP host's, the gRPC listener's (an event that
   * cannot be encoded, say), and the agent's (with the task's ids). Default: logError.
   */
  onError?: ErrorHook;
  /** Everything else createA2AHandler accepts (store, bus, limits...). Its `onError`, if given, hears of the same failures as `onError`. */
  handler?: Omit<A2AHandlerOptions, 'agentCard' | 'executor' | 'extendedAgentCard' | 'routes'>;
  /**
   * Routes of your own on the same listener, e.g. a webhook receiver:
   * `[{ method: 'POST', path: '/webhooks/a2a', handle: webhookHandler({ secrets, onDelivery }) }]`
   * (a2a-kit/webhooks). The card and the A2A bindings keep their paths (a route on one of them is
   * refused); `handler.maxBodyBytes` and the listener's timeouts apply to the routes too.
   */
  routes?: readonly HttpRoute[];
  /**
   * Also serve gRPC (needs the optional dependency @grpc/grpc-js) on its own port, over the
   * same request handler, with `tls` when given. The card's GRPC interface is `host:port`
   * (GRPC-06): `publicAddress`, else the host of `publicUrl` (or localhost on 127.0.0.1, [::1] on ::1) and
   * the bound port. Every other setting of the listener is serveGrpc's, passed on as given
   * (limits, keepalive, `serverOptions`...; docs/grpc.md); `host` defaults to `host`, and
   * `maxMessageBytes` to `handler.maxBodyBytes` when that is set. Versions are negotiated as over
   * HTTP: `handler.supportedVersions` and `handler.compat03` apply to gRPC too.
   */
  grpc?: GrpcListenerOptions & { port: number; publicAddress?: string };
  /**
   * Signs the final cards (with their interfaces) before they are served, e.g. `signCardWith(keyFile)`
   * from a2a-kit/node: the card, the extended card, and the 0.3 and hybrid cards served to 0.3
   * clients — the well-known ones, the 0.3 extended card (JSON-RPC `agent/getAuthenticatedExtendedCard`,
   * REST `GET /v1/card`) and the 0.3 gRPC GetAgentCard answer, each tenant's too (each over its
   * own JSON; see CardSigner). Once, at start; an extended card given as a function is signed
   * per call instead (its 1.0 card, and its 0.3 form for a 0.3 call).
   */
  signCard?: CardSigner;
  /**
   * Prometheus metrics at `GET /metrics` (or `path`) on the HTTP listener, off by default
   * (`a2a serve --metrics`). Unauthenticated and not counted against the per-address rate limit:
   * bind it privately or put it behind your proxy. The registry is `RunningAgent.metrics`.
   */
  metrics?: boolean | MetricsOptions;
  /**
   * Health probes (docs/deploy.md, "Health probes"), on by default: GET or HEAD `/healthz`
   * (liveness: 200 whenever the process answers) and `/readyz` (readiness: 200 while the task
   * store answers a `SELECT 1` within `storeTimeoutMs`, default 1000, and the server is not
   * draining; else 503 with the reason), one pair for the whole server (tenants included),
   * without authentication and not counted against the per-address rate limit; with `grpc`,
   * also `grpc.health.v1.Health` on the gRPC port. One
   * store check runs at a time and its answer is reused for `checkCacheMs` (default 500). The
   * paths may be changed (`livenessPath`, `readinessPath`); false serves none of them.
   */
  health?: false | (HealthRouteOptions & Pick<ServerHealthOptions, 'storeTimeoutMs' | 'checkCacheMs'>);
  /**
   * How long close() goes on serving as before, with readiness answering NOT_SERVING
   * ("draining"), before it stops accepting connections (default 0): time for load balancers
   * to see the probe fail and stop sending requests here.
   */
  shutdownDelayMs?: number;
}

export interface ServeAgentOptions extends ServeAgentBaseOptions {
  agent: AgentDefinition;
}

/**
 * Several agents from one server (issue 8): tenant name → agent. Each card lists the server's
 * interfaces with `tenant` and is served at `/{tenant}/.well-known/agent-card.json`.
 */
export interface ServeTenantsOptions extends ServeAgentBaseOptions {
  tenants: Record<string, AgentDefinition>;
  /** Serves requests without `tenant`; its card is also at /.well-known/agent-card.json. */
  defaultTenant?: string;
}

export interface RunningAgent<H extends RequestHandlerLike = A2ARequestHandler> extends RunningServer {
  readonly handler: A2AHandler<H>;
  /** The gRPC listener, when `grpc` was given. */
  readonly grpc: RunningGrpcServer | undefined;
  /** The card at /.well-known/agent-card.json (with tenants: the default tenant's, else the first's). */
  readonly agentCard: AgentCard;
  /** The public base URL the card advertises. */
  readonly baseUrl: string;
  /** The metrics registry, when `metrics` is on. */
  readonly metrics: A2AMetrics | undefined;
  /** The readiness the probes answer from (undefined with `health: false`); close() starts its drain. */
  readonly health: ServerHealth | undefined;
}

export interface RunningTenants extends RunningAgent<TenantRouter> {
  /** Each tenant's final card (as served). */
  readonly cards: ReadonlyMap<string, AgentCard>;
  /** Each tenant's card URL, `{baseUrl}/{tenant}/.well-known/agent-card.json`. */
  readonly cardUrls: ReadonlyMap<string, string>;
}

/**
 * The hosts advertised as `localhost`. Not `::1`: `localhost` often resolves to 127.0.0.1 only,
 * where a card saying `localhost` would send clients to an address nothing listens on; `::1`
 * is advertised as `[::1]`.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

/** An agent with its final cards: the extended card a card, or a function making one per call. */
type FinalAgent = AgentDefinition & { card: AgentCard; extendedCard?: ExtendedCardSource<AgentCard> };

/**
 * Final cards of one agent: interfaces (with the tenant, if any), then the signature — once for
 * the card and an extended card given as a card; per call for an extended card given as a
 * function (on the card it returned for the caller, once checked).
 */
async function finalCards(agent: AgentDefinition, urls: InterfaceUrls, sign: ServeAgentBaseOptions['signCard']): Promise<FinalAgent> {
  const finish = async (base: AgentCardBase): Promise<AgentCard> => {
    const card = withInterfaces(base, urls);
    return sign ? sign(card) : card;
  };
  const card = await finish(agent.card);
  const extended = agent.extendedCard === undefined ? undefined : finishExtendedCard(agent.extendedCard, finish);
  const extendedCard = typeof extended === 'function' ? extended : await extended;
  return { executor: agent.executor, card, ...(extendedCard ? { extendedCard } : {}), ...(agent.resumable ? { resumable: true } : {}) };
}

/** The cards known at start (their signed 0.3 forms are made then): the public card, and the extended card unless it is made per call. */
function cardsOf(agent: FinalAgent): AgentCard[] {
  return agent.extendedCard && typeof agent.extendedCard !== 'function' ? [agent.card, agent.extendedCard] : [agent.card];
}

export function serveAgent(options: ServeAgentOptions): Promise<RunningAgent>;
export function serveAgent(options: ServeTenantsOptions): Promise<RunningTenants>;
export async function serveAgent(options: ServeAgentOptions | ServeTenantsOptions): Promise<RunningAgent<RequestHandlerLike> | RunningTenants> {
  const tenants = 'tenants' in options ? options : undefined;
  // A card whose security cannot be enforced as configured (or tenants that cannot share one
  // authenticator, a bad tenant name, an incomplete extended card) fails before anything listens.
  if (tenants) {
    const names = Object.keys(tenants.tenants);
    if (names.length === 0) throw new Error('tenants: at least one tenant is needed');
    for (const name of names) {
      checkTenantName(name);
      checkExtendedCard(tenants.tenants[name] as AgentDefinition, `tenant ${JSON.stringify(name)}: `);
    }
    if (tenants.defaultTenant !== undefined && !names.includes(tenants.defaultTenant)) throw new Error(`defaultTenant ${JSON.stringify(tenants.defaultTenant)} is not one of the tenants`);
    const cards = names.map((n) => [n, (tenants.tenants[n] as AgentDefinition).card] as [string, AgentDefinition['card']]);
    if (options.handler?.auth !== 'external') checkSameSecurity(cards);
    handlerAuthenticator((cards[0] as [string, AgentDefinition['card']])[1], options.handler?.auth);
    const agents = Object.values(tenants.tenants);
    requireExtendedCardAuth({ servesExtendedCard: agents.some(servesExtendedCard), card: (cards[0] as [string, AgentDefinition['card']])[1] }, options.handler?.auth);
  } else {
    const agent = (options as ServeAgentOptions).agent;
    checkExtendedCard(agent);
    handlerAuthenticator(agent.card, options.handler?.auth);
    requireExtendedCardAuth({ servesExtendedCard: servesExtendedCard(agent), card: agent.card }, options.handler?.auth);
  }
  const onError = oneHook(options.onError, options.handler?.onError);
  const healthOptions = options.health === false ? undefined : (options.health ?? {});
  const health = healthOptions
    ? new ServerHealth({
        store: options.handler?.store,
        ...(healthOptions.storeTimeoutMs !== undefined ? { storeTimeoutMs: healthOptions.storeTimeoutMs } : {}),
        ...(healthOptions.checkCacheMs !== undefined ? { checkCacheMs: healthOptions.checkCacheMs } : {}),
      })
    : undefined;
  const routes = [...(health ? healthRoutes(health, healthOptions) : []), ...(options.routes ?? [])];
  const ref: { handler?: A2AHandler<RequestHandlerLike> } = {};
  // The handler needs the bound ports (the card lists them), so it is built after listening:
  // requests arriving before it exists wait for it rather than fail (R19).
  const installing = handlerInstallation();
  const server = await serve(
    {
      handle: (req) => (ref.handler ? ref.handler.handle(req) : installing.ready.then((handler) => handler.handle(req))),
      // Before the handler exists (the startup window), the host's default (HTTP+JSON) shape.
      refusal: (refused) => (ref.handler ? ref.handler.refusal(refused) : transportRefusal(refused, false)),
      get requestHandler() {
        return ref.handler?.requestHandler;
      },
    },
    { ...options, onError },
  );
  const host = options.host ?? '127.0.0.1';
  const publicHost = LOOPBACK.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const baseUrl = (options.publicUrl ?? `${options.tls ? 'https' : 'http'}://${publicHost}:${server.port}`).replace(/\/$/, '');
  let grpc: RunningGrpcServer | undefined;
  // A2A 0.3 clients are served on every binding unless `handler.compat03` is false (--no-compat).
  const compat03 = options.handler?.compat03 !== false;
  // The versions every binding negotiates (R20): the handler's, given to the gRPC listener too.
  const supportedVersions = options.handler?.supportedVersions ?? [PROTOCOL_VERSION];
  let v03CardBindings: readonly string[] | undefined;
  let grpcCardForms: V03CardFormOptions | undefined;
  // The 0.3 gRPC GetAgentCard's signed cards, made with the others below.
  const grpcSigned: { v03Cards?: V03CardForms } = {};
  if (options.grpc) {
    // Loaded only when asked for: @grpc/grpc-js is an optional dependency.
    const { serveGrpc } = await import('../bindings/grpc/listener.js');
    // The 0.3 gRPC service is served too: the 0.3 and hybrid cards list its interface.
    if (compat03) ({ V03_GRPC_CARD_BINDINGS: v03CardBindings, GRPC03_CARD_FORMS: grpcCardForms } = await import('../bindings/grpc/v03Service.js'));
    try {
      // The gRPC binding calls unary/stream/agentCard/drain, which a TenantRouter has too.
      const { publicAddress: _, ...listener } = options.grpc;
      grpc = await serveGrpc(() => (ref.handler as A2AHandler<RequestHandlerLike>).requestHandler as A2ARequestHandler, {
        ...listener,
        host: options.grpc.host ?? host,
        // One request size limit for every binding: the handler's body limit (--max-body) is also
        // the largest gRPC request message, unless the grpc option sets its own.
        ...(listener.maxMessageBytes === undefined && options.handler?.maxBodyBytes !== undefined ? { maxMessageBytes: options.handler.maxBodyBytes } : {}),
        // The HTTP listener drains the shared handler on close.
        drainOnClose: false,
        compat03,
        supportedVersions,
        // The card's security is enforced by the same authenticator as over HTTP.
        auth: () => ref.handler?.authenticator,
        v03Cards: () => grpcSigned.v03Cards,
        ...(options.tls ? { tls: options.tls } : {}),
        ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
        ...(options.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: options.shutdownTimeoutMs } : {}),
        onError,
        ready: installing.ready,
        ...(health ? { health } : {}),
      });
    } catch (error) {
      installing.fail(error);
      await server.close();
      throw error;
    }
  }
  const grpcAddress = grpc ? (options.grpc?.publicAddress ?? `${options.publicUrl ? new URL(options.publicUrl).hostname : publicHost}:${grpc.port}`) : undefined;
  const jsonRpcPath = options.handler?.jsonRpcPath === undefined ? DEFAULT_JSONRPC_PATH : options.handler.jsonRpcPath;
  const restPath = options.handler?.restPath === undefined ? DEFAULT_REST_PATH : options.handler.restPath;
  const urls: InterfaceUrls = { httpBaseUrl: baseUrl, jsonRpcPath, restPath, ...(grpcAddress ? { grpcAddress } : {}) };
  const observed = servedMetrics({ ...options, routes });
  const common = {
    ...options.handler,
    supportedVersions,
    onError,
    ...(options.handler?.auth ? { auth: withNodeFetcher(options.handler.auth) } : {}),
    push: { runtime: createPushRuntime, ...options.handler?.push, ...(observed.onDelivery ? { onDelivery: observed.onDelivery } : {}) },
    ...(observed.onCall ? { onCall: observed.onCall } : {}),
    ...(v03CardBindings ? { v03CardBindings } : {}),
    ...(observed.routes ? { routes: observed.routes } : {}),
  };
  let handler: A2AHandler<RequestHandlerLike>;
  try {
    // The 0.3 forms of the cards for 0.3 card calls (SIGN-09: each signed over its own JSON as
    // the wire carries it, here, once): JSON-RPC and REST, and the 0.3 gRPC service.
    const signV03 = async (cards: AgentCard[]): Promise<{ v03Cards?: V03CardForms }> => {
      if (!options.signCard || !compat03) return {};
      if (grpcCardForms) grpcSigned.v03Cards = await signV03CardForms(cards, options.signCard, grpcCardForms);
      return { v03Cards: await signV03CardForms(cards, options.signCard, v03CardBindings ? { bindings: v03CardBindings } : {}) };
    };
    if (tenants) {
      const defined: Record<string, FinalAgent> = {};
      for (const [name, agent] of Object.entries(tenants.tenants)) defined[name] = await finalCards(agent, { ...urls, tenant: name }, options.signCard);
      const forms = await signV03(Object.values(defined).flatMap(cardsOf));
      handler = createA2AHandler({ ...common, ...forms, tenants: defined, ...(tenants.defaultTenant !== undefined ? { defaultTenant: tenants.defaultTenant } : {}) });
    } else {
      const agent = await finalCards((options as ServeAgentOptions).agent, urls, options.signCard);
      const { v03Cards } = await signV03(cardsOf(agent));
      // The hybrid card gets its own signatures too; the well-known 0.3 card is the signed form.
      const v03CardVariants = options.signCard && v03Cards ? await signCardVariants(agent.card, options.signCard, v03Cards) : undefined;
      handler = createA2AHandler({
        ...common,
        ...(v03Cards ? { v03Cards } : {}),
        ...(v03CardVariants ? { v03CardVariants } : {}),
        ...(agent.resumable ? { resumable: true } : {}),
        agentCard: agent.card,
        executor: agent.executor,
        ...(agent.extendedCard ? { extendedAgentCard: agent.extendedCard } : {}),
      });
    }
  } catch (error) {
    installing.fail(error);
    await Promise.all([grpc?.close(), server.close()]);
    throw error;
  }
  ref.handler = handler;
  observed.metrics?.track(handler.requestHandler);
  installing.install(handler);
  let closing: Promise<void> | undefined;
  const running: RunningAgent<RequestHandlerLike> = {
    url: server.url,
    port: server.port,
    host: server.host,
    server: server.server,
    get openStreams() {
      return server.openStreams;
    },
    close() {
      closing ??= (async () => {
        // Readiness fails first (gRPC watchers hear it at once); balancers get shutdownDelayMs to notice.
        health?.drain();
        if (options.shutdownDelayMs) await delay(options.shutdownDelayMs);
        // gRPC streams end with UNAVAILABLE, HTTP streams with a retry hint; then the handler drains.
        await Promise.all([grpc?.close(), server.close()]);
      })();
      return closing;
    },
    handler,
    grpc,
    health,
    agentCard: handler.agentCard,
    baseUrl,
    metrics: observed.metrics,
  };
  const router = handler.requestHandler;
  if (!(router instanceof TenantRouter)) return running;
  const cardUrls = new Map([...router.cards.keys()].map((name) => [name, `${baseUrl}/${name}${AGENT_CARD_PATH}`]));
  return Object.assign(running, { cards: router.cards, cardUrls }) as unknown as RunningTenants;
}

/** The handler to come: `ready` resolves once it is installed, or rejects if the server could not start. */
function handlerInstallation(): { ready: Promise<A2AHandler<RequestHandlerLike>>; install: (handler: A2AHandler<RequestHandlerLike>) => void; fail: (error: unknown) => void } {
  let install!: (handler: A2AHandler<RequestHandlerLike>) => void;
  let fail!: (error: unknown) => void;
  const ready = new Promise<A2AHandler<RequestHandlerLike>>((resolve, reject) => {
    install = resolve;
    fail = reject;
  });
  // Nobody may be waiting when startup fails.
  ready.catch(() => undefined);
  return { ready, install, fail };
}

/** The hook of every failure: `onError`, and `handler.onError` too when both are given (each hears of every failure once). */
function oneHook(serverHook: ErrorHook | undefined, handlerHook: ErrorHook | undefined): ErrorHook {
  if (!serverHook || !handlerHook || serverHook === handlerHook) return serverHook ?? handlerHook ?? logError;
  return (error, context) => {
    handlerHook(error, context);
    serverHook(error, context);
  };
}

/** JWKS and discovery documents are fetched through the SSRF guard (R14) unless a fetcher is given. */
function withNodeFetcher(auth: AuthConfig | 'external'): AuthConfig | 'external' {
  if (auth === 'external' || auth.fetchJson) return auth;
  return { ...auth, fetchJson: nodeJsonFetcher({ ssrf: { allowPrivate: auth.allowPrivateNetworks === true } }) };
}
