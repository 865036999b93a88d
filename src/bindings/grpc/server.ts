/**
 * gRPC binding (§10): `lf.a2a.v1.A2AService` on @grpc/grpc-js, a thin codec over the same
 * request handler as JSON-RPC and REST. Each call: service parameters from metadata (GRPC-02,
 * negotiated exactly as over HTTP, R20) → protobuf binary → ProtoJSON → `handler.unary/stream`
 * (which validates, once, for every binding) → ProtoJSON → binary (codec.ts). Errors are
 * google.rpc.Status with ErrorInfo in `grpc-status-details-bin` (GRPC-03). Node only.
 * The 0.3 service (v03Service.ts) runs over `createServiceOver` too; `serveGrpc` (listener.ts)
 * listens on a port with both.
 */
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type ServiceDefinition, type MethodDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { AuthConfig, Authenticator } from '../../auth/authConfig.js';
import { createAuthenticator } from '../../auth/authenticator.js';
import { handlerAuthenticator, requireExtendedCardAuth } from '../../server/createA2AHandler.js';
import type { DescMessage } from '@bufbuild/protobuf';
import { StreamResponseSchema } from '../../gen/a2a_pb.js';
import { InternalError, toA2AError } from '../../protocol/errors.js';
import { PROTOCOL_VERSION, activatedExtensions, extensionsHeaderFor } from '../../protocol/serviceParams.js';
import { wellFormedJson } from '../../protocol/wellFormed.js';
import type { StreamingOperationName, StreamResponse, UnaryOperationName } from '../../protocol/types.js';
import { observed } from '../../server/callObserver.js';
import type { A2ARequestHandler, CallContext } from '../../server/requestHandler.js';
import { GRPC_METHODS, jsonToBinary, requestToJson, type GrpcMethod } from './codec.js';
import { GrpcCallContext, authenticate, type ContextEnv } from './callContext.js';
import { TrustedProxies } from '../../net/trustedProxies.js';
import type { Dialect } from '../../compat/detect.js';
import { ServedVersions } from '../servedVersions.js';
import { StreamCall, type GrpcRpcStream } from './streamCall.js';
import { deadlinePassed } from './deadline.js';
import { toGrpcError, type GrpcErrorStatus, type GrpcStatusOverrides } from './errors.js';
import { isServerFault, logError, type ErrorContext, type ErrorHook } from '../../server/errorHook.js';

export interface GrpcServiceOptions {
  /** Protocol versions served (default ["1.0"]). */
  supportedVersions?: readonly string[];
  /**
   * The same port also serves A2A 0.3 (createGrpc03Service): versions are negotiated as
   * createA2AHandler's `compat03` negotiates them over HTTP, so a refusal lists 0.3 too and a
   * 0.3 (or absent) version on the 1.0 service is told to send 1.0. Default false here;
   * serveGrpc sets it (its `compat03`, default true); the 0.3 service always has it.
   */
  compat03?: boolean;
  /**
   * Called with internal failures (an event that cannot be encoded, say) and the rpc's operation
   * (never request secrets). Default: logError (console.error, with the stack).
   */
  onError?: ErrorHook;
  /**
   * Enforce the card's security requirements (SEC-02) on every call: verifier settings (an
   * authenticator is built from the handler's card on first use), or a function returning the
   * authenticator to share (serveAgent shares the HTTP handler's). Credentials come from the
   * metadata (`authorization`, API key headers, `cookie`) and the TLS client certificate.
   * `'external'`: a gateway in front authenticates. Without `auth`, a card that declares security
   * requirements or an extended card (served only to authenticated callers, XCARD-03) is refused,
   * as createA2AHandler refuses it: at construction, or on the first call when the handler is
   * installed later (the call then fails INTERNAL, reported to onError).
   */
  auth?: AuthConfig | 'external' | (() => Authenticator | undefined);
  /**
   * For a host that installs the handler after listening: calls wait for this promise before
   * anything else (authentication included), and fail if it rejects.
   */
  ready?: Promise<unknown>;
  /**
   * Addresses and CIDR ranges of the proxies in front, as ServeOptions.trustProxy over HTTP: a
   * call from one of them has as `remoteAddress` the rightmost `x-forwarded-for` hop that is
   * not a trusted proxy (../../net/trustedProxies.ts). Default none: the peer's address.
   */
  trustProxy?: readonly string[];
}

