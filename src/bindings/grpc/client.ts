/**
 * gRPC binding, client side: a Transport (src/client/transport.ts) that sends each operation to
 * `/lf.a2a.v1.A2AService/<Rpc>` on the interface's `host:port` (GRPC-06), with the request's
 * service parameters and credentials as metadata (GRPC-02). Requests and responses are the same
 * wire JSON as on the other transports; codec.ts converts at the edge. Errors come back as
 * the typed A2AErrors named by ErrorInfo (ERR-08) or as A2AClientErrors. Node only.
 */
import { status as grpcStatus, type ClientReadableStream, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { A2AClientError } from '../../client/errors.js';
import { checkEvent, checkResponse } from '../../client/responses.js';
import { oneTaskCheck } from '../../client/streamTask.js';
import { Deadline, timedOut } from '../../client/signals.js';
import type { StreamItem, Transport, TransportCall, TransportFactory } from '../../client/transport.js';
import { InvalidParamsError } from '../../protocol/errors.js';
import { PROTOCOL_VERSION, echoedExtensions } from '../../protocol/serviceParams.js';
import type {
  OperationName,
  OperationRequests,
  OperationResponses,
  StreamResponse,
  StreamingOperationName,
  UnaryOperationName,
} from '../../protocol/types.js';
import { FIRST_EVENT_ID_KEY, GRPC_METHOD_BY_OP, jsonToBinary, responseToJson, type GrpcMethod } from './codec.js';
import { WireCodecError } from './wireCodec.js';
import { fromGrpcError, withGrpcResponse } from './errors.js';
import { checkNoQuery, metadataOf } from './callMetadata.js';
import { unreachable, type GrpcEndpoint } from './unreachable.js';
import { channelPool, type GrpcChannel, type GrpcTransportOptions } from './channelPool.js';

export { DEFAULT_KEEPALIVE, channelPool, defaultTls } from './channelPool.js';
export type { GrpcChannel, GrpcTransportOptions } from './channelPool.js';

const identity = (value: Buffer): Buffer => value;

function methodOf(op: OperationName): GrpcMethod {
  const method = GRPC_METHOD_BY_OP.get(op);
  if (!method) throw new A2AClientError('INVALID_RESPONSE', `No gRPC method for ${op}`);
  return method;
}

/** The request as protobuf: a request JSON that does not fit the proto never leaves the client. */
export function encodeRequest(method: Pick<GrpcMethod, 'rpc' | 'input'>, request: unknown): Buffer {
  try {
    return jsonToBinary(method.input, request);
  } catch (error) {
    const detail = error instanceof Error ? error.message.slice(0, 200) : 'cannot encode';
    const field = error instanceof WireCodecError ? error.path : '';
    throw new InvalidParamsError(`Invalid ${method.rpc} request: ${detail}`, {
      cause: error,
      ...(field ? { fieldViolations: [{ field, description: detail.slice(field.length).trim() }] } : {}),
    });
  }
}

/** A response message → wire JSON; anything unreadable is the agent's fault (INVALID_RESPONSE). */
export function decodeResponse<T>(desc: GrpcMethod['output'], bytes: Buffer): T {
  try {
    return responseToJson(desc, bytes) as T;
  } catch (error) {
    throw new A2AClientError('INVALID_RESPONSE', `The agent sent a response that is not a valid ${desc.typeName}`, { cause: error });
  }
}

/** The error of a call aborted by its signal (the client's Deadline turns it into TIMEOUT when its own timer fired). */
function aborted(signal: AbortSignal, cause: unknown = signal.reason): A2AClientError {
  return new A2AClientError('ABORTED', 'The call was aborted', { cause });
}

/** How a failed call's status becomes the error thrown (default fromGrpcError). */
export type GrpcErrorReader = (error: ServiceError) => Error;

type FailedCall = { signal: AbortSignal; deadline?: number | undefined; request?: Buffer; errors?: GrpcErrorReader | undefined };

function failure(error: ServiceError, call: FailedCall, endpoint: GrpcEndpoint): Error {
  if (call.signal.aborted) return aborted(call.signal, call.signal.reason ?? error);
  // The deadline sent as grpc-timeout ran out, on grpc-js's timer (which can fire before the
  // Deadline's own) or the server's: the same TIMEOUT as when the Deadline fires first.
  if (error.code === grpcStatus.DEADLINE_EXCEEDED && call.deadline !== undefined) return timedOut(error);
  // Whatever reads the status, its A2AErrors carry their HTTP equivalent for responseInfo.
  // A call that never reached the server says where it went, how, and the likely cause.
  return responseTooLarge(error, call.request) ?? unreachable(error, endpoint) ?? withGrpcResponse((call.errors ?? fromGrpcError)(error));
}

/**
 * grpc-js refusing a response (or stream event) over this client's `maxMessageBytes`. It words it
 * as a server refusing an oversized request does ("Received message larger than max (N vs M)"),
 * but that N is the size of our request; this one is the answer's, and the call may well have
 * taken effect on the server: not PayloadTooLargeError ("your request was refused"), which would
 * invite a retry that runs the task again.
 */
function responseTooLarge(error: ServiceError, request: Buffer | undefined): A2AClientError | undefined {
  if (error.code !== grpcStatus.RESOURCE_EXHAUSTED || request === undefined || error.metadata?.get('grpc-status-details-bin').length) return undefined;
  const sizes = /larger than max \((\d+) vs (\d+)\)/.exec(error.details ?? '');
  if (!sizes || Number(sizes[1]) === request.length) return undefined;
  return new A2AClientError(
    'INVALID_RESPONSE',
    `The agent's answer (${sizes[1]} bytes) is larger than this client's maxMessageBytes (${sizes[2]}); the call itself may have succeeded. Raise maxMessageBytes, or read the task with historyLength / includeArtifacts to trim it`,
    { cause: error },
  );
}

/** One call as bytes: the rpc path, the encoded request, the headers sent as metadata. */
export interface GrpcBytesCall {
  path: string;
  request: Buffer;
  headers: Headers;
  signal: AbortSignal;
  /** TransportCall.deadline: sent as grpc-timeout on a unary call; a stream's bounds only its opening, so it is not sent. */
  deadline?: number | undefined;
  errors?: GrpcErrorReader;
  /** Where the extensions the response metadata echoes as activated are recorded (EXT-05): the TransportCall. */
  echo?: Pick<TransportCall, 'activatedExtensions'>;
}

/** EXT-05: the activated extensions the response's (initial) metadata lists, recorded on the call. */
function recordExtensions(call: GrpcBytesCall, metadata: Metadata | undefined): void {
  if (call.echo) call.echo.activatedExtensions = echoedExtensions((name) => metadata?.get(name).join(', '));
}

/** A unary call: the response message's bytes, or the call's error (aborts cancel the call). */
export function unaryBytes({ client, endpoint }: GrpcChannel, call: GrpcBytesCall): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (call.signal.aborted) return reject(aborted(call.signal));
    const onAbort = (): void => pending.cancel();
    const options = call.deadline === undefined ? {} : { deadline: call.deadline };
    const pending = client.makeUnaryRequest<Buffer, Buffer>(call.path, identity, identity, call.request, metadataOf(call.headers), options, (error, value) => {
      call.signal.removeEventListener('abort', onAbort);
      if (error) reject(failure(error, call, endpoint));
      else resolve(value ?? Buffer.alloc(0));
    });
    pending.on('metadata', (metadata: Metadata) => recordExtensions(call, metadata));
    call.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** An open server stream: the id of its first event (a2a-kit servers) and the messages as bytes. */
export interface GrpcBytesStream {
  firstId: number | undefined;
  messages: AsyncIterable<Buffer>;
}

/**
 * Opens a server-streaming call. STREAM-12: the stream is open once the server sends its
 * headers (with the first event, whose id they carry); an error before that rejects here. A
 * call that ends OK with no message (a trailers-only response) is an empty stream, as an SSE
 * stream that ends without events is on the HTTP transports.
 */
export async function streamBytes({ client, endpoint }: GrpcChannel, opened: GrpcBytesCall): Promise<GrpcBytesStream> {
  // A stream's deadline bounds its opening only (the signal does that): not sent as grpc-timeout.
  const call: GrpcBytesCall = { ...opened, deadline: undefined };
  if (call.signal.aborted) throw aborted(call.signal);
  const stream = client.makeServerStreamRequest<Buffer, Buffer>(call.path, identity, identity, call.request, metadataOf(call.headers), {});
  const state: { error?: ServiceError } = {};
  // Always listen: an 'error' nobody listens to would crash the process.
  stream.on('error', (error: ServiceError) => (state.error = error));
  let failOpen: ((error: Error) => void) | undefined;
  const onAbort = (): void => {
    stream.cancel();
    // Cancelling a call that already finished does nothing: an abort settles the open itself.
    failOpen?.(aborted(call.signal));
  };
  call.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const headers = await new Promise<Metadata | undefined>((resolve, reject) => {
      failOpen = reject;
      stream.once('metadata', resolve);
      stream.once('error', (error: ServiceError) => reject(failure(error, call, endpoint)));
      // A trailers-only OK emits neither 'metadata' nor 'error', and 'end' waits for a reader.
      stream.once('status', () => resolve(undefined));
      stream.once('end', () => resolve(undefined));
    });
    failOpen = undefined;
    recordExtensions(call, headers);
    const first = Number(headers?.get(FIRST_EVENT_ID_KEY)[0] ?? Number.NaN);
    return { firstId: Number.isInteger(first) ? first : undefined, messages: readMessages(stream, { call, endpoint, state, onAbort }) };
  } catch (error) {
    call.signal.removeEventListener('abort', onAbort);
    stream.cancel();
    throw error;
  }
}

