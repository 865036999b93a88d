/**
 * A2A 0.3 over gRPC, client side: a Transport for interfaces with `protocolBinding: 'GRPC'`
 * and `protocolVersion` 0.3, calling `a2a.v1.A2AService` (proto/v03/a2a.proto). The 1.0
 * request becomes the 0.3 method and params (`requestToV03`, shared with the 0.3 JSON-RPC and
 * REST transports in src/client/v03Translate.ts), then the 0.3 request message (v03Codec.ts);
 * responses go back the same way (`resultToV10`, `streamEventToV10`; a stream ends after the
 * event 0.3 marks `final`). No a2a-version metadata is sent (absent means 0.3, VER-05).
 *
 * grpc03Transport pairs it with the 1.0 transport through `withV03` (src/client/dualVersion.ts),
 * as the JSON-RPC and HTTP+JSON transports are paired: a 1.0 call answered VersionNotSupported
 * is repeated over 0.3 when the error or the card names 0.3.
 *
 * Errors: a server that sends ErrorInfo (a2a-kit) gives the typed A2AError it names (ERR-08);
 * without it (the 0.3 JS SDK's gRPC server sends only a status code) the status is read per
 * method as the 0.3 SDK client reads it (FAILED_PRECONDITION on cancel → TaskNotCancelable,
 * UNIMPLEMENTED on a push method → PushNotificationNotSupported, …), else as fromGrpcError does.
 */
import type { ServiceError } from '@grpc/grpc-js';
import { streamEventFromProto03 } from '../../compat/protoJson03.js';
import type { V03UnaryMethod } from '../../compat/results.js';
import type { V03Method } from '../../compat/v03Types.js';
import { withV03 } from '../../client/dualVersion.js';
import type { StreamItem, Transport, TransportCall, TransportFactory } from '../../client/transport.js';
import { translated, v03CallOf, v03Event, v03Result } from '../../client/v03Translate.js';
import { errorFromDetails } from '../../protocol/errorTable.js';
import type { A2AErrorReason } from '../../protocol/errors.js';
import type { OperationResponses, StreamingOperationName, UnaryOperationName } from '../../protocol/types.js';
import {
  channelPool,
  decodeResponse,
  encodeRequest,
  grpcTransport,
  streamBytes,
  unaryBytes,
  type GrpcBytesCall,
  type GrpcChannel,
  type GrpcErrorReader,
  type GrpcTransportOptions,
} from './client.js';
import { checkNoQuery } from './callMetadata.js';
import { fromGrpcError, grpcStatusName, hasKnownErrorInfo, statusDetailsOf } from './errors.js';
import { GRPC03_METHOD_BY_V03, paramsToGrpc03, resultFromGrpc03, type Grpc03Method } from './v03Codec.js';

const PUSH_METHODS: readonly V03Method[] = [
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
];

/** What a status without ErrorInfo means on each 0.3 method (the 0.3 JS SDK's gRPC client table). */
function sdk03Reason(code: string, method: V03Method): A2AErrorReason | undefined {
  if (code === 'FAILED_PRECONDITION') {
    if (method === 'tasks/cancel') return 'TASK_NOT_CANCELABLE';
    if (method === 'agent/getAuthenticatedExtendedCard') return 'EXTENDED_AGENT_CARD_NOT_CONFIGURED';
  }
  if (code === 'UNIMPLEMENTED') {
    if (PUSH_METHODS.includes(method)) return 'PUSH_NOTIFICATION_NOT_SUPPORTED';
    if (method === 'tasks/resubscribe' || method === 'agent/getAuthenticatedExtendedCard') return 'UNSUPPORTED_OPERATION';
  }
  return undefined;
}

/** The error reader of one 0.3 method (see the module comment). */
export function grpc03Errors(method: V03Method): GrpcErrorReader {
  return (error: ServiceError) => {
    const reason = hasKnownErrorInfo(statusDetailsOf(error.metadata)?.details ?? []) ? undefined : sdk03Reason(grpcStatusName(error.code), method);
    if (reason === undefined) return fromGrpcError(error);
    const typed = errorFromDetails(reason, error.details || undefined, []);
    Object.defineProperty(typed, 'cause', { value: error, enumerable: false, configurable: true, writable: true });
    return typed;
  };
}

function rpcOf(method: V03Method): Grpc03Method {
  return GRPC03_METHOD_BY_V03.get(method) as Grpc03Method;
}

class Grpc03Transport implements Transport {
  constructor(private readonly channel: GrpcChannel) {}

  /** The call as bytes, for unary and streaming calls alike; a query parameter is refused first, nothing sent (as grpcTransport does). */
  private bytesCall(call: TransportCall): { rpc: Grpc03Method; method: V03Method; bytes: GrpcBytesCall } {
    checkNoQuery(call);
    const { method, params } = v03CallOf(call);
    const rpc = rpcOf(method);
    const request = encodeRequest(rpc, paramsToGrpc03(method, params));
    return { rpc, method, bytes: { path: rpc.path, request, headers: call.headers, signal: call.signal, deadline: call.deadline, errors: grpc03Errors(method), echo: call } };
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const { rpc, method, bytes } = this.bytesCall(call);
    const json = decodeResponse<unknown>(rpc.output, await unaryBytes(this.channel, bytes));
    return v03Result<K>(method as V03UnaryMethod, translated(() => resultFromGrpc03(method, json)));
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const { rpc, bytes } = this.bytesCall(call);
    const { messages } = await streamBytes(this.channel, bytes);
    return (async function* () {
      for await (const message of messages) {
        const { event, final } = v03Event(streamEventFromProto03(decodeResponse<unknown>(rpc.output, message)));
        yield { event };
        // Stop after the last event, also when the server keeps the stream open. 0.3 defines no
        // event ids: a dropped stream is resumed with a plain TaskSubscription.
        if (final) return;
      }
    })();
  }
}

export interface Grpc03TransportFactory extends TransportFactory {
  readonly binding: 'GRPC';
  /** Closes every channel this factory opened. */
  close(): void;
}

/**
 * The gRPC TransportFactory at A2A 1.0 and 0.3: `createClient(url, { transports:
 * [grpc03Transport()] })`. A 0.3 GRPC interface gets the 0.3 transport; a 1.0 one the 1.0
 * transport (grpcTransport), which the client prefers when the card lists both, and which falls
 * back to 0.3 after VersionNotSupported as the built-in JSON-RPC and HTTP+JSON transports do
 * (`withV03`, src/client/dualVersion.ts). It replaces grpcTransport (one factory per binding).
 */
export function grpc03Transport(options: GrpcTransportOptions = {}): Grpc03TransportFactory {
  const v10 = grpcTransport(options);
  const channels = channelPool(options);
  return {
    ...withV03({
      binding: 'GRPC',
      create: (agentInterface, context) => v10.create(agentInterface, context),
      load: async () => (url, context) => new Grpc03Transport(channels.get(url, context.cardUrl)),
    }),
    close() {
      v10.close();
      channels.close();
    },
  };
}
