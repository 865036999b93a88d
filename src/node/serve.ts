/**
 * The Node host: node:http in front of an HttpHandler, with explicit timeouts (R18), body
 * limits enforced without buffering oversized bodies (R15), backpressure on streams (R10),
 * disconnect hygiene (R8) and graceful shutdown (R24). Translation only: no A2A logic here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PayloadTooLargeError } from '../protocol/errors.js';
import type { HttpHandler, HttpRequest, HttpResponse } from '../server/http/httpTypes.js';

export interface ServeOptions {
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Time allowed to receive the request headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Time allowed to receive the whole request (default 30 s; response streams are exempt). */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Largest request header block in bytes (default 16 KiB). */
  maxHeaderSize?: number;
  /** Most simultaneous connections (default 20,000). */
  maxConnections?: number;
  /** How long close() waits for in-flight work before cutting connections (default 10 s). */
  shutdownTimeoutMs?: number;
  /** Called with requests that failed inside the host itself. */
  onError?: (error: unknown) => void;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly server: Server;
  /** Number of open response streams (SSE). */
  readonly openStreams: number;
  close(): Promise<void>;
}

interface Drainable {
  drain?(timeoutMs: number): Promise<void>;
}

export async function serve(handler: HttpHandler & { requestHandler?: Drainable }, options: ServeOptions = {}): Promise<RunningServer> {
  const streams = new Set<ServerResponse>();
  let closing = false;
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      maxHeaderSize: options.maxHeaderSize ?? 16 * 1024,
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      void respond(req, res);
    },
  );
  server.maxConnections = options.maxConnections ?? 20_000;

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const state = { closeAfter: false };
    try {
      const out = await handler.handle(toHttpRequest(req, res, state));
      if (closing) out.headers = { ...out.headers, connection: 'close' };
      await writeResponse(res, out, { ...state, streams });
    } catch (error) {
      options.onError?.(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}');
      } else {
        res.destroy();
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    host: address.address,
    server,
    get openStreams() {
      return streams.size;
    },
    async close() {
      if (closing) return;
      closing = true;
      const timeout = options.shutdownTimeoutMs ?? 10_000;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams end with a reconnect hint so clients resubscribe elsewhere (R24).
      for (const res of streams) {
        res.end('retry: 1000\n\n');
      }
      await handler.requestHandler?.drain?.(timeout);
      const timer = setTimeout(() => server.closeAllConnections(), timeout);
      await closed;
      clearTimeout(timer);
    },
  };
}

function toHttpRequest(req: IncomingMessage, res: ServerResponse, state: { closeAfter: boolean }): HttpRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  let query: URLSearchParams | undefined;
  let controller: AbortController | undefined;
  return {
    method: req.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    get query() {
      return (query ??= new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
    },
    header(name) {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    text: (limit) => readBody(req, limit, state),
    get signal() {
      if (!controller) {
        const c = new AbortController();
        controller = c;
        res.once('close', () => {
          if (!res.writableFinished) c.abort();
        });
      }
      return controller.signal;
    },
  };
}

function readBody(req: IncomingMessage, limit: number, state: { closeAfter: boolean }): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    // Refuse without reading: the connection is closed after the 413 (R15).
    state.closeAfter = true;
    return Promise.reject(new PayloadTooLargeError(`Request body exceeds ${limit} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        state.closeAfter = true;
        req.pause();
        reject(new PayloadTooLargeError(`Request body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

async function writeResponse(
  res: ServerResponse,
  out: HttpResponse,
  { closeAfter, streams }: { closeAfter: boolean; streams: Set<ServerResponse> },
): Promise<void> {
  const body = out.body;
  if (body === undefined || typeof body === 'string') {
    const headers = body === undefined ? out.headers : { ...out.headers, 'content-length': String(Buffer.byteLength(body)) };
    if (closeAfter) headers.connection = 'close';
    res.writeHead(out.status, headers);
    if (closeAfter) res.end(body, () => res.socket?.destroySoon());
    else res.end(body);
    return;
  }
  res.writeHead(out.status, out.headers);
  res.flushHeaders();
  streams.add(res);
  const iterator = body[Symbol.asyncIterator]();
  const onClose = () => void iterator.return?.();
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await iterator.next();
      if (done || res.destroyed || res.writableEnded) break;
      if (!res.write(value)) await drainOrClose(res);
    }
  } finally {
    res.off('close', onClose);
    streams.delete(res);
    if (!res.writableEnded) res.end();
  }
}

function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
