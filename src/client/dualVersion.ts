/**
 * The built-in transports speak A2A 1.0 and 0.3 (issue 9), and so does grpc03Transport. `withV03`
 * makes one factory of a binding's 1.0 transport and its 0.3 transport, which is loaded on first
 * use (a dynamic import: bundlers that split keep the compat layer out of the initial chunk):
 *
 * - a 0.3 interface (`protocolVersion: '0.3'`, from a 0.3 card or a 1.0 card listing one) gets
 *   the 0.3 transport; selectInterface prefers a 1.0 interface whenever the card has one;
 * - a 1.0 interface gets the 1.0 transport, which falls back to 0.3 when a call is answered
 *   with VersionNotSupported and the card lists a 0.3 interface of the same binding or the
 *   error lists 0.3 as supported: the call is repeated once over 0.3 (at that interface, else
 *   the same URL) and, once that succeeded, the client keeps using 0.3. Not when the client's
 *   `versions` leave 0.3 out (VER-09: pinned to 1.0).
 */
import { A2AError } from '../protocol/errors.js';
import { PROTOCOL_VERSION } from '../protocol/serviceParams.js';
import type { AgentInterface, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { V03_VERSION, versionOf, type StreamItem, type Transport, type TransportCall, type TransportContext, type TransportFactory } from './transport.js';

/** Loads the 0.3 transport of a binding: a function of the interface URL and the transport context. */
export type V03TransportLoader = () => Promise<(url: string, context: TransportContext) => Transport>;

/** A transport whose module is loaded on its first call. */
class LazyTransport implements Transport {
  private inner: Promise<Transport> | undefined;

  constructor(
    private readonly load: V03TransportLoader,
    private readonly target: { url: string; context: TransportContext },
  ) {}

  private get transport(): Promise<Transport> {
    return (this.inner ??= this.load().then((make) => make(this.target.url, this.target.context)));
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    return (await this.transport).unary(call);
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    return (await this.transport).stream(call);
  }
}

interface FallbackContext {
  agentInterface: AgentInterface;
  context: TransportContext;
  load: V03TransportLoader;
}

/** The 1.0 transport, repeating a call over 0.3 after VersionNotSupported (see the module comment). */
class FallbackTransport implements Transport {
  private v03: Transport | undefined;

  constructor(
    private readonly v10: Transport,
    private readonly fallback: FallbackContext,
  ) {}

  private async run<T>(send: (t: Transport) => Promise<T>): Promise<T> {
    if (this.v03) return send(this.v03);
    try {
      return await send(this.v10);
    } catch (error) {
      if (!A2AError.is(error) || error.reason !== 'VERSION_NOT_SUPPORTED') throw error;
      // The 0.3 support decides where to repeat the call, loaded only now (the 0.3 transport needs it anyway).
      const { v03FallbackUrl } = await import('./v03Translate.js');
      const url = v03FallbackUrl(error, this.fallback);
      if (url === undefined) throw error;
      const v03 = new LazyTransport(this.fallback.load, { url, context: this.fallback.context });
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

/**
 * One factory for a binding at 1.0 (`create`) and 0.3 (`load`, on first use): JSON-RPC and
 * HTTP+JSON here, gRPC in grpc03Transport (src/bindings/grpc/v03Client.ts).
 */
export function withV03<B extends string>(spec: {
  binding: B;
  create: (agentInterface: AgentInterface, context: TransportContext) => Transport;
  load: V03TransportLoader;
}): TransportFactory & { readonly binding: B } {
  const { binding, create, load } = spec;
  return {
    binding,
    versions: [PROTOCOL_VERSION, V03_VERSION],
    create(agentInterface, context) {
      if (versionOf(agentInterface) === V03_VERSION) return new LazyTransport(load, { url: agentInterface.url, context });
      return new FallbackTransport(create(agentInterface, context), { agentInterface, context, load });
    },
  };
}
