/**
 * Routes of your own served next to the agent, on the same listener (a webhook receiver, a
 * health check): `createA2AHandler({ routes })`, `serveAgent({ routes })`. The Agent Card and
 * the A2A bindings keep their paths: a route on one of them is refused at construction. A
 * route's request body is capped by the handler's `maxBodyBytes` (R15) whatever limit the
 * route asks for; with abuse limits, each request to a route counts against its remote
 * address's request rate (R25: 429 with Retry-After past it) unless the route says
 * `rateLimited: false` (the health probes and /metrics); and A2A errors it throws (PayloadTooLargeError from `text()`, say) are
 * answered in the HTTP+JSON error shape; other errors reach the host (500, onError).
 */
import { A2AError } from '../../protocol/errors.js';
import { toRestError } from '../../bindings/rest/errors.js';
import { httpBackOff } from '../limits.js';
import type { HttpRequest, HttpResponse } from './httpTypes.js';

export interface HttpRoute {
  /** The method served (`POST`); another method on the path is answered 405. Default: any. */
  method?: string;
  /** The exact path, percent-encoded as requested (`/webhooks/a2a`); no query. */
  path: string;
  handle(request: HttpRequest): HttpResponse | Promise<HttpResponse>;
  /**
   * Whether a request to the route counts against its remote address's request rate under abuse
   * limits (default true). false for cheap routes that must answer whatever a client sharing the
   * address does — the health probes and /metrics: behind a load balancer every client shares
   * the balancer's address, and a probe refused 429 takes the instance out of rotation.
   */
  rateLimited?: boolean;
}

export type RouteTable = (request: HttpRequest) => Promise<HttpResponse> | undefined;

/**
 * The routes as one lookup: the response of the route at the request's path, or undefined when
 * none is there. `reserved(path)` says whether the path belongs to the agent.
 */
export interface RouteLimits {
  maxBodyBytes: number;
  /** Whether the path belongs to the agent. */
  reserved: (path: string) => boolean;
  /** Counts a request to a route; throws (an exceeded limit) to refuse it. */
  admit?: (request: HttpRequest) => void;
}

export function routeTable(routes: readonly HttpRoute[], limits: RouteLimits): RouteTable | undefined {
  if (routes.length === 0) return undefined;
  const byPath = new Map<string, Map<string, HttpRoute>>();
  for (const route of routes) {
    if (typeof route.path !== 'string' || !route.path.startsWith('/') || route.path.includes('?')) throw new TypeError(`routes: path must start with "/" and have no query, got ${JSON.stringify(route.path)}`);
    if (limits.reserved(route.path)) throw new TypeError(`routes: ${route.path} is a path of the agent (its card or an A2A binding)`);
    const method = route.method?.toUpperCase() ?? '*';
    const methods = byPath.get(route.path) ?? new Map<string, HttpRoute>();
    if (methods.has(method)) throw new TypeError(`routes: ${method === '*' ? 'any method' : method} ${route.path} is given twice`);
    byPath.set(route.path, methods.set(method, route));
  }
  return (request) => {
    const methods = byPath.get(request.path);
    if (!methods) return undefined;
    const route = methods.get(request.method) ?? methods.get('*');
    if (!route) return Promise.resolve(methodNotAllowed(request, [...methods.keys()]));
    return answer(route, { request: new CappedRequest(request, limits.maxBodyBytes), admit: limits.admit });
  };
}

async function answer(route: HttpRoute, { request, admit }: { request: HttpRequest; admit: RouteLimits['admit'] }): Promise<HttpResponse> {
  try {
    if (route.rateLimited !== false) admit?.(request);
    return await route.handle(request);
  } catch (error) {
    if (!(error instanceof A2AError)) throw error;
    const { status, body } = toRestError(error);
    return { status, headers: { 'content-type': 'application/json', ...httpBackOff(error)?.headers }, body: JSON.stringify(body) };
  }
}

function methodNotAllowed(request: HttpRequest, methods: string[]): HttpResponse {
  return {
    status: 405,
    headers: { 'content-type': 'application/json', allow: methods.join(', ') },
    body: JSON.stringify({ error: { code: 405, status: 'INVALID_ARGUMENT', message: `${request.method} is not allowed on ${request.path.slice(0, 200)}` } }),
  };
}

/** The request as the route sees it: its body read within the server's limit too. */
class CappedRequest implements HttpRequest {
  constructor(
    private readonly request: HttpRequest,
    private readonly maxBodyBytes: number,
  ) {}

  get method(): string {
    return this.request.method;
  }
  get path(): string {
    return this.request.path;
  }
  get query(): URLSearchParams {
    return this.request.query;
  }
  get rawQuery(): string | undefined {
    return this.request.rawQuery;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
  get peerCertificate(): HttpRequest['peerCertificate'] {
    return this.request.peerCertificate;
  }
  get remoteAddress(): string | undefined {
    return this.request.remoteAddress;
  }
  header(name: string): string | undefined {
    return this.request.header(name);
  }
  text(limit: number): Promise<string> {
    return this.request.text(Math.min(limit, this.maxBodyBytes));
  }
}
