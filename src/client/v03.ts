/**
 * A2A 0.3 agents, opt-in: `createClient(url, { transports: [v03Transport] })`. The factory
 * serves the JSONRPC binding at both versions (it replaces the built-in JSON-RPC factory):
 *
 * - a 0.3 card (top-level `url`, no `supportedInterfaces`) is read as a 1.0 card whose
 *   interfaces say `protocolVersion: '0.3'` (`client.card`; the original is `client.rawCard`);
 * - a 0.3 interface gets the 0.3 transport (jsonrpc03Transport.ts); a 1.0 one is still
 *   preferred when the card has both (selectInterface);
 * - a 1.0 interface gets the 1.0 transport, which falls back to 0.3 when a call answers
 *   VersionNotSupported and the card or the error lists 0.3: the call is repeated once over
 *   0.3 and the client keeps using 0.3 from then on.
 *
 * The translation (src/compat) is loaded on first use, so bundlers that split dynamic imports
 * keep it out of the main chunk. Opt-in rather than built in: the minimal client bundle
 * (test/client/bundle.test.ts, measured without splitting) has no room for it.
 */
import { A2AError } from '../protocol/errors.js';
import { parseVersion } from '../protocol/serviceParams.js';
import type { AgentCard, AgentInterface, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { jsonRpcTransport } from './jsonrpcTransport.js';
import type { FetchLike, StreamItem, Transport, TransportCall, TransportFactory } from './transport.js';

const V03 = '0.3';

const load = () => import('./jsonrpc03Transport.js');

/** A transport whose module is loaded on its first call. */
class LazyV03Transport implements Transport {
  private inner: Promise<Transport> | undefined;

  constructor(
    private readonly url: string,
    private readonly fetch: FetchLike,
  ) {}

  private get transport(): Promise<Transport> {
    return (this.inner ??= load().then((m) => m.jsonRpc03(this.url, this.fetch)));
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    return (await this.transport).unary(call);
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    return (await this.transport).stream(call);
  }
}

const isV03 = (i: AgentInterface) => parseVersion(String(i.protocolVersion ?? '')) === V03;

/** The card's 0.3 JSON-RPC interface, if it lists one. */
function v03Interface(card: AgentCard | undefined): AgentInterface | undefined {
  return card?.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC' && isV03(i));
}

/** VersionNotSupported, and the card has a 0.3 JSON-RPC interface or the error lists 0.3 as supported. */
function fallsBack(error: unknown, card: AgentCard | undefined): boolean {
  if (!A2AError.is(error) || error.reason !== 'VERSION_NOT_SUPPORTED') return false;
  const listed = (error.metadata.supportedVersions ?? '').split(/[\s,]+/);
  return listed.some((v) => parseVersion(v) === V03) || v03Interface(card) !== undefined;
}

/**
 * The 1.0 JSON-RPC transport with the VersionNotSupported fallback: the failed call is repeated
 * once over 0.3 (at the card's 0.3 interface, else the same URL); once that succeeded, every
 * later call goes there (the choice is per client).
 */
class FallbackTransport implements Transport {
  private v03: Transport | undefined;

  constructor(
    private readonly v10: Transport,
    private readonly context: { agentInterface: AgentInterface; card: AgentCard | undefined; fetch: FetchLike },
  ) {}

  private async run<T>(send: (t: Transport) => Promise<T>): Promise<T> {
    if (this.v03) return send(this.v03);
    try {
      return await send(this.v10);
    } catch (error) {
      const { card, agentInterface, fetch } = this.context;
      if (!fallsBack(error, card)) throw error;
      const v03 = new LazyV03Transport((v03Interface(card) ?? agentInterface).url, fetch);
      const value = await send(v03);
      this.v03 = v03;
      return value;
    }
  }

  unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    return this.run((t) => t.unary(call));
  }

  stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    return this.run((t) => t.stream(call));
  }
}

/** JSON-RPC at A2A 1.0 and 0.3 (see the module comment). Pass it in `ClientOptions.transports`. */
export const v03Transport: TransportFactory = {
  binding: 'JSONRPC',
  versions: ['1.0', V03],
  async readCard(card) {
    // isV03Card (src/compat/card.ts), inlined so the compat layer loads only for 0.3 cards.
    const v03 = typeof card === 'object' && card !== null && typeof (card as AgentInterface).url === 'string' && !Array.isArray((card as AgentCard).supportedInterfaces);
    return v03 ? (await load()).readV03Card(card) : undefined;
  },
  create(agentInterface, context) {
    if (isV03(agentInterface)) return new LazyV03Transport(agentInterface.url, context.fetch);
    return new FallbackTransport(jsonRpcTransport.create(agentInterface, context), { agentInterface, card: context.card, fetch: context.fetch });
  },
};
