/**
 * The whole HTTP side of an agent as one fetch function: the Agent Card, JSON-RPC (+SSE) and
 * HTTP+JSON (+SSE). Runs as-is on any runtime with WHATWG fetch types; the Node adapter calls
 * `handle()` directly with its own lightweight request model.
 */
import type { AuthConfig, Authenticator } from '../auth/authConfig.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { BindingContext } from '../bindings/bindingContext.js';
import { handleJsonRpc } from '../bindings/jsonrpc/server.js';
import { handleRest } from '../bindings/rest/server.js';
import { crossOriginRefusal, transportRefusal } from '../bindings/transportRefusal.js';
import { readCappedBytes } from '../net/cappedRead.js';
import { PayloadTooLargeError } from '../protocol/errors.js';
import { PROTOCOL_VERSION } from '../protocol/serviceParams.js';
import type { AgentCard } from '../protocol/types.js';
import { V03CardForms, type V03CardVariants } from '../compat/card03.js';
import { AGENT_CARD_PATH, createAgentCardRoute, createVersionedCardRoute, type CardRouteOptions } from './agentCardRoute.js';
import type { HostRefusal, HttpHandler, HttpRequest, HttpResponse } from './http/httpTypes.js';
import { routeTable, type HttpRoute } from './http/extraRoutes.js';
import { DEFAULT_MAX_JSON_DEPTH, notUtf8Error } from './http/jsonBody.js';
import { RequestAbortedError } from './http/requestAborted.js';
import { logError, type ErrorHook } from './errorHook.js';
import { A2ARequestHandler, type RequestHandlerOptions } from './requestHandler.js';
import { TenantRouter, checkSameSecurity, type RequestHandlerLike, type TenantRouterOptions } from './tenantRouter.js';

/** How the HTTP side is served, whatever handles the operations. */
export interface HttpBindingOptions {
  /** Path of the JSON-RPC endpoint (default /a2a/jsonrpc); null disables the binding. */
  jsonRpcPath?: string | null;
  /** Base path of the HTTP+JSON binding (default /a2a/rest); null disables the binding. */
  restPath?: string | null;
  /** Request body limit in bytes (default 1 MiB, R15). */
  maxBodyBytes?: number;
  /** JSON nesting limit (default 32, R16). */
  maxJsonDepth?: number;
  /** Idle SSE streams get a comment this often (default 15 s, R7). */
  heartbeatMs?: number;
  /** Agent card Cache-Control max-age (default 300 s). */
  cardMaxAgeSeconds?: number;
  /** Protocol versions served (default ["1.0"]). */
  supportedVersions?: string[];
  /**
   * Origins allowed to call the bindings from a browser (CORS, with preflight). Default: none
   * for the bindings; the Agent Card is always readable cross-origin (CARD-11).
   */
  corsOrigins?: '*' | string[];
  /**
   * Enforce the card's `securitySchemes` / `securityRequirements` (SEC-02): verifier settings per
   * scheme name (API keys, JWT bearer / OAuth2 / OIDC against a JWKS, mutual TLS). The principal
   * reaches the request handler and the agent. `'external'`: a gateway in front authenticates
   * (nothing is checked here). Required when the card declares requirements. With several
   * tenants, every tenant's card must declare the same security (one authenticator serves all).
   */
  auth?: AuthConfig | 'external';
  /**
   * Called with agent and internal failures and what they concerned (ErrorContext; never request
   * bodies or headers). Default: logError, the error with its stack on console.error; pass your
   * own to route it to your logger, `() => {}` to silence it.
   */
  onError?: ErrorHook;
  /**
   * Serve A2A 0.3 clients too (default true): 0.3 requests on JSON-RPC and REST are translated
   * to and from the one 1.0 handler, and the well-known card answers in the version asked for
   * (docs/compat.md). false: 0.3 requests get VersionNotSupported (`a2a serve --no-compat`).
   */
  compat03?: boolean;
  /** The bindings advertised on the 0.3 cards (CardRouteOptions.v03Bindings); serveAgent sets it. */
  v03CardBindings?: readonly string[];
  /**
   * Routes of your own beside the agent (a webhook receiver: `webhookHandler()` from
   * a2a-kit/webhooks). Consulted after the card and the bindings, before the 404; a route on
   * one of their paths is refused here. `maxBodyBytes` caps their bodies too.
   */
  routes?: readonly HttpRoute[];
  /**
   * The well-known 0.3 and hybrid cards, prepared from the agent card beforehand — signed, by
   * `signCardVariants` (src/compat/card03.ts) with the same bindings; serveAgent sets it when it
   * signs the card. Default: derived from the agent card, unsigned (CardRouteOptions.v03Variants).
   */
  v03CardVariants?: V03CardVariants;
  /**
   * The 0.3 form of the extended card answered to 0.3 clients (`agent/getAuthenticatedExtendedCard`,
   * REST `GET /v1/card`) — signed, by `signV03CardForms` (src/compat/card03.ts) with the same
   * bindings; serveAgent sets it when it signs the cards, for every tenant's cards. Default:
   * derived per call from the 1.0 card, unsigned.
   */
  v03Cards?: V03CardForms;
}

