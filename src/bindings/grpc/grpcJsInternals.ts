/**
 * What the gRPC listener needs of grpc-js that grpc-js does not publish: its HTTP/2 servers (to
 * cap their connections, as node:net's `maxConnections`) and a call's HTTP/2 stream (to reset one
 * whose request stalled). Each is looked up by shape and checked, never assumed: a grpc-js whose
 * internals moved yields nothing here (the listener then reports its uncapped connections to its
 * error hook; a stalled call is still answered, only not reset), and
 * test/grpc/listenerLimits.test.ts fails. Node only.
 */
import type { Server, ServerInterceptingCallInterface } from '@grpc/grpc-js';
import { Server as NetServer } from 'node:net';
import type { ServerHttp2Stream } from 'node:http2';

/** The listening HTTP/2 servers of a bound grpc-js Server (grpc-js keeps them in `http2Servers`), undefined when not found. */
export function http2ServersOf(server: Server): NetServer[] | undefined {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return undefined;
  const found = [...servers.keys()].filter((s): s is NetServer => s instanceof NetServer);
  return found.length === servers.size ? found : undefined;
}

/** The HTTP/2 stream under grpc-js's own call object (its `stream`), undefined when not found. */
export function http2StreamOf(call: ServerInterceptingCallInterface): ServerHttp2Stream | undefined {
  const stream = (call as unknown as { stream?: unknown }).stream;
  return typeof stream === 'object' && stream !== null && typeof (stream as ServerHttp2Stream).close === 'function' && 'rstCode' in stream ? (stream as ServerHttp2Stream) : undefined;
}
