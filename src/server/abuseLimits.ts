/**
 * R25 abuse limits as the request handler applies them: a request rate per caller, open streams
 * per caller, and unfinished tasks per context. The caller is the authenticated principal, else
 * the remote address. Each limit is off unless configured; exceeding one answers
 * RESOURCE_EXHAUSTED (HTTP 429, gRPC RESOURCE_EXHAUSTED) for that caller only. Counts are per
 * instance.
 */
import type { CallContext } from './requestHandler.js';
import { ConcurrencyLimiter, RateLimiter, limitExceeded } from './limits.js';

export interface AbuseLimitOptions {
  /** Sustained requests per second per caller (and `requestBurst` at once). */
  requestsPerSecond?: number;
  /** Bucket size for requestsPerSecond (default 2 × the rate). */
  requestBurst?: number;
  /** Streams (SendStreamingMessage, SubscribeToTask) open at once per caller. */
  maxStreamsPerCaller?: number;
  /** Unfinished (submitted, working or interrupted) tasks being run per context at once. */
  maxActiveTasksPerContext?: number;
}

export class AbuseLimits {
  private readonly rate: RateLimiter | undefined;
  private readonly streams: ConcurrencyLimiter | undefined;
  private readonly tasks: ConcurrencyLimiter | undefined;

  constructor(options: AbuseLimitOptions) {
    const rps = options.requestsPerSecond;
    this.rate = rps ? new RateLimiter({ ratePerSecond: rps, burst: options.requestBurst ?? Math.max(1, Math.ceil(rps * 2)) }) : undefined;
    this.streams = options.maxStreamsPerCaller ? new ConcurrencyLimiter({ max: options.maxStreamsPerCaller }) : undefined;
    this.tasks = options.maxActiveTasksPerContext ? new ConcurrencyLimiter({ max: options.maxActiveTasksPerContext }) : undefined;
  }

  /** Counts one request; throws when the caller is over its rate. */
  request(ctx: CallContext, tenant: string): void {
    if (!this.rate) return;
    const decision = this.rate.take(callerKey(ctx, tenant));
    if (!decision.ok) throw limitExceeded('requests', decision.retryAfterMs);
  }

  /** A stream slot for the caller; call the result when the stream ends. */
  openStream(ctx: CallContext, tenant: string): () => void {
    if (!this.streams) return noop;
    const slot = this.streams.acquire(callerKey(ctx, tenant));
    if (!slot.ok) throw limitExceeded('streams');
    return slot.release;
  }

  /** A task slot in the context; call the result when the run ends. */
  startTask(tenant: string, contextId: string): () => void {
    if (!this.tasks) return noop;
    const slot = this.tasks.acquire(`${tenant}\u0000${contextId}`);
    if (!slot.ok) throw limitExceeded('tasksPerContext');
    return slot.release;
  }
}

function callerKey(ctx: CallContext, tenant: string): string {
  return ctx.principal ? `${tenant}\u0000p:${ctx.principal.id}` : `${tenant}\u0000a:${ctx.remoteAddress ?? ''}`;
}

function noop(): void {}