async function* readMessages(
  stream: ClientReadableStream<Buffer>,
  ctx: { call: GrpcBytesCall; endpoint: GrpcEndpoint; state: { error?: ServiceError }; onAbort: () => void },
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    const e = ctx.state.error ?? (error as ServiceError);
    throw typeof e === 'object' && e !== null && 'code' in e ? failure(e, ctx.call, ctx.endpoint) : error;
  } finally {
    ctx.call.signal.removeEventListener('abort', ctx.onAbort);
    // The consumer stopped early: tell the server, which frees the subscription (R8).
    stream.cancel();
  }
}

class GrpcTransport implements Transport {
  constructor(private readonly channel: GrpcChannel) {}

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    checkNoQuery(call);
    const method = methodOf(call.op);
    const request = encodeRequest(method, call.request);
    const bytes = await unaryBytes(this.channel, { path: method.path, request, headers: call.headers, signal: call.signal, deadline: call.deadline, echo: call });
    return decodeResponse<OperationResponses[K]>(method.output, bytes);
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    checkNoQuery(call);
    const method = methodOf(call.op);
    const request = encodeRequest(method, call.request);
    const { firstId, messages } = await streamBytes(this.channel, { path: method.path, request, headers: call.headers, signal: call.signal, echo: call });
    return (async function* () {
      let index = 0;
      for await (const bytes of messages) {
        // JSON-08: each event checked as the HTTP transports check theirs.
        const event = checkEvent(decodeResponse<unknown>(method.output, bytes));
        yield firstId === undefined ? { event } : { event, id: String(firstId + index) };
        index++;
      }
    })();
  }
}