/** One agent: its card and executor (the classic form). */
export interface A2AHandlerOptions extends RequestHandlerOptions, HttpBindingOptions {}

/**
 * Several agents from one server (issue 8): a TenantRouter is built from `tenants`; each tenant's
 * card is served at `/{tenant}/.well-known/agent-card.json`, the default tenant's also at the root.
 */
export interface TenantA2AHandlerOptions extends TenantRouterOptions, HttpBindingOptions {}

/** A request handler built elsewhere (an A2ARequestHandler or a TenantRouter). */
export interface ExistingHandlerOptions<H extends RequestHandlerLike> extends HttpBindingOptions {
  requestHandler: H;
}

export interface A2AHandler<H extends RequestHandlerLike = A2ARequestHandler> extends HttpHandler {
  fetch(request: Request): Promise<Response>;
  readonly requestHandler: H;
  /** The card at /.well-known/agent-card.json (with tenants: the default tenant's, else the first's). */
  readonly agentCard: AgentCard;
  /** The card's security enforcement (shared with a gRPC listener on the same handler). */
  readonly authenticator: Authenticator | undefined;
  /** The 0.3 forms of the cards answered to 0.3 card calls (shared with a gRPC listener's 0.3 service). */
  readonly v03Cards: V03CardForms;
  /** A request the host refused: a JSON-RPC error (id null) on the JSON-RPC path, else an HTTP+JSON one. */
  refusal(refusal: HostRefusal): HttpResponse;
}

export const DEFAULT_JSONRPC_PATH = '/a2a/jsonrpc';
export const DEFAULT_REST_PATH = '/a2a/rest';
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The card requires some scheme (a requirement naming none is "no authentication"). */
export function declaresSecurity(card: Pick<AgentCard, 'securityRequirements'>): boolean {
  return (card.securityRequirements ?? []).some((r) => Object.keys(r.schemes ?? {}).length > 0);
}

/**
 * The card's security enforcement from `auth`: a card with requirements must say how they are
 * checked (or that a gateway does), so a declared requirement is never silently unenforced.
 */
export function handlerAuthenticator(card: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>, auth: AuthConfig | 'external' | undefined): Authenticator | undefined {
  if (auth === 'external') return undefined;
  if (auth) return createAuthenticator(card, auth);
  if (declaresSecurity(card)) {
    throw new Error("The agent card declares securityRequirements: pass `auth` (a verifier per scheme) or auth: 'external' when a gateway in front authenticates");
  }
  return undefined;
}

/**
 * §13.3 / XCARD-03: the extended Agent Card is only for authenticated callers. A handler that
 * serves one must say how callers are authenticated (`auth` with at least one scheme, or
 * 'external' when a gateway in front does), else it is refused at construction: without that the
 * card would go to anyone.
 */
export function requireExtendedCardAuth(target: { servesExtendedCard: boolean; card: Pick<AgentCard, 'securityRequirements'> }, auth: AuthConfig | 'external' | undefined): void {
  if (!target.servesExtendedCard || auth === 'external') return;
  if (auth && (Object.keys(auth.schemes).length > 0 || declaresSecurity(target.card))) return;
  throw new Error(
    "The agent serves an extended Agent Card (capabilities.extendedAgentCard), which only authenticated callers may read (A2A §13.3): declare securitySchemes on the card and pass `auth` with a verifier for one, or auth: 'external' when a gateway in front authenticates",
  );
}

