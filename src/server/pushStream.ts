/**
 * Push streams: a producer hands items to its one consumer (a sink) as they come, with
 * backpressure, instead of a chain of async generators. While idle a stream is a few small
 * objects — no pending promises, no closures per layer, no AbortSignal — which is what lets one
 * instance hold many thousands of open SSE and gRPC streams (R9). Consumers that pull (WHATWG
 * Response bodies, tests) iterate it: `PushIterator` adapts it to an AsyncIterator.
 */

/** The consumer side. No method is called again after `end`, `fail` or the producer's `close`. */
export interface StreamSink<T> {
  /** One item. false: the consumer is full; the producer holds further items until `resume()`. */
  push(item: T): boolean;
  /** The stream ended normally. */
  end(): void;
  /** The stream failed midway. */
  fail(error: unknown): void;
}

/** Something that may carry an AbortSignal, read only when needed (a CallContext). */
export interface SignalHolder {
  readonly signal?: AbortSignal | undefined;
}

/** A single-use stream of items: `pipe` it to a sink, or iterate it (not both). */
export abstract class PushStream<T> implements AsyncIterable<T> {
  private abortHolder: SignalHolder | undefined;

  /** Starts delivering to `sink`. */
  pipe(sink: StreamSink<T>): void {
    // A piped stream is stopped by its consumer (`close`): the holder is not needed any more.
    this.abortHolder = undefined;
    this.start(sink);
  }

  /** The consumer has room again after `push` returned false. */
  abstract resume(): void;

  /**
   * The consumer is gone: stop and release everything, silently. Idempotent. With `failure`, the
   * consumer gave up because of it (an event it could not write, which it answers as an error):
   * the stream stops the same way, and a relay reports it as failed.
   */
  abstract close(failure?: unknown): void;

  protected abstract start(sink: StreamSink<T>): void;

  /**
   * When the stream is iterated, the holder's signal (read then, not now) ends the iteration:
   * a pulling consumer waiting for the next item learns of a cancelled call (R8).
   */
  abortWhen(holder: SignalHolder): this {
    this.abortHolder = holder;
    return this;
  }

  [Symbol.asyncIterator](): PushIterator<T> {
    const signal = this.abortHolder?.signal;
    this.abortHolder = undefined;
    return new PushIterator(this, signal);
  }
}

/** `items` as a push stream (itself when it is one already). */
export function toPushStream<T>(items: AsyncIterable<T>): PushStream<T> {
  return items instanceof PushStream ? (items as PushStream<T>) : new IterablePushStream(items);
}

/** Pulls a stream one item ahead of its consumer. One `next()` at a time, as `for await` does. */
export class PushIterator<T> implements AsyncIterableIterator<T>, StreamSink<T> {
  private buffered: T[] = [];
  private finished = false;
  private failure: { error: unknown } | undefined;
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly source: PushStream<T>,
    signal?: AbortSignal,
  ) {
    if (signal?.aborted) {
      this.finished = true;
      source.close();
      return;
    }
    if (signal) {
      this.signal = signal;
      signal.addEventListener('abort', this);
    }
    source.pipe(this);
  }

  /** The signal's abort (this object is its listener: no closure). */
  handleEvent(): void {
    void this.return();
  }

  push(item: T): boolean {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ value: item, done: false });
      return true;
    }
    this.buffered.push(item);
    return false;
  }

  end(): void {
    this.settle(undefined);
  }

  fail(error: unknown): void {
    this.settle({ error });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) {
      const value = this.buffered.shift() as T;
      if (this.buffered.length === 0 && !this.finished) this.source.resume();
      return Promise.resolve({ value, done: false });
    }
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.source.resume();
    });
  }

  return(): Promise<IteratorResult<T>> {
    const wasFinished = this.finished;
    this.settle(undefined);
    this.buffered = [];
    this.failure = undefined;
    if (!wasFinished) this.source.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private settle(failure: { error: unknown } | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.signal?.removeEventListener('abort', this);
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) {
      this.failure = failure;
      return;
    }
    if (failure) waiter.reject(failure.error);
    else waiter.resolve({ value: undefined, done: true });
  }
}

/** Any AsyncIterable as a push stream: pulls one item at a time while the sink has room. */
class IterablePushStream<T> extends PushStream<T> {
  private iterator: AsyncIterator<T> | undefined;
  private sink: StreamSink<T> | undefined;
  private pulling = false;
  private paused = false;
  private closed = false;

  constructor(private readonly items: AsyncIterable<T>) {
    super();
  }

  protected start(sink: StreamSink<T>): void {
    this.sink = sink;
    this.iterator = this.items[Symbol.asyncIterator]();
    this.pull();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.pull();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Without waiting on a pending next(): a generator's return() is queued behind it.
    Promise.resolve(this.iterator?.return?.()).catch(ignore);
  }

  private pull(): void {
    if (this.pulling || this.paused || this.closed || !this.iterator) return;
    this.pulling = true;
    this.iterator.next().then(
      (result) => this.onResult(result),
      (error: unknown) => this.onError(error),
    );
  }

  private onResult(result: IteratorResult<T>): void {
    this.pulling = false;
    if (this.closed) return;
    const sink = this.sink as StreamSink<T>;
    if (result.done) {
      this.closed = true;
      sink.end();
      return;
    }
    if (!sink.push(result.value)) this.paused = true;
    this.pull();
  }

  private onError(error: unknown): void {
    this.pulling = false;
    if (this.closed) return;
    this.closed = true;
    (this.sink as StreamSink<T>).fail(error);
  }
}

/** How a relayed stream ended: its end, an error (its own, or its consumer's: `close(failure)`), or its consumer went away (`close`). */
export type RelayEnd = 'done' | 'error' | 'closed';

export interface RelayHooks<T> {
  /** Each item, as it is passed on. */
  item?: (item: T) => void;
  /** Once, however the stream ends (with the error when it failed). */
  settled: (how: RelayEnd, error?: unknown) => void;
}

/** `source` passed on unchanged, telling `hooks` of each item and, once, of its end. */
export function relay<T>(source: PushStream<T>, hooks: RelayHooks<T>): PushStream<T> {
  return new RelayStream(source, hooks);
}

/** `source`, calling `done` once when it ends, fails or is closed by its consumer. */
export function onSettled<T>(source: PushStream<T>, done: () => void): PushStream<T> {
  return new RelayStream(source, { settled: done });
}

class RelayStream<T> extends PushStream<T> implements StreamSink<T> {
  private sink: StreamSink<T> | undefined;
  private settled = false;

  constructor(
    private readonly source: PushStream<T>,
    private readonly hooks: RelayHooks<T>,
  ) {
    super();
  }

  protected start(sink: StreamSink<T>): void {
    this.sink = sink;
    this.source.pipe(this);
  }

  resume(): void {
    this.source.resume();
  }

  close(failure?: unknown): void {
    this.source.close(failure);
    if (failure === undefined) this.settle('closed');
    else this.settle('error', failure);
  }

  push(item: T): boolean {
    this.hooks.item?.(item);
    return (this.sink as StreamSink<T>).push(item);
  }

  end(): void {
    this.settle('done');
    (this.sink as StreamSink<T>).end();
  }

  fail(error: unknown): void {
    this.settle('error', error);
    (this.sink as StreamSink<T>).fail(error);
  }

  private settle(how: RelayEnd, error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.hooks.settled(how, error);
  }
}

function ignore(): void {}
