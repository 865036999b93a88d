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
import { parseVersion, PROTOCOL_VERSION } from '../protocol/serviceParams.js';
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
}

export interface TransportFactory {
  /** The `protocolBinding` served, e.g. `JSONRPC`, `HTTP+JSON`, `GRPC`. */
  readonly binding: string;
  /** The protocol versions (Major.Minor) it speaks; default `SUPPORTED_VERSIONS` (1.0). */
  readonly versions?: readonly string[];
  /**
   * Reads an agent card of another protocol version (an A2A 0.3 card) as a 1.0 AgentCard;
   * undefined when the card is not one it knows. Called before the card is checked.
   */
  readCard?(card: unknown): Promise<AgentCard | undefined>;
  create(agentInterface: AgentInterface, context: TransportContext): Transport;
}

/** Protocol versions this client speaks (VER-01: Major.Minor). */
export const SUPPORTED_VERSIONS: readonly string[] = [PROTOCOL_VERSION];

/**
 * CARD-05: the first interface, in the card's (server's) order of preference, whose binding has
 * a transport and whose protocol version that transport speaks; `bindings` narrows the choice.
 * 1.0 interfaces come before older ones (A2A 0.3, with a transport such as v03Transport).
 */
export function selectInterface(
  card: AgentCard,
  transports: Iterable<TransportFactory>,
  bindings?: readonly string[],
): { agentInterface: AgentInterface; factory: TransportFactory } {
  const byBinding = new Map<string, TransportFactory>();
  for (const t of transports) byBinding.set(t.binding, t);
  for (const latest of [true, false]) {
    for (const agentInterface of card.supportedInterfaces) {
      const factory = byBinding.get(agentInterface.protocolBinding);
      if (!factory || (bindings && !bindings.includes(factory.binding))) continue;
      const version = parseVersion(String(agentInterface.protocolVersion ?? '')) as string;
      if ((version === PROTOCOL_VERSION) === latest && (factory.versions ?? SUPPORTED_VERSIONS).includes(version)) return { agentInterface, factory };
    }
  }
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
  const usable = [...byBinding.keys()].filter((b) => !bindings || bindings.includes(b));
  throw new A2AClientError(
    'NO_COMPATIBLE_INTERFACE',
    `The agent offers ${offered || 'no interfaces'}; this client speaks ${usable.join(', ')} at ${SUPPORTED_VERSIONS.join(', ')}`,
  );
}
