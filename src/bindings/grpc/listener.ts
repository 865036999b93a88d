/**
 * The gRPC listener: `serveGrpc` binds a grpc-js Server on its own port (plaintext h2c, TLS, or
 * TLS asking for client certificates) and serves the 1.0 service `lf.a2a.v1.A2AService`
 * (server.ts) and, unless `compat03: false`, the A2A 0.3 service `a2a.v1.A2AService`
 * (v03Service.ts), both over the same request handler, and with `health` the gRPC health service
 * (healthService.ts). close() is the R24 shutdown. Node only.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { DEFAULT_MAX_MESSAGE_BYTES, GRPC_SERVICE_NAME } from './codec.js';
import { GRPC03_SERVICE_NAME } from './v03Codec.js';
import { createHealthService } from './healthService.js';
import type { HealthWatchLimits } from './healthWatchSlots.js';
import type { ServerHealth } from '../../server/serverHealth.js';
import { createGrpcService, resolver, type HandlerSource } from './server.js';
import { createGrpc03Service, type Grpc03ServiceOptions } from './v03Service.js';

export interface ServeGrpcOptions extends Grpc03ServiceOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Largest request message accepted (default 4 MiB; larger → RESOURCE_EXHAUSTED, R15). */
  maxMessageBytes?: number;
  /** Most concurrent calls per HTTP/2 connection (default unlimited). */
  maxConcurrentStreams?: number;
  /**
   * Ping every connection this often (default 30 s; 0 turns it off); one that does not answer
   * within the same time (at most 20 s) is closed. Clients answer pings themselves, so long
   * streams (SubscribeToTask) are not cut; connections whose client is gone are: Node stops
   * reading a connection nghttp2 ended with GOAWAY (a client resetting streams faster than its
   * rapid-reset limit), so it never sees the client close and would keep the socket forever.
   * `serverOptions` `grpc.keepalive_time_ms` / `grpc.keepalive_timeout_ms` override it.
   */
  keepaliveMs?: number;
  /**
   * PEM certificate chain and private key: serve TLS instead of plaintext h2c. With `ca`
   * (trusted client CAs, PEM) client certificates are requested (mutual TLS); calls without a
   * trusted one still arrive, and the card's requirements decide (UNAUTHENTICATED).
   */
  tls?: { cert: string | Uint8Array; key: string | Uint8Array; ca?: string | Uint8Array | Array<string | Uint8Array> };
  /** How long close() waits for running calls before cutting them (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * close() also drains the request handler: waits for running agents up to the timeout, then
   * aborts them (default true). Turn off when the handler outlives this listener.
   */
  drainOnClose?: boolean;
  /** Further grpc-js server options. */
  serverOptions?: Record<string, unknown>;
  /**
   * Also serve A2A 0.3 clients: the 0.3 service `a2a.v1.A2AService` on the same port, over the
   * same handler (v03Service.ts). Default true, as `compat03` of createA2AHandler.
   */
  compat03?: boolean;
  /**
   * Also serve the gRPC health checking protocol `grpc.health.v1.Health` (healthService.ts) from
   * this readiness decision; close() starts its drain, so watchers hear NOT_SERVING first.
   */
  health?: ServerHealth;
  /** Caps on open health Watch streams (default 100 per connection, 1,000 in all; RESOURCE_EXHAUSTED past them). */
  healthWatches?: HealthWatchLimits;
}

const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;

export interface RunningGrpcServer {
  /** `host:port`, the form a card's GRPC AgentInterface.url takes (GRPC-06). */
  readonly address: string;
  readonly port: number;
  readonly server: Server;
  /** Streams in progress. */
  readonly openStreams: number;
  close(): Promise<void>;
}

/** Listens for gRPC on its own port (plaintext h2c unless `tls` is given). */
export async function serveGrpc(source: HandlerSource, options: ServeGrpcOptions = {}): Promise<RunningGrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    ...(options.maxConcurrentStreams ? { 'grpc.max_concurrent_streams': options.maxConcurrentStreams } : {}),
    ...keepalive(options.keepaliveMs ?? KEEPALIVE_MS),
    ...options.serverOptions,
  });
  const compat03 = options.compat03 !== false;
  const services = [createGrpcService(source, { ...options, compat03 }), ...(compat03 ? [createGrpc03Service(source, options)] : [])];
  if (options.health) {
    const names = [GRPC_SERVICE_NAME, ...(compat03 ? [GRPC03_SERVICE_NAME] : [])];
    // Probes are not charged to the peer address's request rate, as over HTTP (healthService.ts).
    services.push(createHealthService(options.health, { services: names, watches: options.healthWatches }));
  }
  for (const service of services) server.addService(service.definition, service.implementation);
  const host = options.host ?? '127.0.0.1';
  const tls = options.tls;
  const credentials = tls
    ? tls.ca !== undefined
      ? new ClientCertificateCredentials({ cert: toBuffer(tls.cert), key: toBuffer(tls.key), ca: (Array.isArray(tls.ca) ? tls.ca : [tls.ca]).map(toBuffer) })
      : ServerCredentials.createSsl(null, [{ cert_chain: toBuffer(tls.cert), private_key: toBuffer(tls.key) }], false)
    : ServerCredentials.createInsecure();
  const bindHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:${options.port ?? 0}`, credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  let closed: Promise<void> | undefined;
  return {
    address: `${bindHost}:${port}`,
    port,
    server,
    get openStreams() {
      return services.reduce((n, service) => n + service.openStreams, 0);
    },
    close() {
      // R24: stop accepting, end streams with UNAVAILABLE (clients resubscribe elsewhere),
      // let unary calls finish, then give running agents the rest of the deadline.
      closed ??= (async () => {
        options.health?.drain();
        const timeout = options.shutdownTimeoutMs ?? 10_000;
        const timer = setTimeout(() => server.forceShutdown(), timeout);
        const shutdown = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
        for (const service of services) service.endStreams();
        await shutdown;
        clearTimeout(timer);
        if (options.drainOnClose !== false) await resolver(source)().drain(timeout);
      })();
      return closed;
    },
  };
}

/**
 * TLS that requests a client certificate but lets the call through without a trusted one, so
 * the card's requirements answer UNAUTHENTICATED (createSsl's checkClientCertificate would end
 * the handshake instead). grpc-js hands the certificate to calls only when it verified.
 */
class ClientCertificateCredentials extends ServerCredentials {
  constructor(context: { cert: Buffer; key: Buffer; ca: Buffer[] }) {
    super({ requestCert: true, rejectUnauthorized: false }, { cert: context.cert, key: context.key, ca: context.ca });
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

/** grpc-js server keepalive: a ping every `ms`, the connection closed when one goes unanswered. */
function keepalive(ms: number): Record<string, number> {
  return { 'grpc.keepalive_time_ms': ms, 'grpc.keepalive_timeout_ms': Math.min(ms, KEEPALIVE_TIMEOUT_MS) };
}

function toBuffer(value: string | Uint8Array): Buffer {
  return typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
