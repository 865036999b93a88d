/**
 * What a client is configured with: the options of createClient (transports, bindings and
 * versions, headers and extensions, interceptors and credentials, deadlines, retries, stream
 * resumption, size limits, the card's cache and signature checks), of each call, and of the
 * sendText / streamText helpers.
 */
import type { OperationRequests, SendMessageConfiguration } from '../protocol/types.js';
import type { CardCache, CardSignatureMode, CardVerificationOptions } from './cardResolver.js';
import type { AuthProvider, Interceptor } from './interceptors.js';
import type { MessageInput } from './messages.js';
import type { RetryOptions } from './retry.js';
import type { ResumeOptions } from './streams.js';
import type { FetchLike, TransportFactory } from './transport.js';

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Unary calls: the whole call, retries included. Streams: until the stream is open. */
  timeoutMs?: number | undefined;
  headers?: Record<string, string> | undefined;
  /**
   * EXT-05: called with the extensions the agent activated for this call, as its answer echoed
   * them (A2A-Extensions; `[]` when none): once the call succeeded, before it returns; for a
   * stream once it is open, before its first event (again for each resumption).
   */
  onActivatedExtensions?: ((uris: string[]) => void) | undefined;
}

export interface ClientOptions {
  fetch?: FetchLike;
  /**
   * Transports besides the built-in JSONRPC and HTTP+JSON (which speak A2A 1.0 and 0.3), e.g.
   * gRPC; a later one replaces an earlier one of the same binding and protocol version.
   */
  transports?: TransportFactory[];
  /** Only consider these bindings (the card's order of preference still decides among them). */
  bindings?: string[];
  /**
   * Protocol versions (Major.Minor) the client may use, preferred in this order; default
   * `['1.0', '0.3']`: A2A 0.3 agents are reached automatically. `['1.0']` pins 1.0 (VER-09):
   * no 0.3 interface is chosen and VersionNotSupported is not answered by falling back to 0.3.
   */
  versions?: string[];
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Extensions to activate on every request (A2A-Extensions, EXT-02). */
  extensions?: string[];
  /** The default `onActivatedExtensions` of every call (EXT-05). */
  onActivatedExtensions?: (uris: string[]) => void;
  interceptors?: Interceptor[];
  auth?: AuthProvider;
  /** Default `timeoutMs` of every call. */
  timeoutMs?: number;
  /** Retries of idempotent calls (default on); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Resumption of dropped task streams (default on); `false` turns it off. */
  resume?: ResumeOptions | false;
  /**
   * R24: an SSE stream whose server has sent a heartbeat comment, then nothing for
   * max(streamIdleMs, 3 × the longest wait for a chunk so far), is dropped as a broken connection
   * (NETWORK, then resumed): the server froze or the network is partitioned. Default 60,000 ms;
   * 0 turns it off. Streams from servers that send no comments are never cut. Not gRPC (its
   * HTTP/2 keepalive does this).
   */
  streamIdleMs?: number;
  /**
   * Largest event of an event stream (SSE) read, in characters (about bytes for JSON and
   * base64); default 16 Mi. A larger one fails the stream with INVALID_RESPONSE.
   */
  maxEventSize?: number;
  /**
   * Largest response body read, in bytes (a unary answer, or a JSON answer in place of a
   * stream); default 16 MiB. A larger one is not downloaded further and fails the call with
   * INVALID_RESPONSE (not retried). Error bodies (non-2xx) are read up to 64 KiB.
   */
  maxResponseBytes?: number;
  /** Card cache (default: shared in-memory cache); `false` fetches every time. */
  cardCache?: CardCache | false;
  /** Signature checks of the fetched card: `if-present` (default), `require` or `off` (docs/signing.md). */
  verifyCardSignatures?: CardSignatureMode;
  /** Keys and algorithms for those checks (`jwks`, `keys`, `fetchJwks`, `allowedAlgs`). */
  cardVerification?: CardVerificationOptions;
  /** Aborts card resolution. */
  signal?: AbortSignal;
  /** The largest agent card read, in bytes (default 1 MiB); a larger one is BAD_CARD. */
  maxCardBytes?: number;
}

export type SendOptions = Omit<MessageInput, 'text'> &
  CallOptions & { configuration?: SendMessageConfiguration; requestMetadata?: OperationRequests['sendMessage']['metadata'] };
