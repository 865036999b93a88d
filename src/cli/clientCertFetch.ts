/**
 * A fetch for the client commands' `--cert/--key/--cacert`: https requests go through
 * node:https with the client certificate (mutual TLS) and the trusted CAs, since the global
 * fetch takes no TLS options; other requests are the global fetch's. Like the client's own
 * requests it never follows a redirect (node:https does not), and the response body streams (an
 * event stream is read as it comes).
 */
import https from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '../client/transport.js';

export interface ClientTls {
  cert?: Buffer;
  key?: Buffer;
  /** Trusted roots instead of Node's (curl's --cacert). */
  ca?: Buffer;
}

/** Statuses whose Response has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

export function clientCertFetch(tls: ClientTls): FetchLike {
  const agent = new https.Agent({ keepAlive: true, ...tls });
  return (input, init) => {
    const url = new URL(input);
    if (url.protocol !== 'https:') return globalThis.fetch(input, init);
    const method = init.method ?? 'GET';
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, { method, headers, agent, ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
        const status = res.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, v);
        }
        const body = NO_BODY.has(status) || method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!body) res.resume();
        resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      });
      // As the global fetch rejects: a TypeError whose cause is what failed (ECONNREFUSED, a TLS alert).
      req.on('error', (error) => reject(init.signal?.aborted ? error : new TypeError('fetch failed', { cause: error })));
      if (init.body === undefined || init.body === null) req.end();
      else if (typeof init.body === 'string' || init.body instanceof Uint8Array) req.end(init.body);
      else {
        req.destroy();
        reject(new TypeError('clientCertFetch sends string or byte bodies only'));
      }
    });
  };
}
