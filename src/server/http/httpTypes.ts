/**
 * The small HTTP model the bindings are written against. `createA2AHandler().fetch` adapts
 * WHATWG Request/Response to it; the Node adapter adapts node:http directly (no Request object
 * per call, which is the single largest cost on a hot path).
 */
import type { PeerCertificate } from '../../auth/authConfig.js';
import type { A2AError } from '../../protocol/errors.js';
import type { GrpcStatusName } from '../../protocol/errorTable.js';

export interface HttpRequest {
  readonly method: string;
  /** The path without query string, still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
  /**
   * The query string as sent, without `?`, still percent-encoded (`''` without one). The REST
   * binding decodes it strictly (malformed percent-encoding is a 400, where `query` would keep
   * `%ZZ` and turn `%FF` into U+FFFD); without it, `query` is used as it is.
   */
  readonly rawQuery?: string;
  /** Header value by lowercase name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  /**
   * The body as text, at most `limit` bytes; throws PayloadTooLargeError beyond, ParseError when
   * it is not UTF-8, RequestAbortedError when the client goes away before it is complete.
   */
  text(limit: number): Promise<string>;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /**
   * The TLS client certificate, when the listener requested one (mutual TLS, issue 8) and the
   * client sent it; `authorized` says whether it chains to the listener's trusted client CAs.
   */
  readonly peerCertificate?: PeerCertificate | undefined;
  /**
   * The client's network address, when the host knows it: the connection's, or behind trusted
   * proxies the forwarded client's (the Node host's `trustProxy`, ../../net/trustedProxies.ts).
   */
  readonly remoteAddress?: string | undefined;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** A string, or a stream of chunks (SSE) the host writes as they come. */
  body?: string | AsyncIterable<string>;
}

/**
 * A request refused before a binding read it: by the host (malformed HTTP, headers or URL too
 * large, a body that did not arrive in time) or by the CORS preflight.
 */
export interface HostRefusal {
  /** Its own HTTP status (400, 403, 408, 431). */
  status: number;
  error: A2AError;
  /** The HTTP+JSON `error.status`, when not the error's own (408: DEADLINE_EXCEEDED). */
  grpcStatus?: GrpcStatusName;
  /** The request's path (no query), when the request line was read. */
  path?: string;
}

export interface HttpHandler {
  handle(request: HttpRequest): Promise<HttpResponse>;
  /**
   * Optional: the answer to a request the host refused, in the shape of the endpoint its path
   * names (the JSON-RPC error object on the JSON-RPC path). Without it the Node host answers in
   * the HTTP+JSON shape.
   */
  refusal?(refusal: HostRefusal): HttpResponse;
}
