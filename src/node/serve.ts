/**
 * The Node host: node:http in front of an HttpHandler, with explicit timeouts (R18), body
 * limits enforced without buffering oversized bodies (R15), backpressure on streams (R10),
 * disconnect hygiene (R8) and graceful shutdown (R24). Translation only: no A2A logic here.
 */
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { PeerCertificate } from '../auth/authConfig.js';
import { fromNodeCertificate } from '../auth/nodeCertificate.js';
import { PayloadTooLargeError } from '../protocol/errors.js';
import type { HttpHandler, HttpRequest, HttpResponse } from '../server/http/httpTypes.js';
import { toPushStream } from '../server/pushStream.js';
import { StreamedResponse, type StreamHost } from './streamedResponse.js';
import { INTERNAL_BODY, ResponseBatch } from './responseBatch.js';
import { declaredOver, readBody, utf8Text } from './readBody.js';
import { logError, type ErrorHook } from '../server/errorHook.js';
import { TrustedProxies } from '../net/trustedProxies.js';
import { hostRefusal, transportRefusal } from '../bindings/transportRefusal.js';

/** What the host shares with its requests: open response streams, and the batch of unary answers. */
interface Host extends StreamHost {
  answers: ResponseBatch;
}

/**
 * Per request: whether the client waits for 100 Continue before sending its body, whether to
 * close the connection after answering, and the request's abort (once asked for).
 */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  expectsContinue: boolean;
  closeAfter: boolean;
  abort?: AbortController;
  /** The proxies whose X-Forwarded-For is believed (ServeOptions.trustProxy). */
  proxies: TrustedProxies | undefined;
}

