/** The tiny protocol between bench/run.ts and a server child: the child reports where it listens. */
export interface Ready {
  type: 'ready';
  name: string;
  /** Base URL, e.g. http://127.0.0.1:1234 */
  url: string;
  /** Absolute URL of the JSON-RPC endpoint. */
  jsonrpc: string;
  /** Absolute URL of the REST base (no trailing slash). */
  rest: string;
  /** Extra figures a server reports (servers/store.ts, sdkStore.ts: prefill size and time). */
  info?: Record<string, number>;
}

export function reportReady(msg: Omit<Ready, 'type'>): void {
  if (!process.send) throw new Error('bench server must be spawned with an IPC channel');
  process.send({ type: 'ready', ...msg } satisfies Ready);
}

/** Exit when the parent goes away (IPC closed) so no server outlives the run. */
export function exitWithParent(close: () => Promise<void> | void): void {
  const stop = async (): Promise<void> => {
    setTimeout(() => process.exit(0), 2000).unref();
    try {
      await close();
    } finally {
      process.exit(0);
    }
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/** A constant answer the ceiling server gives on one path: a body, or a list of SSE events. */
export interface Canned {
  contentType: string;
  body?: string;
  sse?: string[];
}

/** Sent by the parent to the ceiling child: path -> canned answer. Acked with `{ type: 'configured' }`. */
export interface CeilingConfig {
  type: 'canned';
  routes: Record<string, Canned>;
}

/** Sent by the parent to the bare gRPC child: base64 response bytes. Acked with `{ type: 'configured' }`. */
export interface GrpcCannedConfig {
  type: 'canned-grpc';
  /** SendMessage response message. */
  unary: string;
  /** SendStreamingMessage response messages, in order. */
  stream: string[];
}

const numbered = (group: string, i: number): string => `00000000-0000-4000-${group}-${i.toString(16).padStart(12, '0')}`;
/** Id of the i-th task servers/store.ts and servers/sdkStore.ts pre-fill (UUID-shaped, like real ids). */
export const prefillId = (i: number): string => numbered('8000', i);
/** Its context id (UUID-shaped too: the SDK's context_id column is varchar(36)). */
export const prefillContextId = (i: number): string => numbered('9000', i);

/** The servers of bench/grpcLayers.ts, one gRPC layer more each (servers/grpcLayers.ts). */
export const GRPC_LAYERS = ['bare', 'decode', 'binding', 'full'] as const;
export type GrpcLayer = (typeof GRPC_LAYERS)[number];
