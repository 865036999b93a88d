/**
 * The gRPC client's connections: one grpc-js channel (HTTP/2 connection) per interface address
 * and TLS choice, with the defaults every channel gets (TLS choice, trust roots, message size,
 * keepalive). client.ts sends the calls over them. Node only.
 */
import { Client, credentials as grpcCredentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { DEFAULT_MAX_MESSAGE_BYTES, pemBuffer as toBuffer } from './codec.js';
import { defaultTrustRoots } from './trustRoots.js';
import type { GrpcEndpoint, UnreachableHints } from './unreachable.js';

export interface GrpcTransportOptions {
  /**
   * Plaintext or TLS. Default (defaultTls): TLS (GRPC-01), trusting the roots HTTPS trusts
   * (Node's, NODE_EXTRA_CA_CERTS; see trustRoots.ts); plaintext (h2c) only for a loopback address
   * of an agent whose card did not come over https. `{ ca }` trusts these PEM roots;
   * `{ cert, key }` adds a client certificate (mTLS).
   */
  tls?: boolean | { ca?: string | Uint8Array; cert?: string | Uint8Array; key?: string | Uint8Array };
  /** Channel credentials, overriding `tls`. */
  credentials?: ChannelCredentials;
  /** Largest response message accepted (default 4 MiB). */
  maxMessageBytes?: number;
  /** Further grpc-js channel options. */
  channelOptions?: ChannelOptions;
  /**
   * How a call that could not connect words what to change (NETWORK "Could not reach gRPC …; <hint>").
   * Default: grpcTransport's options (LIBRARY_HINTS). The `a2a` command names its flags instead.
   */
  unreachableHints?: UnreachableHints;
}

/** A channel of a channelPool: its grpc-js client, and where and how it connects. */
export interface GrpcChannel {
  client: Client;
  endpoint: GrpcEndpoint;
}

function isLoopback(address: string): boolean {
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function channelCredentials(tls: NonNullable<GrpcTransportOptions['tls']>): ChannelCredentials {
  if (tls === false) return grpcCredentials.createInsecure();
  if (tls === true) return grpcCredentials.createSsl(defaultTrustRoots());
  return grpcCredentials.createSsl(
    tls.ca === undefined ? defaultTrustRoots() : toBuffer(tls.ca),
    tls.key === undefined ? null : toBuffer(tls.key),
    tls.cert === undefined ? null : toBuffer(tls.cert),
  );
}

/**
 * Whether a channel to `url` uses TLS when the caller did not say (GRPC-01): TLS, except
 * plaintext (h2c) for a loopback address (`localhost`, `127.x.x.x`, `::1`) unless the agent is
 * known to serve TLS: its card was read over https (`cardUrl`), or the interface url says
 * `grpcs://` or `https://`. A card fetched from `https://localhost:8443` means TLS for its
 * `localhost:50051` gRPC interface too; a card read over http, or none (createGrpcClient with
 * a bare `host:port`), leaves loopback in plaintext.
 */
export function defaultTls(url: string, cardUrl?: string): boolean {
  if (/^(grpcs|https):\/\//i.test(url) || (cardUrl !== undefined && /^https:/i.test(cardUrl))) return true;
  return !isLoopback(addressOf(url));
}

/** The `host:port` of an interface url (GRPC-06), a scheme some cards add dropped. */
function addressOf(url: string): string {
  return url.replace(/^(grpcs?|https?):\/\//i, '').replace(/\/$/, '');
}

/**
 * HTTP/2 keepalive while calls are open: a PING after 30 s without one, the connection given up
 * when it is not answered within 10 s. A stream to an instance that froze or was cut off without
 * FIN or RST then fails NETWORK within about 40 s (createClient resubscribes, R24) instead of
 * waiting forever. No PINGs without calls: servers on gRPC's C core or Go count those as abuse.
 * A server that finds 30 s too often answers GOAWAY `too_many_pings`, and grpc-js doubles the
 * interval. `channelOptions` overrides either.
 */
export const DEFAULT_KEEPALIVE: ChannelOptions = { 'grpc.keepalive_time_ms': 30_000, 'grpc.keepalive_timeout_ms': 10_000 };

/** One channel (HTTP/2 connection) per address and TLS choice, for the interfaces' urls (`host:port`, GRPC-06). */
export function channelPool(options: GrpcTransportOptions): { get(url: string, cardUrl?: string): GrpcChannel; close(): void } {
  const channels = new Map<string, GrpcChannel>();
  return {
    get(url, cardUrl) {
      const address = addressOf(url);
      const tls = options.tls ?? defaultTls(url, cardUrl);
      const key = `${tls === false ? 'h2c' : 'tls'} ${address}`;
      let channel = channels.get(key);
      if (!channel) {
        const credentials = options.credentials ?? channelCredentials(tls);
        const client = new Client(address, credentials, {
          ...DEFAULT_KEEPALIVE,
          'grpc.max_receive_message_length': options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
          ...options.channelOptions,
        });
        channel = { client, endpoint: { address, tls: credentials._isSecure(), hints: options.unreachableHints } };
        channels.set(key, channel);
      }
      return channel;
    },
    close() {
      for (const { client } of channels.values()) client.close();
      channels.clear();
    },
  };
}
