/**
 * The one request function for server-initiated HTTP (R12 webhook hygiene + R14 SSRF guard):
 * vets the URL and every resolved address (./ssrfGuard.ts), connects only to the vetted address
 * (TLS servername and Host stay the original hostname), never follows redirects (a 3xx is
 * returned as a response), caps the response body (default 64 KiB, then destroys the socket),
 * and puts one deadline (default 10 s) over DNS, connect, headers and body. A caller that decides
 * on the status alone (webhook deliveries) asks for `statusOnly`: the answer is then final when
 * its headers arrive, however slowly (or never) its body follows.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { deadlineSignal } from './cappedBody.js';
import { resolveVetted, vetUrl, type SsrfOptions } from './ssrfGuard.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** One deadline over DNS, connect, response headers and body (default 10 s). */
  timeoutMs?: number;
  /** Response body cap (default 64 KiB); past it reading stops and `truncated` is true. */
  maxResponseBytes?: number;
  signal?: AbortSignal;
  /**
   * Settle as soon as the status line and headers arrive: the body is not read (the connection
   * is closed), `body` is empty and `truncated` is true. The deadline then covers DNS, connect
   * and headers only.
   */
  statusOnly?: boolean;
  /**
   * Told the vetted address before the connection is made; throwing stops the request there
   * (nothing is sent) and rejects it with that error. Per-destination limits use it.
   */
  beforeConnect?: (address: string) => void;
  ssrf?: SsrfOptions;
  /** Extra trust anchors for https (private CAs, tests). The system store stays in use otherwise. */
  ca?: string | Buffer | Array<string | Buffer>;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body was not read to its end: past `maxResponseBytes`, or not at all (`statusOnly`). */
  truncated: boolean;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

/** Rejects as soon as `signal` aborts (the DNS lookup itself cannot be cancelled). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A `lookup` for the socket that can only ever answer the vetted address. */
function pinnedLookup(vetted: { hostname: string; address: string; family: 4 | 6 }): LookupFunction {
  return (hostname, options, callback) => {
    if (hostname.toLowerCase() !== vetted.hostname.toLowerCase()) {
      callback(Object.assign(new Error(`unexpected lookup of ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        { address: vetted.address, family: vetted.family },
      ]);
    } else {
      callback(null, vetted.address, vetted.family);
    }
  };
}

/**
 * One request, never following redirects, connecting only to the vetted address (TLS
 * servername/Host stay the original hostname). Rejects with `SsrfBlockedError` before any
 * connection for a refused URL, with the deadline's `TimeoutError` (or the caller's abort
 * reason) when the signal fires, or with the socket error.
 */
export async function guardedFetch(url: string, request: GuardedRequest = {}): Promise<GuardedResponse> {
  const target = vetUrl(url, request.ssrf);
  const signal = deadlineSignal(request.timeoutMs ?? DEFAULT_TIMEOUT_MS, request.signal);
  const { address, family } = await raceAbort(resolveVetted(target, request.ssrf), signal);
  request.beforeConnect?.(address);
  const maxBytes = Math.max(0, request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);

  const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  const isHttps = target.protocol === 'https:';
  const headers: Record<string, string> = { ...request.headers };
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.byteLength);
  }
  const options: https.RequestOptions = {
    protocol: target.protocol,
    hostname,
    port: target.port === '' ? undefined : Number(target.port),
    path: `${target.pathname}${target.search}`,
    method: request.method ?? 'GET',
    headers,
    agent: false,
    family,
    lookup: pinnedLookup({ hostname, address, family }),
  };
  if (isHttps) {
    // SNI must be a name, never an IP literal (RFC 6066); Node verifies the cert against it.
    if (address !== hostname) options.servername = hostname;
    if (request.ca !== undefined) options.ca = request.ca;
  }

  return new Promise<GuardedResponse>((resolve, reject) => {
    let settled = false;
    const req = (isHttps ? https : http).request(options);
    const finish = (outcome: { response?: GuardedResponse; error?: unknown }): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (outcome.response) resolve(outcome.response);
      else reject(outcome.error);
    };
    const onAbort = (): void => {
      const error = abortReason(signal);
      req.destroy(error);
      finish({ error });
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error) => finish({ error }));
    req.on('response', (res) => {
      if (request.statusOnly) {
        finish({ response: { status: res.statusCode ?? 0, headers: { ...res.headers }, body: Buffer.alloc(0), truncated: true } });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const done = (truncated: boolean): void =>
        finish({
          response: {
            status: res.statusCode ?? 0,
            headers: { ...res.headers },
            body: Buffer.concat(chunks, received),
            truncated,
          },
        });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxBytes - received;
        if (chunk.length > room) {
          if (room > 0) chunks.push(chunk.subarray(0, room));
          received = maxBytes;
          done(true);
          // Stop reading: a never-ending stream must not keep us (or the socket) busy.
          res.destroy();
          req.destroy();
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      res.on('end', () => done(false));
      res.on('error', (error) => finish({ error }));
      res.on('close', () => {
        if (!res.complete) finish({ error: new Error('response closed before it was complete') });
      });
    });
    req.end(body);
  });
}
