/**
 * `a2a-kit/grpc` (Node only): the gRPC binding — server (`serveGrpc`, `createGrpcService`),
 * client (`grpcTransport` for the client, `createGrpcClient`), and the error codec.
 * Needs the optional dependency @grpc/grpc-js.
 */
export { createGrpcService, serveGrpc } from './server.js';
export type { GrpcService, GrpcServiceOptions, HandlerSource, ServeGrpcOptions, RunningGrpcServer } from './server.js';
export { createGrpcClient, grpcTransport } from './client.js';
export type { GrpcClient, GrpcClientOptions, GrpcCallOptions, GrpcStreamOptions, GrpcTransportFactory, GrpcTransportOptions } from './client.js';
export { STATUS_DETAILS_KEY, decodeStatus, encodeStatus, fromGrpcError, toGrpcError } from './errors.js';
export type { DecodedStatus, GrpcErrorStatus } from './errors.js';
export { DEFAULT_MAX_MESSAGE_BYTES, FIRST_EVENT_ID_KEY, GRPC_METHODS, GRPC_SERVICE_NAME, LAST_EVENT_ID_KEY } from './codec.js';
export type { GrpcMethod } from './codec.js';