export interface GrpcTransportFactory extends TransportFactory {
  readonly binding: 'GRPC';
  /** Closes every channel this factory opened. */
  close(): void;
}

/**
 * The gRPC TransportFactory for the client: `createClient({ transports: [grpcTransport()] })`.
 * One channel (HTTP/2 connection) per address, shared by every call.
 */
export function grpcTransport(options: GrpcTransportOptions = {}): GrpcTransportFactory {
  const channels = channelPool(options);
  return {
    binding: 'GRPC',
    create: (agentInterface, context) => new GrpcTransport(channels.get(agentInterface.url, context.cardUrl)),
    close: () => channels.close(),
  };
}

export interface GrpcCallOptions {
  /** Extra metadata for this call (e.g. authorization). */
  metadata?: Record<string, string>;
  /** A2A-Extensions to activate. */
  extensions?: readonly string[];
  signal?: AbortSignal;
  /** Bounds the call (for a stream: until it opens). */
  timeoutMs?: number;
  /** Called with the extensions the agent activated (EXT-05), once the call succeeded (a stream: once open). */
  onActivatedExtensions?: (uris: string[]) => void;
}

export interface GrpcStreamOptions extends GrpcCallOptions {
  /** Resume a SubscribeToTask after this event id (as SSE Last-Event-ID, R7). */
  lastEventId?: number;
}