export function createA2AHandler(options: A2AHandlerOptions): A2AHandler;
export function createA2AHandler(options: TenantA2AHandlerOptions): A2AHandler<TenantRouter>;
export function createA2AHandler<H extends RequestHandlerLike>(options: ExistingHandlerOptions<H>): A2AHandler<H>;
export function createA2AHandler(options: A2AHandlerOptions | TenantA2AHandlerOptions | ExistingHandlerOptions<RequestHandlerLike>): A2AHandler<RequestHandlerLike> {
  const requestHandler: RequestHandlerLike =
    'requestHandler' in options ? options.requestHandler : 'tenants' in options ? new TenantRouter(options) : new A2ARequestHandler(options);
  const router = requestHandler instanceof TenantRouter ? requestHandler : undefined;
  // One authenticator for all tenants: their cards must agree on what it enforces.
  if (router && options.auth !== 'external') checkSameSecurity(router.cards);
  const agentCard = requestHandler.agentCard;
  const authenticator = handlerAuthenticator(agentCard, options.auth);
  requireExtendedCardAuth({ servesExtendedCard: 'servesExtendedCard' in requestHandler && requestHandler.servesExtendedCard === true, card: agentCard }, options.auth);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const v03Cards = options.v03Cards ?? new V03CardForms(options.v03CardBindings ? { bindings: options.v03CardBindings } : {});
  const binding = new BindingContext({
    // The bindings only call unary/stream/agentCard (TenantRouter has them too).
    handler: requestHandler as A2ARequestHandler,
    limits: {
      maxBodyBytes,
      maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
      heartbeatMs: options.heartbeatMs ?? 15_000,
    },
    supportedVersions: options.supportedVersions ?? [PROTOCOL_VERSION],
    onError: options.onError ?? logError,
    authenticator,
    compat03: options.compat03 !== false,
    v03Cards,
    cardMaxAgeSeconds: options.cardMaxAgeSeconds,
    credentialHeaders: apiKeyHeaders(agentCard),
  });
  const jsonRpcPath = options.jsonRpcPath === undefined ? DEFAULT_JSONRPC_PATH : options.jsonRpcPath;
  const restPath = options.restPath === undefined ? DEFAULT_REST_PATH : options.restPath;
  const restPrefix = restPath === null ? null : restPath.replace(/\/$/, '');
  const cardOptions: CardRouteOptions = {
    ...(options.cardMaxAgeSeconds === undefined ? {} : { maxAgeSeconds: options.cardMaxAgeSeconds }),
    ...(options.v03CardBindings ? { v03Bindings: options.v03CardBindings } : {}),
  };
  const cardRoute =
    options.compat03 === false
      ? createAgentCardRoute(agentCard, cardOptions)
      : createVersionedCardRoute(agentCard, { ...cardOptions, ...(options.v03CardVariants ? { v03Variants: options.v03CardVariants } : {}) });
  const cards = router ? tenantCardRoutes(router, cardOptions) : new Map([[AGENT_CARD_PATH, cardRoute]]);

  const cors = corsPolicy(options.corsOrigins, apiKeyHeaders(agentCard));
  const isRestPath = (path: string) => restPrefix !== null && (path === restPrefix || path.startsWith(`${restPrefix}/`));
  const ownRoutes = routeTable(options.routes ?? [], {
    maxBodyBytes,
    reserved: (path) => cards.has(path) || path === jsonRpcPath || isRestPath(path),
    admit: (req) => requestHandler.abuseLimits?.requestFrom(req.remoteAddress),
  });

  /** A refusal before any binding ran: the JSON-RPC shape on the JSON-RPC path, else HTTP+JSON (../bindings/transportRefusal.ts). */
  function refusal(refused: HostRefusal): HttpResponse {
    return transportRefusal(refused, jsonRpcPath !== null && refused.path === jsonRpcPath);
  }

  async function handle(req: HttpRequest): Promise<HttpResponse> {
    const path = req.path;
    const card = path.endsWith(AGENT_CARD_PATH) ? cards.get(path) : undefined;
    if (card) return req.method === 'OPTIONS' ? (cors.preflight(req, true) ?? refusal(crossOriginRefusal(path))) : card(req);
    // Routes of the application answer for themselves: OPTIONS included, and without the
    // agent's CORS headers (cross-origin reads of them are theirs to allow).
    const own = ownRoutes?.(req);
    if (own) return own;
    if (req.method === 'OPTIONS') return cors.preflight(req, false) ?? refusal(crossOriginRefusal(path));
    const res = await route(req, path);
    return cors.decorate(req, res);
  }

  async function route(req: HttpRequest, path: string): Promise<HttpResponse> {
    if (jsonRpcPath !== null && path === jsonRpcPath) return handleJsonRpc(req, binding);
    if (restPrefix !== null && isRestPath(path)) {
      return handleRest(req, path.slice(restPrefix.length), binding);
    }
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: `Nothing at ${req.method} ${path.slice(0, 200)}` } }),
    };
  }

  return {
    requestHandler,
    agentCard,
    authenticator,
    v03Cards,
    handle,
    refusal,
    async fetch(request: Request): Promise<Response> {
      const res = await handle(fromFetchRequest(request));
      return toFetchResponse(res);
    },
  };
}

