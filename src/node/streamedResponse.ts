/**
 * The Node side of a streamed (SSE) response: writes the frames of a push stream into a
 * ServerResponse with backpressure, and stops the stream when the client goes away.
 */
import type { ServerResponse } from 'node:http';
import type { PushStream, StreamSink } from '../server/pushStream.js';

/** The exchange a stream answers: its response, and the request's abort if someone asked for it. */
export interface StreamExchange {
  res: ServerResponse;
  abort?: AbortController;
}

/** What the host shares with its open response streams. */
export interface StreamHost {
  /** Open response streams (shutdown ends them). */
  streams: Set<StreamedResponse>;
  onError: ((error: unknown) => void) | undefined;
}

/**
 * A response stream (SSE): the body is piped into the response, with backpressure (R10): when
 * the socket is full the body waits for 'drain'. A client that goes away closes the body, which
 * releases its subscriptions at once (R8); the task keeps running. One object and one 'close'
 * listener per stream: no promise, no timer, no AbortSignal (R9).
 */
export class StreamedResponse implements StreamSink<string> {
  private waitingForDrain = false;
  private done = false;

  constructor(
    private readonly exchange: StreamExchange,
    private readonly body: PushStream<string>,
    private readonly host: StreamHost,
  ) {}

  start(): void {
    const { res } = this.exchange;
    if (res.destroyed) {
      this.stop();
      return;
    }
    this.host.streams.add(this);
    res.on('close', () => this.stop());
    this.body.pipe(this);
  }

  push(chunk: string): boolean {
    const { res } = this.exchange;
    if (this.done || res.destroyed || res.writableEnded) return false;
    // Events ready in the same turn of the event loop leave in one write (headers included).
    if (!res.writableCorked) {
      res.cork();
      setImmediate(uncork, res);
    }
    if (res.write(chunk)) return true;
    res.uncork();
    if (!this.waitingForDrain) {
      this.waitingForDrain = true;
      res.once('drain', () => this.onDrain());
    }
    return false;
  }

  end(): void {
    this.detach();
    const { res } = this.exchange;
    if (res.writableEnded) return;
    // Events are still held for the end of this turn: end there too, so the last events and the
    // end of the response leave in that one write (res.end() now would flush them at once, and
    // wake the client once per stream instead of once per turn).
    if (res.writableCorked) endAtUncork.add(res);
    else res.end();
  }

  fail(error: unknown): void {
    this.detach();
    this.host.onError?.(error);
    this.exchange.res.destroy();
  }

  /** Graceful shutdown: the stream ends with a reconnect hint so clients resubscribe elsewhere (R24). */
  shutdown(): void {
    const { res } = this.exchange;
    if (!res.writableEnded) res.end('retry: 1000\n\n');
    this.stop();
  }

  /** The client is gone (or the server is closing): stop the body. */
  private stop(): void {
    if (this.done) return;
    this.detach();
    this.exchange.abort?.abort();
    this.body.close();
  }

  private onDrain(): void {
    this.waitingForDrain = false;
    if (!this.done) this.body.resume();
  }

  private detach(): void {
    this.done = true;
    this.host.streams.delete(this);
  }
}

/** Responses whose stream ended while their events were held: ended (and flushed) by `uncork`. */
const endAtUncork = new WeakSet<ServerResponse>();

function uncork(res: ServerResponse): void {
  if (!endAtUncork.delete(res)) res.uncork();
  else if (!res.writableEnded) res.end();
}