/** After refusing an oversized body, read and discard at most this much before cutting the connection. */
const DISCARD_BYTES = 128 * 1024 * 1024;
const DISCARD_MS = 2_000;

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
  /** Called with requests that failed inside the host itself. Default: logError (console.error, with the stack). */
  onError?: ErrorHook;
  /**
   * PEM certificate chain and private key: serve HTTPS instead of plain HTTP (SEC-01). With `ca`
   * (trusted client CAs, PEM) the listener also requests client certificates (mutual TLS): a
   * request's `peerCertificate` says whether its certificate chains to them. Connections without
   * one, or with an untrusted one, are still accepted: the card's requirements decide (401).
   */
  tls?: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer | Array<string | Buffer> };
  /**
   * Addresses and CIDR ranges of the proxies (load balancers) in front: a request whose
   * connection comes from one of them has as `remoteAddress` the rightmost X-Forwarded-For hop
   * that is not a trusted proxy (../net/trustedProxies.ts) — the address the per-address abuse
   * limits, the access log and `onCall` see. Default none: the connection's address, whatever the
   * headers say. Never list addresses that clients can connect from directly.
   */
  trustProxy?: readonly string[];
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
  /** Open response streams, ended by close(). */
  const onError = options.onError ?? logError;
  const shared: Host = { streams: new Set(), onError, answers: new ResponseBatch(onError) };
  const proxies = options.trustProxy?.length ? new TrustedProxies(options.trustProxy) : undefined;
  let closing = false;
  const serverOptions = {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
    maxHeaderSize: options.maxHeaderSize ?? 16 * 1024,
    connectionsCheckingInterval: 1_000,
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void respond(req, res);
  };
  const server: Server = options.tls
    ? createTlsServer(
        {
          ...serverOptions,
          cert: options.tls.cert,
          key: options.tls.key,
          ...(options.tls.ca !== undefined ? { ca: options.tls.ca, requestCert: true, rejectUnauthorized: false } : {}),
        },
        listener,
      )
    : createServer(serverOptions, listener);
  server.maxConnections = options.maxConnections ?? 20_000;
  const current = new WeakMap<Duplex, IncomingMessage>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, { handler, current }));
  // Expect: 100-continue: 100 Continue only once the handler reads a body within its limit.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => void respond(req, res, true));

  async function respond(req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> {
    const exchange: Exchange = { req, res, expectsContinue, closeAfter: false, proxies };
    // While its body is read, a request timeout (a stalled body) is answered for this request's path.
    current.set(req.socket, req);
    try {
      const out = await handler.handle(new NodeHttpRequest(exchange));
      if (closing) out.headers = { ...out.headers, connection: 'close' };
      writeResponse(exchange, out, shared);
    } catch (error) {
      onError(error);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(INTERNAL_BODY);
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
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    port: address.port,
    host: address.address,
    server,
    get openStreams() {
      return shared.streams.size;
    },
    async close() {
      if (closing) return;
      closing = true;
      const timeout = options.shutdownTimeoutMs ?? 10_000;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams end with a reconnect hint so clients resubscribe elsewhere (R24).
      for (const stream of shared.streams) stream.shutdown();
      await handler.requestHandler?.drain?.(timeout);
      const timer = setTimeout(() => server.closeAllConnections(), timeout);
      await closed;
      clearTimeout(timer);
    },
  };
}

/** The HttpRequest of one exchange: a class, so no closures are made per request. */
class NodeHttpRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  /** The request target in origin form (path and query). */
  private readonly target: string;
  private readonly queryStart: number;
  private parsedQuery: URLSearchParams | undefined;
  /** The client address behind trusted proxies, once asked for (null: not yet). */
  private clientAddress: string | undefined | null = null;

  constructor(private readonly exchange: Exchange) {
    const url = exchange.req.url ?? '/';
    this.target = url.charCodeAt(0) === 47 /* / */ ? url : originForm(url);
    this.method = exchange.req.method ?? 'GET';
    this.queryStart = this.target.indexOf('?');
    this.path = this.queryStart < 0 ? this.target : this.target.slice(0, this.queryStart);
  }

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  get rawQuery(): string {
    return this.queryStart < 0 ? '' : this.target.slice(this.queryStart + 1);
  }

  header(name: string): string | undefined {
    const v = this.exchange.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  text(limit: number): Promise<string> {
    return readText(this.exchange, limit);
  }

  get remoteAddress(): string | undefined {
    const { req, proxies } = this.exchange;
    if (!proxies) return req.socket.remoteAddress;
    if (this.clientAddress === null) this.clientAddress = proxies.clientAddress(req.socket.remoteAddress, this.header('x-forwarded-for'));
    return this.clientAddress;
  }

  get peerCertificate(): PeerCertificate | undefined {
    const socket = this.exchange.req.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    const cert = socket.getPeerCertificate();
    if (!cert || !cert.raw) return undefined;
    return fromNodeCertificate(cert, socket.authorized === true);
  }

  get signal(): AbortSignal {
    // Created on first use: few requests need it (streams do not). A client already gone aborts at once.
    const exchange = this.exchange;
    if (!exchange.abort) {
      const abort = new AbortController();
      exchange.abort = abort;
      if (exchange.res.destroyed || exchange.req.socket.destroyed) abort.abort();
      else exchange.res.once('close', () => abort.abort());
    }
    return exchange.abort.signal;
  }
}

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * RFC 9112 §3.2.2: a server MUST accept the absolute form (`GET http://host/path?q`, as sent to
 * proxies); it names the resource at its path and query. Other forms are left as they are.
 */
function originForm(url: string): string {
  const scheme = ABSOLUTE_FORM.exec(url);
  if (!scheme) return url;
  const rest = url.slice(scheme[0].length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}

/** The path of a request target (origin or absolute form), without the query. */
function pathOf(url: string): string {
  const target = originForm(url);
  const queryStart = target.indexOf('?');
  return queryStart < 0 ? target : target.slice(0, queryStart);
}

/** The path of a request line (`POST /a2a/jsonrpc?x HTTP/1.1`) Node could not finish reading; undefined when cut before its end. */
function requestLinePath(raw: Buffer | undefined): string | undefined {
  const line = /^[A-Z]+ (\S+?)[ ?]/.exec(raw?.subarray(0, 4096).toString('latin1') ?? '');
  return line ? pathOf(line[1] as string) : undefined;
}

/**
 * Requests Node cannot parse (oversized headers or URL, malformed HTTP, slow headers, a body
 * that stalls) never reach a binding: answer them with a JSON error body with ErrorInfo instead
 * of Node's empty one, in the shape of the endpoint the request line names (the handler's
 * `refusal`, ../bindings/transportRefusal.ts). `current`: the request each connection is
 * reading, whose path a timeout has no other way to know.
 */
function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex, host: { handler: HttpHandler; current: WeakMap<Duplex, IncomingMessage> }): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const reading = host.current.get(socket);
  const path = reading && !reading.complete ? pathOf(reading.url ?? '/') : requestLinePath(error.rawPacket);
  const refusal = hostRefusal(error.code, path);
  const out = host.handler.refusal?.(refusal) ?? transportRefusal(refusal, false);
  const body = typeof out.body === 'string' ? out.body : '';
  const headers = Object.entries(out.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${out.status} ${STATUS_CODES[out.status] ?? ''}\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * The body as text. An oversized body is refused and the connection closed after the 413 (R15);
 * a client waiting for 100 Continue is told to send its body only when it is within the limit.
 */
async function readText(exchange: Exchange, limit: number): Promise<string> {
  try {
    if (exchange.expectsContinue && !declaredOver(exchange.req, limit)) exchange.res.writeContinue();
    return utf8Text(await readBody(exchange.req, limit));
  } catch (error) {
    if (error instanceof PayloadTooLargeError) exchange.closeAfter = true;
    throw error;
  }
}

function writeResponse(exchange: Exchange, out: HttpResponse, host: Host): void {
  const { res, closeAfter } = exchange;
  const body = out.body;
  if (body === undefined || typeof body === 'string') {
    // A flat [name, value, ...] list: the cheapest form for writeHead, and out.headers (often a
    // shared constant) is never mutated.
    const headers: string[] = [];
    for (const name in out.headers) headers.push(name, out.headers[name] as string);
    if (body !== undefined) headers.push('content-length', String(Buffer.byteLength(body)));
    if (closeAfter) {
      headers.push('connection', 'close');
      lingerOnClose(exchange);
    }
    host.answers.add({ res, status: out.status, headers, body });
    return;
  }
  res.writeHead(out.status, out.headers);
  const stream = toPushStream(body);
  if (exchange.req.method === 'HEAD') {
    // HEAD of a stream (SubscribeToTask): its headers only; the subscription is released at once.
    stream.close();
    res.end();
    return;
  }
  new StreamedResponse(exchange, stream, host).start();
}

/**
 * Lingering close after a 413 (R15): the client may still be uploading. Closing the socket at
 * once makes the kernel answer its next bytes with a reset, and many clients then lose the 413
 * they were sent. So when Node closes this connection we only half-close it (FIN after the
 * answer), read and drop a bounded amount of what still arrives, then destroy it.
 */
function lingerOnClose(exchange: Exchange): void {
  const socket = exchange.req.socket;
  socket.destroySoon = function lingeringDestroySoon() {
    let seen = 0;
    const cut = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(cut, DISCARD_MS);
    timer.unref();
    socket.end();
    exchange.req.unpipe?.();
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_BYTES) cut();
    });
    socket.once('end', cut);
    socket.resume();
  };
}
