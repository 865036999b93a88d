/**
 * What the gRPC listener needs of grpc-js that grpc-js does not publish: its HTTP/2 servers (to
 * cap their connections, as node:net's `maxConnections`, and to time requests, receiveTimeout.ts).
 * Looked up by shape and checked, never assumed: a grpc-js whose internals moved yields nothing
 * here (the listener then reports to its error hook that connections are not capped and requests
 * not timed), and test/grpc/listenerLimits.test.ts fails. Node only.
 */
import type { Server } from '@grpc/grpc-js';
import { Server as NetServer } from 'node:net';

/** The listening HTTP/2 servers of a bound grpc-js Server (grpc-js keeps them in `http2Servers`), undefined when not found. */
export function http2ServersOf(server: Server): NetServer[] | undefined {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return undefined;
  const found = [...servers.keys()].filter((s): s is NetServer => s instanceof NetServer);
  return found.length === servers.size ? found : undefined;
}
