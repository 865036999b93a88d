/**
 * The Node fetcher for JWKS and discovery documents: through the SSRF guard (R14), no redirects,
 * 10 s, 1 MiB. `serveAgent()` and `a2a serve` install it as `AuthConfig.fetchJson`. Node only.
 */
import { guardedFetch } from '../net/guardedFetch.js';
import type { SsrfOptions } from '../net/ssrfGuard.js';
import type { JsonFetcher } from './authConfig.js';
import { redactUrl } from '../net/redactUrl.js';

const MAX_BYTES = 1024 * 1024;

export function nodeJsonFetcher(options: { ssrf?: SsrfOptions; ca?: string | Buffer | Array<string | Buffer>; timeoutMs?: number } = {}): JsonFetcher {
  return async (url) => {
    const res = await guardedFetch(url, {
      headers: { accept: 'application/json' },
      maxResponseBytes: MAX_BYTES,
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.ssrf ? { ssrf: options.ssrf } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    });
    if (res.truncated) throw new Error(`GET ${redactUrl(url)}: document larger than ${MAX_BYTES} bytes`);
    if (res.status < 200 || res.status > 299) throw new Error(`GET ${redactUrl(url)} answered HTTP ${res.status}`);
    return JSON.parse(res.body.toString('utf8')) as unknown;
  };
}