export interface GrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  /** Server-streaming calls in progress (SendStreamingMessage, SubscribeToTask). */
  readonly openStreams: number;
  /** Ends every open stream with UNAVAILABLE so clients resubscribe elsewhere (R24). */
  endStreams(reason?: string): void;
}

type Bytes = Buffer;

const identity = (value: Bytes): Bytes => value;

/**
 * The request handler, or a function returning it: a host that must bind the port before it can
 * write the card (which lists `host:port`, GRPC-06) installs the handler after listening.
 */
export type HandlerSource = A2ARequestHandler | (() => A2ARequestHandler);

export function resolver(source: HandlerSource): () => A2ARequestHandler {
  return typeof source === 'function' ? source : () => source;
}

/** The service definition (paths, identity serializers) and its implementation over the handler. */
export function createGrpcService(source: HandlerSource, options: GrpcServiceOptions = {}): GrpcService {
  return createServiceOver(source, { rpcs: V10_RPCS, dialect: '1.0' }, options);
}

/** One rpc served over the request handler: its wire identity and how a call runs. */
export interface GrpcRpc {
  /** The grpc-js implementation key (camelCase rpc name). */
  key: string;
  rpc: string;
  path: string;
  streaming: boolean;
  /** The 1.0 operation the call performs, for authentication (SEC-02). */
  operation: string;
  /** Unary rpcs: the request message → the response message. */
  unary?: (call: GrpcRpcCall) => Promise<Bytes>;
  /** Streaming rpcs: the request message → the handler's stream and how each event is written. */
  stream?: (call: GrpcRpcCall) => Promise<GrpcRpcStream>;
}

export interface GrpcRpcCall {
  handler: A2ARequestHandler;
  /** The request message as received. */
  request: Bytes;
  ctx: CallContext;
}

export type { GrpcRpcStream };

/** What a service over the handler serves: its rpcs, their shape (the version they speak), and optional status codes per error reason. */
export interface GrpcServiceSpec {
  rpcs: readonly GrpcRpc[];
  dialect: Dialect;
  statusCodes?: GrpcStatusOverrides;
}

const v10Rpc = (method: GrpcMethod): GrpcRpc => ({
  key: method.op,
  rpc: method.rpc,
  path: method.path,
  streaming: method.streaming,
  operation: method.op,
  // Encoded inside the call's observation: an answer that cannot be written is the call's error (onCall).
  unary: ({ handler, request, ctx }) =>
    observed(handler, { operation: method.op, ctx }, async () => encodeResponse(method.output, await handler.unary(method.op as UnaryOperationName, requestToJson(method.input, request), ctx))),
  stream: async ({ handler, request, ctx }) => ({
    items: await handler.stream(method.op as StreamingOperationName, requestToJson(method.input, request), ctx),
    encode: encodeStreamEvent,
  }),
});

const encodeStreamEvent = (event: StreamResponse): Bytes => encodeResponse(StreamResponseSchema, event);

const V10_RPCS: readonly GrpcRpc[] = GRPC_METHODS.map(v10Rpc);