/**
 * Each tenant's card at `/{tenant}/.well-known/agent-card.json`; the default tenant's also at the
 * root. Without a default the root answers 404 (it names no tenant).
 */
function tenantCardRoutes(router: TenantRouter, options: CardRouteOptions): Map<string, (req: HttpRequest) => HttpResponse> {
  const routes = new Map<string, (req: HttpRequest) => HttpResponse>();
  for (const [tenant, card] of router.cards) {
    const route = createAgentCardRoute(card, options);
    routes.set(`/${tenant}${AGENT_CARD_PATH}`, route);
    if (tenant === router.defaultTenant) routes.set(AGENT_CARD_PATH, route);
  }
  if (!routes.has(AGENT_CARD_PATH)) {
    routes.set(AGENT_CARD_PATH, () => ({
      status: 404,
      headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
      body: JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: `This server hosts several agents: each card is at /{tenant}${AGENT_CARD_PATH}` } }),
    }));
  }
  return routes;
}

function fromFetchRequest(request: Request): HttpRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    rawQuery: url.search.slice(1),
    header: (name) => request.headers.get(name) ?? undefined,
    text: (limit) => readLimited(request, limit),
    signal: request.signal,
  };
}

async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
  if (!request.body) return '';
  const all = await readCappedBytes(request.body, limit).catch((error: unknown) => {
    // The client went away mid-body: not a server fault (not reported to onError).
    throw request.signal.aborted ? new RequestAbortedError({ cause: error }) : error;
  });
  if (!all) throw new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
  try {
    return UTF8.decode(all);
  } catch {
    throw notUtf8Error();
  }
}

/** Fatal: bytes that are not UTF-8 are refused (as the Node host does), not replaced by U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function toFetchResponse(res: HttpResponse): Response {
  const body = res.body;
  if (body === undefined || typeof body === 'string') return new Response(body ?? null, { status: res.status, headers: res.headers });
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, { status: res.status, headers: res.headers });
}

/** X-A2A-Extensions: the 0.3 name of A2A-Extensions (0.3 clients send it and read it back). */
const ALLOWED_HEADERS = 'Content-Type, Authorization, A2A-Version, A2A-Extensions, X-A2A-Extensions, Last-Event-ID';
const EXPOSED_HEADERS = 'A2A-Version, A2A-Extensions, X-A2A-Extensions, WWW-Authenticate';

/** Header names of the card's API key schemes: browsers must be allowed to send them. */
function apiKeyHeaders(card: AgentCard): string[] {
  return Object.values(card.securitySchemes ?? {}).flatMap((s) =>
    'apiKeySecurityScheme' in s && s.apiKeySecurityScheme.location === 'header' && /^[\w-]+$/.test(s.apiKeySecurityScheme.name) ? [s.apiKeySecurityScheme.name] : [],
  );
}

/** CORS for browser clients: preflight answers and the allow-origin header on responses. */
function corsPolicy(origins: '*' | string[] | undefined, extraHeaders: readonly string[]) {
  const allowedHeaders = [ALLOWED_HEADERS, ...extraHeaders].join(', ');
  const allowed = (origin: string | undefined): string | undefined => {
    if (origins === '*') return '*';
    if (origin && origins?.includes(origin)) return origin;
    return undefined;
  };
  return {
    /** The preflight answer; undefined when the origin is not allowed (crossOriginRefusal). */
    preflight(req: HttpRequest, publicResource: boolean): HttpResponse | undefined {
      const origin = publicResource ? '*' : allowed(req.header('origin'));
      if (!origin) return undefined;
      return {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': publicResource ? 'GET, HEAD, OPTIONS' : 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': allowedHeaders,
          'access-control-max-age': '600',
          ...(origin === '*' ? {} : { vary: 'Origin' }),
        },
      };
    },
    decorate(req: HttpRequest, res: HttpResponse): HttpResponse {
      if (!origins) return res;
      const origin = allowed(req.header('origin'));
      if (!origin) return res;
      const vary = res.headers.vary;
      res.headers = {
        ...res.headers,
        'access-control-allow-origin': origin,
        'access-control-expose-headers': EXPOSED_HEADERS,
        ...(origin === '*' ? {} : { vary: vary ? `${vary}, Origin` : 'Origin' }),
      };
      return res;
    },
  };
}
