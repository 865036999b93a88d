/**
 * One server-streaming call (SendStreamingMessage, SubscribeToTask) from the handler's stream
 * to the wire. The handler's push stream is piped straight into the call, as the SSE writer
 * does it (../../server/pushStream.ts): each event is encoded and written as it comes, with no
 * promise, iterator result or AbortSignal per event or per stream. When grpc-js's buffer is
 * full the source holds its events until 'drain' (R10). A client that cancels, or a deadline,
 * closes the source, which frees its subscription (R8) — the task keeps running. The stream
 * watches its deadline itself: grpc-js may end a call at its deadline without ever telling the
 * handler (deadline.ts), and a source paused on a dead call would otherwise be held forever.
 */
import { Metadata, status, type ServerWritableStream } from '@grpc/grpc-js';
import { InternalError } from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/types.js';
import { toPushStream, type PushStream, type StreamSink } from '../../server/pushStream.js';
import type { StreamItem } from '../../server/taskStream.js';
import type { GrpcCallContext } from './callContext.js';
import type { CallContext } from '../../server/requestHandler.js';
import { FIRST_EVENT_ID_KEY } from './codec.js';
import type { GrpcErrorStatus } from './errors.js';
import type { ErrorContext } from '../../server/errorHook.js';
import { whenDeadlinePasses } from './deadline.js';

type Bytes = Buffer;

/** What the service shares with its streaming calls. */
export interface StreamCallHost {
  /** Streaming calls in progress (shutdown ends them). */
  streams: Set<StreamCall>;
  /** Reports an internal failure once (and ends the observation of `ctx`'s call) and gives the status the call ends with. */
  report: (error: unknown, context?: ErrorContext, ctx?: CallContext) => GrpcErrorStatus;
}

/** The handler's stream and how each of its events is written. */
export interface GrpcRpcStream {
  items: AsyncIterable<StreamItem>;
  encode(event: StreamResponse): Bytes;
}

export class StreamCall implements StreamSink<StreamItem> {
  private ended = false;
  private source: PushStream<StreamItem> | undefined;
  private encode: ((event: StreamResponse) => Bytes) | undefined;
  /** Initial metadata, until it is sent with the first event (or the end). */
  private metadata: Metadata | undefined;
  /** The seq the next event must have: ids are first + index (FIRST_EVENT_ID_KEY). */
  private expected: number | undefined;
  private waitingForDrain = false;
  /** Ends the stream once the call's deadline has passed, whether or not 'cancelled' comes. */
  private readonly deadline: { clear(): void } | undefined;
  /** The call's context, once its service parameters were read. */
  ctx: GrpcCallContext | undefined;

  constructor(
    private readonly call: ServerWritableStream<Bytes, Bytes>,
    private readonly host: StreamCallHost,
    /** The A2A operation of the call, for onError. */
    private readonly operation?: string,
  ) {
    host.streams.add(this);
    // grpc-js also reports 'cancelled' after a call it completed: only an open stream reacts.
    call.once('cancelled', () => this.stop());
    this.deadline = whenDeadlinePasses(call, () => this.endWithStatus(status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
  }

  /** Starts writing `stream`; `metadata` (shared, never mutated) goes out with the first event. */
  start(stream: GrpcRpcStream, metadata: Metadata): void {
    const source = toPushStream(stream.items);
    if (this.ended || this.call.cancelled) {
      source.close();
      this.stop();
      return;
    }
    this.source = source;
    this.encode = stream.encode;
    this.metadata = metadata;
    source.pipe(this);
  }

  push(item: StreamItem): boolean {
    if (this.ended) return false;
    const call = this.call;
    if (this.metadata) this.sendMetadata(item.seq);
    if (this.expected !== undefined) {
      if (item.seq !== this.expected) {
        // Ids are first + index: a gap (events gone from the log) would mislabel the rest.
        return this.abandon(new InternalError(`Events after ${this.expected - 1} are no longer in the task log; resubscribe without last-event-id`));
      }
      this.expected++;
    }
    let bytes: Bytes;
    try {
      bytes = (this.encode as (event: StreamResponse) => Bytes)(item.event);
    } catch (error) {
      return this.abandon(error);
    }
    if (call.write(bytes)) return true;
    if (!this.waitingForDrain) {
      this.waitingForDrain = true;
      call.once('drain', () => this.onDrain());
    }
    return false;
  }

  /** GRPC-04: the handler's stream ended (terminal or interrupted task): status OK. */
  end(): void {
    if (this.metadata && !this.ended && !this.call.cancelled) this.sendMetadata(undefined);
    this.finish(undefined);
  }

  /** STREAM-12 / B9: an error before the first event or midway ends the call with its status. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.finish(this.host.report(error, this.operation ? { operation: this.operation } : undefined, this.ctx));
  }

  /** Shutdown (R24): ends the call with UNAVAILABLE so the client resubscribes elsewhere. */
  endWith(reason: string): void {
    this.endWithStatus(status.UNAVAILABLE, reason);
  }

  /** Ends the call early: the source is closed, the call's work aborted, the call ended with `code`. */
  private endWithStatus(code: status, details: string): void {
    this.source?.close();
    this.ctx?.abort();
    this.finish({ code, details, metadata: new Metadata() });
  }

  /** An event that cannot be written: stop the source (failed, for onCall) and end the call with the error (B9). */
  private abandon(error: unknown): false {
    this.source?.close(error);
    this.fail(error);
    return false;
  }

  private sendMetadata(firstSeq: number | undefined): void {
    let metadata = this.metadata as Metadata;
    this.metadata = undefined;
    if (firstSeq !== undefined) {
      metadata = metadata.clone();
      metadata.set(FIRST_EVENT_ID_KEY, String(firstSeq));
      this.expected = firstSeq;
    }
    this.call.sendMetadata(metadata);
  }

  private onDrain(): void {
    this.waitingForDrain = false;
    if (!this.ended) this.source?.resume();
  }

  /** The client went away (cancel, deadline, connection lost): release the source, write nothing. */
  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.deadline?.clear();
    this.host.streams.delete(this);
    this.source?.close();
  }

  private finish(error: GrpcErrorStatus | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.deadline?.clear();
    this.host.streams.delete(this);
    if (this.call.cancelled) return;
    this.ctx?.answered();
    if (error === undefined) this.call.end();
    else this.call.emit('error', error);
  }
}