/** A service whose rpcs run over the handler: service parameters, authentication, errors and streams as in createGrpcService. */
export function createServiceOver(source: HandlerSource, spec: GrpcServiceSpec, options: GrpcServiceOptions = {}): GrpcService {
  const handler = resolver(source);
  const onError = options.onError ?? logError;
  const report = (error: unknown, context?: ErrorContext, ctx?: CallContext): GrpcErrorStatus => {
    // A call authenticated and then refused before a handler call claimed it ends here (CallObserver.fail).
    if (ctx?.observation) handler().calls?.fail(ctx, error);
    if (isServerFault(error)) onError(error, context);
    return toGrpcError(toA2AError(error), spec.statusCodes);
  };
  const env: CallEnv = {
    handler,
    // A 0.3 service is there only beside 0.3 compat.
    versions: new ServedVersions(options.supportedVersions ?? [PROTOCOL_VERSION], spec.dialect === '0.3' || options.compat03 === true),
    dialect: spec.dialect,
    proxies: options.trustProxy?.length ? new TrustedProxies(options.trustProxy) : undefined,
    report,
    streams: new Set(),
    authenticator: authenticatorSource(source, options.auth),
    ready: options.ready,
  };
  options.ready?.then(
    () => (env.ready = undefined),
    () => undefined,
  );
  const definition: Record<string, MethodDefinition<Bytes, Bytes>> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const rpc of spec.rpcs) {
    // Bytes in, bytes out: decoding happens inside the handler so that a malformed request is
    // an INVALID_ARGUMENT with ErrorInfo rather than grpc-js's bare INTERNAL.
    definition[rpc.key] = {
      path: rpc.path,
      requestStream: false,
      responseStream: rpc.streaming,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
      originalName: rpc.rpc,
    };
    implementation[rpc.key] = rpc.streaming ? streamingCall(env, rpc) : unaryCall(env, rpc);
  }
  return {
    definition,
    implementation,
    get openStreams() {
      return env.streams.size;
    },
    endStreams(reason = 'The server is shutting down; resubscribe') {
      for (const open of [...env.streams]) open.endWith(reason);
    },
  };
}

/** The authenticator, built once from the handler's card (known only after the handler is installed). */
function authenticatorSource(source: HandlerSource, auth: GrpcServiceOptions['auth']): () => Authenticator | undefined {
  const handler = resolver(source);
  if (auth === 'external') return () => undefined;
  if (auth === undefined) {
    // Nothing said about authentication: the card must not need any (createA2AHandler's rule).
    if (typeof source !== 'function') return noAuthNeeded(source);
    let checked = false;
    return () => {
      // Until the check passes, every call fails (a misconfigured service must not serve).
      if (!checked) noAuthNeeded(handler());
      checked = true;
      return undefined;
    };
  }
  if (typeof auth === 'function') return auth;
  let built: Authenticator | undefined;
  return () => (built ??= createAuthenticator(handler().agentCard, auth));
}

/** Throws (as createA2AHandler does) when `handler`'s card declares requirements or it serves an extended card; else no authenticator. */
function noAuthNeeded(handler: A2ARequestHandler): () => undefined {
  handlerAuthenticator(handler.agentCard, undefined);
  requireExtendedCardAuth({ servesExtendedCard: handler.servesExtendedCard, card: handler.agentCard }, undefined);
  return () => undefined;
}

interface CallEnv extends ContextEnv {
  handler: () => A2ARequestHandler;
  authenticator: () => Authenticator | undefined;
  /** Reports an internal failure once (and ends the observation of `ctx`'s call) and gives the status the call ends with. */
  report: (error: unknown, context?: ErrorContext, ctx?: CallContext) => GrpcErrorStatus;
  streams: Set<StreamCall>;
  /** Until the handler is installed: what every call waits for first. */
  ready: Promise<unknown> | undefined;
}

/** Response metadata without extensions, per version: shared, never mutated (grpc-js only reads it). */
const plainMetadata = new Map<string, Metadata>();

