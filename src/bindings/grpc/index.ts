/**
 * `a2a-kit/grpc` (Node only): the gRPC binding — server (`serveGrpc`, `createGrpcService`),
 * client (`grpcTransport` for the client, `createGrpcClient`), and the error codec. A2A 0.3
 * over gRPC (`a2a.v1.A2AService`): served by `serveGrpc` beside 1.0 (`createGrpc03Service`
 * for a grpc.Server of your own), called with `grpc03Transport` (1.0 and 0.3 interfaces).
 * Needs the optional dependency @grpc/grpc-js.
 */
export { createGrpcService } from './server.js';
export type { GrpcService, GrpcServiceOptions, HandlerSource } from './server.js';
export { serveGrpc } from './listener.js';
export type { ServeGrpcOptions, GrpcListenerOptions, RunningGrpcServer } from './listener.js';
export { DEFAULT_KEEPALIVE, createGrpcClient, grpcTransport } from './client.js';
export { LIBRARY_HINTS } from './unreachable.js';
export type { UnreachableHints } from './unreachable.js';
export type { GrpcClient, GrpcClientOptions, GrpcCallOptions, GrpcStreamOptions, GrpcTransportFactory, GrpcTransportOptions } from './client.js';
export { STATUS_DETAILS_KEY, decodeStatus, encodeStatus, fromGrpcError, toGrpcError } from './errors.js';
export type { DecodedStatus, GrpcErrorStatus } from './errors.js';
export { DEFAULT_MAX_MESSAGE_BYTES, FIRST_EVENT_ID_KEY, GRPC_METHODS, GRPC_SERVICE_NAME, LAST_EVENT_ID_KEY } from './codec.js';
export type { GrpcMethod } from './codec.js';
export { createGrpc03Service, GRPC03_CARD_FORMS, V03_GRPC_CARD_BINDINGS } from './v03Service.js';
export type { Grpc03ServiceOptions } from './v03Service.js';
export { grpc03Transport } from './v03Client.js';
export type { Grpc03TransportFactory } from './v03Client.js';
export { GRPC03_METHODS, GRPC03_SERVICE_NAME } from './v03Codec.js';
export type { Grpc03Method } from './v03Codec.js';
