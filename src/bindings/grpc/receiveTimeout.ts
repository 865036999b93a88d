/**
 * R18 on the gRPC port: a call's request must arrive whole (its message and the client's
 * half-close) within `ms` of its headers, as the HTTP listener's requestTimeout asks of a request
 * body; else it ends DEADLINE_EXCEEDED and its HTTP/2 stream is freed. grpc-js runs a unary or
 * server-streaming handler only once the request arrived, so before that no limit of ours (rate,
 * streams, access log) sees the call: a client announcing a large message and sending it a byte
 * at a time would hold the stream and its buffer forever. Node only.
 *
 * Watched on grpc-js's HTTP/2 servers, not with a grpc-js server interceptor: an interceptor
 * puts one more intercepting layer under every call of the server, which cost 6–8 % of a unary
 * call's CPU (measured 2026-12-02, docs/grpc.md). Here a stream costs a Map entry and a shared
 * 'close' listener, and one timer sweeps the lot: streams are kept in arrival order, so a sweep
 * stops at the first one still in time.
 */
import { constants, type ServerHttp2Stream } from 'node:http2';
import type { EventEmitter } from 'node:events';
import { status } from '@grpc/grpc-js';

/** Watches the streams of `servers` (grpc-js's HTTP/2 servers); returns the function that stops. */
export function watchRequestArrival(servers: readonly EventEmitter[], ms: number): () => void {
  /** Open streams whose request may still be arriving → when it must have arrived (performance.now()). */
  const pending = new Map<ServerHttp2Stream, number>();
  function forget(this: ServerHttp2Stream): void {
    pending.delete(this);
  }
  const onStream = (stream: ServerHttp2Stream): void => {
    if (stream.readableEnded) return;
    pending.set(stream, performance.now() + ms);
    stream.once('close', forget);
  };
  const sweep = (): void => {
    const now = performance.now();
    for (const [stream, due] of pending) {
      if (due > now) break;
      pending.delete(stream);
      // A request that arrived (a server stream still answering) is no longer timed.
      if (!stream.readableEnded && !stream.closed) expire(stream, ms);
    }
  };
  for (const server of servers) server.on('stream', onStream);
  // A stalled call ends within an eighth of `ms` after its time.
  const timer = setInterval(sweep, Math.max(10, ms / 8));
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const server of servers) server.off('stream', onStream);
    pending.clear();
  };
}

/**
 * Answers DEADLINE_EXCEEDED (trailers-only: grpc-js has sent nothing on a call whose request has
 * not arrived), then resets the stream (NO_ERROR, RFC 9113 §8.1: the response is complete, stop
 * sending): answered, it would only be half-closed and go on counting against the connection's
 * concurrent streams until the client ended its side.
 */
function expire(stream: ServerHttp2Stream, ms: number): void {
  if (!stream.headersSent) {
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(status.DEADLINE_EXCEEDED),
        'grpc-message': encodeURIComponent(`the request did not arrive within ${ms} ms`),
      },
      { endStream: true },
    );
  }
  stream.close(constants.NGHTTP2_NO_ERROR);
}