/** EXT-05 / B4: the negotiated version and the activated extensions, as initial metadata. */
function responseMetadata(env: CallEnv, ctx: CallContext): Metadata {
  const plain = ctx.requestedExtensions.length === 0 ? plainMetadata.get(ctx.protocolVersion) : undefined;
  if (plain) return plain;
  const active = ctx.requestedExtensions.length === 0 ? [] : activatedExtensions(env.handler().agentCard, ctx.requestedExtensions);
  let metadata = active.length === 0 ? plainMetadata.get(ctx.protocolVersion) : undefined;
  if (metadata) return metadata;
  metadata = new Metadata();
  metadata.set('a2a-version', ctx.protocolVersion);
  if (active.length > 0) metadata.set(extensionsHeaderFor(ctx.protocolVersion).toLowerCase(), active.join(', '));
  else plainMetadata.set(ctx.protocolVersion, metadata);
  return metadata;
}

/** SEC-02: the call's credentials checked (when the service authenticates), the caller put into `ctx`. */
async function authenticateRpc(env: CallEnv, rpc: GrpcRpc, target: { call: ServerUnaryCall<Bytes, Bytes> | ServerWritableStream<Bytes, Bytes>; ctx: GrpcCallContext }): Promise<void> {
  const authenticator = env.authenticator();
  if (!authenticator) {
    env.handler().calls?.open(rpc.operation, target.ctx);
    return;
  }
  const { call, ctx } = target;
  await authenticate(authenticator, { metadata: call.metadata, getAuthContext: () => call.getAuthContext?.(), ctx, operation: rpc.operation, handler: env.handler() });
}

function unaryCall(env: CallEnv, rpc: GrpcRpc) {
  const unary = rpc.unary as NonNullable<GrpcRpc['unary']>;
  return (call: ServerUnaryCall<Bytes, Bytes>, callback: sendUnaryData<Bytes>): void => {
    // grpc-js already answered DEADLINE_EXCEEDED (deadline.ts): nothing to do for nobody.
    if (call.cancelled || deadlinePassed(call)) return;
    void (async () => {
      let ctx: GrpcCallContext | undefined;
      try {
        if (env.ready) await env.ready;
        ctx = new GrpcCallContext(env, call);
        await authenticateRpc(env, rpc, { call, ctx });
        const bytes = await unary({ handler: env.handler(), request: call.request, ctx });
        call.sendMetadata(responseMetadata(env, ctx));
        ctx.answered();
        callback(null, bytes);
      } catch (error) {
        callback(env.report(error, { operation: rpc.operation }, ctx));
      }
    })();
  };
}

/**
 * A result (or stream event) → the response message; JSON that does not fit the message is an
 * internal error. Lone surrogates, which protobuf strings cannot carry, are sent as U+FFFD
 * instead (docs/grpc.md): requests cannot store them any more, but data stored earlier, or by a
 * custom store, would otherwise make every read of the task fail. Checked only on failure.
 */
export function encodeResponse(desc: DescMessage, result: unknown): Bytes {
  try {
    return jsonToBinary(desc, result);
  } catch (error) {
    const repaired = wellFormedJson(result);
    if (repaired !== result) {
      try {
        return jsonToBinary(desc, repaired);
      } catch {
        // Not (only) lone surrogates: the first failure is the one to report.
      }
    }
    throw new InternalError('Internal error', { cause: error });
  }
}

function streamingCall(env: CallEnv, rpc: GrpcRpc) {
  const open = rpc.stream as NonNullable<GrpcRpc['stream']>;
  return (call: ServerWritableStream<Bytes, Bytes>): void => {
    // A call whose deadline passed before it got here will never report 'cancelled' (deadline.ts).
    if (call.cancelled || deadlinePassed(call)) return;
    const streamCall = new StreamCall(call, env, rpc.operation);
    void (async () => {
      try {
        if (env.ready) await env.ready;
        // Inside the try: a version that cannot be negotiated is an error status like any other.
        const ctx = (streamCall.ctx = new GrpcCallContext(env, call));
        await authenticateRpc(env, rpc, { call, ctx });
        streamCall.start(await open({ handler: env.handler(), request: call.request, ctx }), responseMetadata(env, ctx));
      } catch (error) {
        // STREAM-12: errors found before the first event are ordinary error statuses.
        streamCall.fail(error);
      }
    })();
  };
}
