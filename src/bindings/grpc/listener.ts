/**
 * The gRPC listener: `serveGrpc` binds a grpc-js Server on its own port (plaintext h2c, TLS, or
 * TLS asking for client certificates) and serves the 1.0 service `lf.a2a.v1.A2AService`
 * (server.ts) and, unless `compat03: false`, the A2A 0.3 service `a2a.v1.A2AService`
 * (v03Service.ts), both over the same request handler, and with `health` the gRPC health service
 * (healthService.ts). close() is the R24 shutdown. Node only.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { DEFAULT_MAX_MESSAGE_BYTES, GRPC_SERVICE_NAME, pemBuffer as toBuffer } from './codec.js';
import { GRPC03_SERVICE_NAME } from './v03Codec.js';
import { watchRequestArrival } from './receiveTimeout.js';
import { http2ServersOf } from './grpcJsInternals.js';
import { logError, type ErrorHook } from '../../server/errorHook.js';
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
  /**
   * Time allowed to receive a call's whole request (default 30 s, as the HTTP listener's
   * requestTimeoutMs); a call whose request has not arrived by then ends DEADLINE_EXCEEDED and
   * its stream is reset (receiveTimeout.ts). Responses (streams) are not timed.
   */
  requestTimeoutMs?: number;
  /**
   * Most concurrent calls per HTTP/2 connection (default 100, the least RFC 9113 §6.5.2 asks
   * servers to allow; grpc-go and grpc-java leave it unlimited). Clients queue calls past it.
   */
  maxConcurrentStreams?: number;
  /** Most open connections (default 20,000, as the HTTP listener); more are closed as they come. */
  maxConnections?: number;
  /** A connection without calls for this long is closed with GOAWAY (default 5 min; 0: never). */
  maxConnectionIdleMs?: number;
  /**
   * A connection this old (±10 %) is sent GOAWAY: its client opens a new one, which a load
   * balancer may place elsewhere (default 30 min; 0: never). Calls running then have
   * `maxConnectionAgeGraceMs` (default 30 s) to finish; streams still open are then cut and
   * their clients resubscribe (SubscribeToTask with last-event-id).
   */
  maxConnectionAgeMs?: number;
  maxConnectionAgeGraceMs?: number;
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

/**
 * The listener's own settings, without what a host sharing its handler decides for every
 * binding (versions, auth, TLS, trusted proxies, errors, shutdown, health): serveAgent's `grpc`
 * option, forwarded whole, so a new setting needs no copying there.
 */
export type GrpcListenerOptions = Omit<ServeGrpcOptions, keyof Grpc03ServiceOptions | 'tls' | 'shutdownTimeoutMs' | 'drainOnClose' | 'health'>;

const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 20_000;

type ListenerLimits = Required<Pick<ServeGrpcOptions, 'requestTimeoutMs' | 'maxConcurrentStreams' | 'maxConnections' | 'maxConnectionIdleMs' | 'maxConnectionAgeMs' | 'maxConnectionAgeGraceMs'>> & {
  maxSessionMemoryMb: number;
};

/** The listener's defaults (docs/grpc.md, "Limits"): parity with the HTTP listener's (src/node/serve.ts). */
export const GRPC_LISTENER_DEFAULTS: Readonly<ListenerLimits> = {
  requestTimeoutMs: 30_000,
  maxConcurrentStreams: 100,
  maxConnections: 20_000,
  maxConnectionIdleMs: 5 * 60_000,
  maxConnectionAgeMs: 30 * 60_000,
  maxConnectionAgeGraceMs: 30_000,
  /** Node's HTTP/2 session memory cap per connection, MB (grpc-js turns it off; Node's own default is 10). */
  maxSessionMemoryMb: 64,
};

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
  const limits: ListenerLimits = { ...GRPC_LISTENER_DEFAULTS, ...definedOf(options) };
  const server = new Server({
    'grpc.max_receive_message_length': options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    'grpc.max_concurrent_streams': limits.maxConcurrentStreams,
    'grpc-node.max_session_memory': limits.maxSessionMemoryMb,
    ...connectionLifetime(limits),
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
  const stopWatching = guardConnections(server, limits, options.onError ?? logError);
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
        stopWatching();
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

/** The options given (not undefined), to lay over the defaults. */
function definedOf(options: ServeGrpcOptions): Partial<ListenerLimits> {
  return Object.fromEntries(Object.entries(options).filter(([name, value]) => name in GRPC_LISTENER_DEFAULTS && value !== undefined));
}

/** grpc-js idle and age limits; 0 (never) is grpc-js's absence of the option. */
function connectionLifetime(limits: ListenerLimits): Record<string, number> {
  return {
    ...(limits.maxConnectionIdleMs > 0 ? { 'grpc.max_connection_idle_ms': limits.maxConnectionIdleMs } : {}),
    ...(limits.maxConnectionAgeMs > 0 ? { 'grpc.max_connection_age_ms': limits.maxConnectionAgeMs, 'grpc.max_connection_age_grace_ms': limits.maxConnectionAgeGraceMs } : {}),
  };
}

/**
 * What grpc-js has no option for, on its listening HTTP/2 servers: node:net's connection cap
 * (connections past it are closed as they are accepted, so a flood of idle ones cannot use up
 * the process's file descriptors and make every port unreachable) and the request timeout
 * (receiveTimeout.ts; 0 turns it off). Returns what stops the latter.
 */
function guardConnections(server: Server, limits: ListenerLimits, onError: ErrorHook): () => void {
  const servers = http2ServersOf(server);
  if (!servers) {
    onError(new Error('gRPC listener: this @grpc/grpc-js does not expose its HTTP/2 servers; connections are not capped (maxConnections) and stalled requests are not timed (requestTimeoutMs)'));
    return () => undefined;
  }
  for (const listening of servers) listening.maxConnections = limits.maxConnections;
  return limits.requestTimeoutMs > 0 ? watchRequestArrival(servers, limits.requestTimeoutMs) : () => undefined;
}

/** grpc-js server keepalive: a ping every `ms`, the connection closed when one goes unanswered. */
function keepalive(ms: number): Record<string, number> {
  return { 'grpc.keepalive_time_ms': ms, 'grpc.keepalive_timeout_ms': Math.min(ms, KEEPALIVE_TIMEOUT_MS) };
}