type UnaryMethods = {
  [K in UnaryOperationName]: (request: OperationRequests[K], options?: GrpcCallOptions) => Promise<OperationResponses[K]>;
};
type StreamMethods = {
  [K in StreamingOperationName]: (request: OperationRequests[K], options?: GrpcStreamOptions) => AsyncIterable<StreamResponse>;
};

/** The eleven operations as methods over one gRPC channel, for callers without an Agent Card. */
export type GrpcClient = UnaryMethods & StreamMethods & { close(): void };

export interface GrpcClientOptions extends GrpcTransportOptions {
  /** Protocol version sent as a2a-version (VER-02; default 1.0). */
  protocolVersion?: string;
  /** Metadata sent with every call. */
  metadata?: Record<string, string>;
}

/** A client for the agent at `address` (`host:port`, the card's GRPC interface url). */
export function createGrpcClient(address: string, options: GrpcClientOptions = {}): GrpcClient {
  const factory = grpcTransport(options);
  const version = options.protocolVersion ?? PROTOCOL_VERSION;
  const transport = factory.create({ url: address, protocolBinding: 'GRPC', protocolVersion: version }, { fetch });
  const callOf = <K extends OperationName>(op: K, request: OperationRequests[K], opts: GrpcStreamOptions & Pick<TransportCall, 'signal' | 'deadline'>): TransportCall<K> => {
    const headers = new Headers({ 'a2a-version': version, ...options.metadata, ...opts.metadata });
    if (opts.extensions?.length) headers.set('a2a-extensions', opts.extensions.join(', '));
    if (opts.lastEventId !== undefined) headers.set('last-event-id', String(opts.lastEventId));
    return { op, request, headers, query: new URLSearchParams(), signal: opts.signal, deadline: opts.deadline };
  };
  const unary =
    <K extends UnaryOperationName>(op: K) =>
    async (request: OperationRequests[K], opts: GrpcCallOptions = {}): Promise<OperationResponses[K]> => {
      const deadline = new Deadline(opts.signal, opts.timeoutMs);
      try {
        const call = callOf(op, request, { ...opts, signal: deadline.signal, deadline: deadline.at });
        const value = checkResponse(op, await transport.unary(call));
        opts.onActivatedExtensions?.(call.activatedExtensions ?? []);
        return value;
      } catch (error) {
        throw deadline.wrap(error);
      } finally {
        deadline.dispose();
      }
    };
  const streaming =
    <K extends StreamingOperationName>(op: K) =>
    (request: OperationRequests[K], opts: GrpcStreamOptions = {}): AsyncIterable<StreamResponse> => ({
      async *[Symbol.asyncIterator]() {
        const deadline = new Deadline(opts.signal, opts.timeoutMs);
        try {
          const call = callOf(op, request, { ...opts, signal: deadline.signal });
          const items = await transport.stream(call);
          deadline.stopTimer();
          opts.onActivatedExtensions?.(call.activatedExtensions ?? []);
          const sameTask = oneTaskCheck(call);
          for await (const item of items) {
            sameTask(item.event);
            yield item.event;
          }
        } catch (error) {
          throw deadline.wrap(error);
        } finally {
          deadline.dispose();
        }
      },
    });
  return {
    sendMessage: unary('sendMessage'),
    sendStreamingMessage: streaming('sendStreamingMessage'),
    getTask: unary('getTask'),
    listTasks: unary('listTasks'),
    cancelTask: unary('cancelTask'),
    subscribeToTask: streaming('subscribeToTask'),
    createTaskPushNotificationConfig: unary('createTaskPushNotificationConfig'),
    getTaskPushNotificationConfig: unary('getTaskPushNotificationConfig'),
    listTaskPushNotificationConfigs: unary('listTaskPushNotificationConfigs'),
    deleteTaskPushNotificationConfig: unary('deleteTaskPushNotificationConfig'),
    getExtendedAgentCard: unary('getExtendedAgentCard'),
    close: () => factory.close(),
  };
}
