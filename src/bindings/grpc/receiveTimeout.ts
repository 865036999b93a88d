/**
 * R18 on the gRPC port: a call's request must arrive whole (its message and the client's
 * half-close) within `ms` of its headers, as the HTTP listener's requestTimeout asks of a request
 * body; else it ends DEADLINE_EXCEEDED and its HTTP/2 stream is freed. grpc-js runs a unary or
 * server-streaming handler only once the request arrived, so before that no limit of ours (rate,
 * streams, access log) sees the call: a client announcing a large message and sending it a byte
 * at a time would hold the stream and its buffer forever. Calls streaming their requests (none in
 * A2A) are left alone. Node only (a grpc-js server interceptor).
 */
import { constants } from 'node:http2';
import { ServerInterceptingCall, status, type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js';
import { http2StreamOf } from './grpcJsInternals.js';

/** Ends calls whose request has not fully arrived within `ms` (see above). */
export function receiveTimeout(ms: number): ServerInterceptor {
  return (method, call) => {
    if (method.requestStream) return new ServerInterceptingCall(call);
    let timer: NodeJS.Timeout | undefined;
    const stop = (): void => clearTimeout(timer);
    return new ServerInterceptingCall(call, {
      start: (next) => {
        timer = setTimeout(() => expire(call, ms), ms);
        timer.unref();
        next({
          onReceiveHalfClose: (go) => {
            stop();
            go();
          },
          onCancel: stop,
        });
      },
    });
  };
}

/**
 * Answers DEADLINE_EXCEEDED, then resets the stream (NO_ERROR, RFC 9113 §8.1: the response is
 * complete, stop sending): answered, the stream is only half-closed, and would go on counting
 * against the connection's concurrent streams until the client ends its side.
 */
function expire(call: ServerInterceptingCallInterface, ms: number): void {
  call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: `the request did not arrive within ${ms} ms` });
  const stream = http2StreamOf(call);
  if (stream && !stream.closed) stream.close(constants.NGHTTP2_NO_ERROR);
}
