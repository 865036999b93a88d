/**
 * The seam between the client and a protocol binding. A transport turns one call (operation,
 * request message, headers, signal) into a response or a stream of events, and reports
 * failures as typed A2AErrors or A2AClientErrors. JSON-RPC and HTTP+JSON ship with the client;
 * others (gRPC, Node-only) are registered from outside, so the core never imports them.
 */
import type {
  AgentCard,
  AgentInterface,
  OperationName,
  OperationRequests,
  OperationResponses,
  StreamResponse,
  StreamingOperationName,
  UnaryOperationName,
} from '../protocol/types.js';
import { PROTOCOL_VERSION, V03_VERSION, versionOf } from '../protocol/serviceParams.js';
import { A2AClientError } from './errors.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportCall<K extends OperationName = OperationName> {
  readonly op: K;
  /** The request message, `tenant` included. */
  request: OperationRequests[K];
  /** Service parameters (A2A-Version, A2A-Extensions), credentials and caller headers. */
  readonly headers: Headers;
  /** Extra query parameters (an API key sent in the query); HTTP transports append them. */
  readonly query: URLSearchParams;
  readonly signal: AbortSignal;
  /**
   * When the call's `timeoutMs` runs out (ms since the epoch; unset without one): the whole call
   * for a unary operation, only the opening for a stream. The signal ends the call either way; a
   * binding that can also tell the server does so for unary calls (gRPC: `grpc-timeout`).
   */
  readonly deadline?: number | undefined;
  /**
   * EXT-05: the extensions the agent activated, as its response echoed them (A2A-Extensions;
   * `[]` when it echoed none). Set by the transport once the response, or a stream's headers,
   * arrived; a transport that cannot read them leaves it unset.
   */
  activatedExtensions?: string[];
}

/** One streamed event and its SSE event id (or the binding's equivalent), when it had one. */
export interface StreamItem {
  event: StreamResponse;
  id?: string;
}

export interface Transport {
  unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]>;
  /** Resolves once the stream is open: errors raised before the first event reject here (STREAM-12). */
  stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>>;
}

export interface TransportContext {
  fetch: FetchLike;
  /** The agent card the interface was chosen from. */
  card?: AgentCard;
  /**
   * The URL the card was read from (resolveCard, createClient with an agent URL); unset for a
   * card given as an object. An https card URL says the agent serves TLS: the gRPC transport
   * then uses TLS for the card's gRPC interface, loopback included.
   */
  cardUrl?: string | undefined;
  /**
   * The protocol versions the client may use (ClientOptions.versions); a transport falls back
   * to another version (A2A 0.3 after VersionNotSupported) only when it is listed.
   */
  versions?: readonly string[];
  /** Largest event stream event read, in characters (ClientOptions.maxEventSize; default 16 Mi). */
  maxEventSize?: number | undefined;
  /** Longest silence of an SSE stream whose server sent heartbeats (ClientOptions.streamIdleMs; default 60 s). */
  streamIdleMs?: number | undefined;
  /** Largest response body read, in bytes (ClientOptions.maxResponseBytes; default 16 MiB). */
  maxResponseBytes?: number | undefined;
}

export interface TransportFactory {
  /** The `protocolBinding` served, e.g. `JSONRPC`, `HTTP+JSON`, `GRPC`. */
  readonly binding: string;
  /** The protocol versions (Major.Minor) it speaks; default `["1.0"]`. */
  readonly versions?: readonly string[];
  /**
   * Reads an agent card of another protocol version as a 1.0 AgentCard; undefined when the
   * card is not one it knows. Called before the card is checked (A2A 0.3 cards are read by
   * the client itself).
   */
  readCard?(card: unknown): Promise<AgentCard | undefined>;
  create(agentInterface: AgentInterface, context: TransportContext): Transport;
}

export { V03_VERSION, versionOf } from '../protocol/serviceParams.js';

/** Protocol versions (Major.Minor, VER-01) the built-in transports speak, in the client's order of preference. */
export const SUPPORTED_VERSIONS: readonly string[] = [PROTOCOL_VERSION, V03_VERSION];

/** Interface choice: which bindings and protocol versions the client may use. */
export interface InterfacePreferences {
  /** Only these bindings (the card's order still decides among them, CARD-05). */
  bindings?: readonly string[] | undefined;
  /** Only these versions, preferred in this order; default SUPPORTED_VERSIONS, then any other a transport speaks. */
  versions?: readonly string[] | undefined;
}

/** The last factory (a later one replaces an earlier one) for the binding at that version. */
function factoryFor(factories: readonly TransportFactory[], binding: string, version: string): TransportFactory | undefined {
  for (let i = factories.length - 1; i >= 0; i--) {
    const f = factories[i] as TransportFactory;
    if (f.binding === binding && (f.versions ?? [PROTOCOL_VERSION]).includes(version)) return f;
  }
  return undefined;
}

/**
 * CARD-05: an interface whose binding has a transport speaking its protocol version, the best
 * version first (1.0, then A2A 0.3, then any other; or the order of `versions`), and among
 * interfaces of that version the first in the card's (server's) order of preference.
 * `bindings` (an array, or in the preferences object) narrows the choice.
 */
export function selectInterface(
  card: AgentCard,
  transports: Iterable<TransportFactory>,
  preferences?: readonly string[] | InterfacePreferences,
): { agentInterface: AgentInterface; factory: TransportFactory } {
  const { bindings, versions }: InterfacePreferences = isList(preferences) ? { bindings: preferences } : (preferences ?? {});
  const factories = [...transports];
  const order = versions ?? SUPPORTED_VERSIONS;
  // Unlisted versions rank last, unless the caller pinned `versions`.
  const rank = (version: string) => (order.includes(version) ? order.indexOf(version) : versions ? -1 : order.length);
  let best: { agentInterface: AgentInterface; factory: TransportFactory; rank: number } | undefined;
  for (const agentInterface of card.supportedInterfaces) {
    if (bindings && !bindings.includes(agentInterface.protocolBinding)) continue;
    const version = versionOf(agentInterface);
    const r = rank(version);
    const factory = r < 0 || (best && best.rank <= r) ? undefined : factoryFor(factories, agentInterface.protocolBinding, version);
    if (factory) best = { agentInterface, factory, rank: r };
  }
  if (best) return { agentInterface: best.agentInterface, factory: best.factory };
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
  const usable = [...new Set(factories.filter((f) => !bindings || bindings.includes(f.binding)).map((f) => `${f.binding} ${(f.versions ?? [PROTOCOL_VERSION]).join('/')}`))];
  throw new A2AClientError(
    'NO_COMPATIBLE_INTERFACE',
    `The agent offers ${offered || 'no interfaces'}; this client speaks ${usable.join(', ') || 'nothing'}${versions ? ` (versions limited to ${versions.join(', ')})` : ''}`,
  );
}

function isList(value: readonly string[] | InterfacePreferences | undefined): value is readonly string[] {
  return Array.isArray(value);
}
