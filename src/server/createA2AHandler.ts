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
import { PayloadTooLargeError } from '../protocol/errors.js';
import { PROTOCOL_VERSION } from '../protocol/serviceParams.js';
import type { AgentCard } from '../protocol/types.js';
import { AGENT_CARD_PATH, createAgentCardRoute } from './agentCardRoute.js';
import type { HttpHandler, HttpRequest, HttpResponse } from './http/httpTypes.js';
import { DEFAULT_MAX_JSON_DEPTH } from './http/jsonBody.js';
import { A2ARequestHandler, type RequestHandlerOptions } from './requestHandler.js';

export interface A2AHandlerOptions extends RequestHandlerOptions {
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
   * (nothing is checked here). Required when the card declares requirements.
   */
  auth?: AuthConfig | 'external';
}

export interface A2AHandler extends HttpHandler {
  fetch(request: Request): Promise<Response>;
  readonly requestHandler: A2ARequestHandler;
  readonly agentCard: AgentCard;
  /** The card's security enforcement (shared with a gRPC listener on the same handler). */
  readonly authenticator: Authenticator | undefined;
}

export const DEFAULT_JSONRPC_PATH = '/a2a/jsonrpc';
export const DEFAULT_REST_PATH = '/a2a/rest';
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The card's security enforcement from `auth`: a card with requirements must say how they are
 * checked (or that a gateway does), so a declared requirement is never silently unenforced.
 */
export function handlerAuthenticator(card: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>, auth: AuthConfig | 'external' | undefined): Authenticator | undefined {
  if (auth === 'external') return undefined;
  if (auth) return createAuthenticator(card, auth);
  if ((card.securityRequirements ?? []).some((r) => Object.keys(r.schemes ?? {}).length > 0)) {
    throw new Error("The agent card declares securityRequirements: pass `auth` (a verifier per scheme) or auth: 'external' when a gateway in front authenticates");
  }
  return undefined;
}

export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const authenticator = handlerAuthenticator(options.agentCard, options.auth);
  const requestHandler = new A2ARequestHandler(options);
  const binding = new BindingContext({
    handler: requestHandler,
    limits: {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
      heartbeatMs: options.heartbeatMs ?? 15_000,
    },
    supportedVersions: options.supportedVersions ?? [PROTOCOL_VERSION],
    onError: options.onError,
    authenticator,
  });
  const jsonRpcPath = options.jsonRpcPath === undefined ? DEFAULT_JSONRPC_PATH : options.jsonRpcPath;
  const restPath = options.restPath === undefined ? DEFAULT_REST_PATH : options.restPath;
  const restPrefix = restPath === null ? null : restPath.replace(/\/$/, '');
  const card = createAgentCardRoute(options.agentCard, options.cardMaxAgeSeconds === undefined ? {} : { maxAgeSeconds: options.cardMaxAgeSeconds });

  const cors = corsPolicy(options.corsOrigins, apiKeyHeaders(options.agentCard));

  async function handle(req: HttpRequest): Promise<HttpResponse> {
    const path = req.path;
    if (path === AGENT_CARD_PATH) return req.method === 'OPTIONS' ? cors.preflight(req, true) : card(req);
    if (req.method === 'OPTIONS') return cors.preflight(req, false);
    const res = await route(req, path);
    return cors.decorate(req, res);
  }

  async function route(req: HttpRequest, path: string): Promise<HttpResponse> {
    if (jsonRpcPath !== null && path === jsonRpcPath) return handleJsonRpc(req, binding);
    if (restPrefix !== null && (path === restPrefix || path.startsWith(`${restPrefix}/`))) {
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
    agentCard: options.agentCard,
    authenticator,
    handle,
    async fetch(request: Request): Promise<Response> {
      const res = await handle(fromFetchRequest(request));
      return toFetchResponse(res);
    },
  };
}

function fromFetchRequest(request: Request): HttpRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    header: (name) => request.headers.get(name) ?? undefined,
    text: (limit) => readLimited(request, limit),
    signal: request.signal,
  };
}

async function readLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

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

const ALLOWED_HEADERS = 'Content-Type, Authorization, A2A-Version, A2A-Extensions, Last-Event-ID';
const EXPOSED_HEADERS = 'A2A-Version, A2A-Extensions, WWW-Authenticate';

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
    preflight(req: HttpRequest, publicResource: boolean): HttpResponse {
      const origin = publicResource ? '*' : allowed(req.header('origin'));
      if (!origin) return { status: 403, headers: { 'content-type': 'application/json' }, body: '{"error":{"code":403,"status":"PERMISSION_DENIED","message":"Cross-origin requests are not allowed"}}' };
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
      res.headers = { ...res.headers, 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, ...(origin === '*' ? {} : { vary: 'Origin' }) };
      return res;
    },
  };
}
