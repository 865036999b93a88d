/**
 * The public Agent Card at /.well-known/agent-card.json (CARD-02) with caching headers
 * (CACHE-01..04): a content-hash ETag, Last-Modified, Cache-Control, 304 on revalidation,
 * and CORS so browser clients can discover the agent (CARD-11).
 */
import { toRestError } from '../bindings/rest/errors.js';
import { agentCardForV03, cardVariantFor, hybridAgentCard, type V03CardVariants } from '../compat/card03.js';
import { InvalidRequestError } from '../protocol/errors.js';
import type { AgentCard } from '../protocol/types.js';
import type { HttpRequest, HttpResponse } from './http/httpTypes.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** A wrong method is InvalidRequestError with HTTP 405, as on the bindings (docs/errors.md). */
const WRONG_METHOD_BODY = JSON.stringify(toRestError(new InvalidRequestError('Use GET or HEAD for the Agent Card'), 405).body);

export interface CardRouteOptions {
  maxAgeSeconds?: number;
  /**
   * Versioned route: the bindings whose 1.0 endpoints also answer 0.3, advertised on the 0.3
   * and hybrid cards (default JSONRPC and HTTP+JSON; serveAgent adds GRPC when it serves 0.3 gRPC).
   */
  v03Bindings?: readonly string[];
  /**
   * Versioned route: the 0.3 and hybrid cards to serve, prepared beforehand (signed:
   * signCardVariants); default: derived from the 1.0 card, unsigned.
   */
  v03Variants?: V03CardVariants;
}

/** A route serving `card` (any JSON card shape: 1.0, or the 0.3 / hybrid forms of src/compat). */
export function createAgentCardRoute(card: AgentCard | object, options: CardRouteOptions = {}): (req: HttpRequest) => HttpResponse {
  const body = JSON.stringify(card);
  const etag = `"${fnv1a64(body)}"`;
  const lastModified = new Date().toUTCString();
  const headers = {
    'content-type': 'application/json',
    etag,
    'last-modified': lastModified,
    'cache-control': `public, max-age=${options.maxAgeSeconds ?? 300}`,
    'access-control-allow-origin': '*',
  };
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return { status: 405, headers: { ...headers, allow: 'GET, HEAD' }, body: WRONG_METHOD_BODY };
    }
    const inm = req.header('if-none-match');
    // RFC 9110 §13.1.2: If-None-Match uses weak comparison, so W/"x" matches "x".
    if (inm !== undefined && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
      return { status: 304, headers };
    }
    return { status: 200, headers, ...(req.method === 'GET' ? { body } : {}) };
  };
}

/** FNV-1a 64-bit as hex: a cheap content hash with no platform dependency. */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * prime) & mask;
  }
  return h.toString(16).padStart(16, '0');
}

/**
 * The well-known card for a server that also serves A2A 0.3 (src/compat/card03.ts): the 1.0 card
 * for `A2A-Version: 1.x` (signatures intact), the 0.3 card for `0.3`, and without the header a
 * hybrid (1.0 plus the 0.3 top-level fields) that clients of either version read; the last two
 * from `options.v03Variants` when given (signed ones). Each variant has its own ETag; responses
 * vary on A2A-Version.
 */
export function createVersionedCardRoute(card: AgentCard, options: CardRouteOptions = {}): (req: HttpRequest) => HttpResponse {
  const v03 = options.v03Bindings ? { bindings: options.v03Bindings } : {};
  const routes = {
    '1.0': createAgentCardRoute(card, options),
    '0.3': createAgentCardRoute(options.v03Variants?.['0.3'] ?? agentCardForV03(card, v03), options),
    hybrid: createAgentCardRoute(options.v03Variants?.hybrid ?? hybridAgentCard(card, v03), options),
  };
  return (req) => {
    const res = routes[cardVariantFor(req)](req);
    return { ...res, headers: { ...res.headers, vary: 'A2A-Version' } };
  };
}
