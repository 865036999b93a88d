/**
 * The public Agent Card at /.well-known/agent-card.json (CARD-02) with caching headers
 * (CACHE-01..04): a content-hash ETag, Last-Modified, Cache-Control, 304 on revalidation,
 * and CORS so browser clients can discover the agent (CARD-11).
 */
import type { AgentCard } from '../protocol/types.js';
import type { HttpRequest, HttpResponse } from './http/httpTypes.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface CardRouteOptions {
  maxAgeSeconds?: number;
}

export function createAgentCardRoute(card: AgentCard, options: CardRouteOptions = {}): (req: HttpRequest) => HttpResponse {
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
      return { status: 405, headers: { ...headers, allow: 'GET, HEAD' }, body: '{"error":{"code":405,"status":"INVALID_ARGUMENT","message":"Use GET"}}' };
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
