/**
 * The two Python gRPC peers (grpcio, gRPC's C core) as the tests use them: client.py calling an
 * address, one call per JSON line, and server.py serving a small lf.a2a.v1.A2AService.
 */
import { startJsonLines, type Json } from './jsonLines.js';

/** What client.py answered for one call. */
export interface PythonResult {
  ok: boolean;
  /** A unary call's response, as ProtoJSON. */
  response?: Json;
  /** A stream's messages, as ProtoJSON, in order (also those before an error). */
  events: Json[];
  /** The gRPC status name of a failed call (NOT_FOUND…) and its grpc-message. */
  code?: string;
  details?: string;
  /** The google.rpc.Status of grpc-status-details-bin, null without it. */
  status?: { code: number; message: string; errorInfo: { reason: string; domain: string; metadata: Record<string, string> } | null; violations: { field: string; description: string }[]; otherDetails: string[] } | null;
}

export interface PythonCallOptions {
  /** a2a-version metadata; null sends none. Default 1.0. */
  version?: string | null;
  /** grpc timeout (deadline), seconds. */
  timeout?: number;
  /** Compress the request (grpc-encoding gzip). */
  gzip?: boolean;
}

export interface PythonCall {
  /** The stream's nth message (0-based), once it arrived. */
  event(n: number): Promise<Json>;
  done: Promise<PythonResult>;
}

export interface PythonClient {
  grpcio: string;
  start(rpc: string, request: Json, options?: PythonCallOptions): PythonCall;
  call(rpc: string, request: Json, options?: PythonCallOptions): Promise<PythonResult>;
  close(): Promise<void>;
}

export async function startPythonClient(python: string, address: string): Promise<PythonClient> {
  const peer = startJsonLines(python, 'client.py', [address]);
  const ready = await peer.until((lines) => lines.find((l) => l.ready === true), 'ready line');
  let next = 0;
  const start = (rpc: string, request: Json, options: PythonCallOptions = {}): PythonCall => {
    const id = ++next;
    const version = options.version === undefined ? '1.0' : options.version;
    peer.send({ id, rpc, request, metadata: version === null ? [] : [['a2a-version', version]], timeout: options.timeout ?? 20, gzip: options.gzip ?? false });
    const events = (lines: Json[]) => lines.filter((l) => l.id === id && 'event' in l).map((l) => l.event);
    const answer = (lines: Json[]) => lines.find((l) => l.id === id && ('ok' in l || 'fatal' in l));
    const done = peer.until(answer, `answer to call ${id} (${rpc})`).then((l): PythonResult => {
      if ('fatal' in l) throw new Error(`client.py failed call ${id} (${rpc}): ${l.fatal}`);
      const { id: _id, ...rest } = l;
      return { ...rest, events: events(peer.lines) };
    });
    const event = (n: number) => peer.until((lines) => events(lines)[n], `event ${n} of call ${id} (${rpc})`);
    return { event, done };
  };
  return { grpcio: ready.grpcio, start, call: (rpc, request, options) => start(rpc, request, options).done, close: () => peer.close() };
}

/** One call server.py got: rpc, invocation metadata, request as ProtoJSON, seconds left before the deadline. */
export interface ReceivedCall {
  call: string;
  metadata: Record<string, string>;
  request: Json;
  deadline: number | null;
}

export interface PythonServer {
  /** host:port */
  address: string;
  grpcio: string;
  /** The calls it reported so far (its stdout may lag behind the answers a client got). */
  calls(): ReceivedCall[];
  /** The first call that matches, once reported. */
  received(match: (call: ReceivedCall) => boolean, what: string): Promise<ReceivedCall>;
  close(): Promise<void>;
}

export async function startPythonServer(python: string): Promise<PythonServer> {
  const peer = startJsonLines(python, 'server.py');
  const listening = await peer.until((lines) => lines.find((l) => typeof l.listening === 'string'), 'listening line');
  const calls = (): ReceivedCall[] => peer.lines.filter((l) => 'call' in l);
  return {
    address: listening.listening,
    grpcio: listening.grpcio,
    calls,
    received: (match, what) => peer.until(() => calls().find(match), what),
    close: () => peer.close(),
  };
}
