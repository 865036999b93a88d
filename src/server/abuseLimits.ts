/**
 * R25 abuse limits as the request handler applies them: a request rate per caller, open streams
 * per caller, and unfinished tasks per context. The caller is the authenticated principal, else
 * the remote address (behind a load balancer: the forwarded client's only with the host's
 * `trustProxy`, else the balancer's, one bucket for all) — never the tenant a request names: on a single-agent server that is any
 * string the client picks, and a new one per request would be a fresh budget each time. Each limit is off unless configured; exceeding one answers
 * RESOURCE_EXHAUSTED (HTTP 429, gRPC RESOURCE_EXHAUSTED) for that caller only. Counts are per
 * instance. Failed authentications count against the remote address too (SEC-06), before the
 * request handler runs (`guardAuthentication`, called by every binding).
 */
import { isAuthError } from '../auth/authErrors.js';
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
  request(ctx: CallContext): void {
    this.charge(callerKey(ctx));
  }

  /**
   * Counts one request from `remoteAddress` that reaches no A2A operation (a route of the
   * application's own, such as a webhook receiver); throws when that address is over its rate.
   */
  requestFrom(remoteAddress: string | undefined): void {
    this.charge(addressKey(remoteAddress));
  }

  private charge(key: string): void {
    if (!this.rate) return;
    const decision = this.rate.take(key);
    if (!decision.ok) throw limitExceeded('requests', decision.retryAfterMs);
  }

  /**
   * SEC-06: `authenticate` on the remote address's request budget, the bucket its anonymous
   * callers use. A failed
   * authentication (AuthError) costs one request; any other outcome costs nothing here (the
   * request handler charges the request itself). Once the bucket is empty, credentials are not
   * evaluated at all: RESOURCE_EXHAUSTED with retryAfterMs. The request is taken before and
   * given back after, so concurrent guesses cannot all pass a bucket that has one request left.
   */
  async guardAuthentication<T>(ctx: CallContext, authenticate: () => Promise<T>): Promise<T> {
    const rate = this.rate;
    if (!rate) return authenticate();
    const key = addressKey(ctx.remoteAddress);
    const decision = rate.take(key);
    if (!decision.ok) throw limitExceeded('requests', decision.retryAfterMs);
    let failed = false;
    try {
      return await authenticate();
    } catch (error) {
      failed = isAuthError(error);
      throw error;
    } finally {
      if (!failed) rate.refund(key);
    }
  }

  /** A stream slot for the caller; call the result when the stream ends. */
  openStream(ctx: CallContext): () => void {
    if (!this.streams) return noop;
    const slot = this.streams.acquire(callerKey(ctx));
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

function callerKey(ctx: CallContext): string {
  return ctx.principal ? `p:${ctx.principal.id}` : addressKey(ctx.remoteAddress);
}

/** The bucket of anonymous callers from one remote address. */
function addressKey(remoteAddress: string | undefined): string {
  return `a:${remoteAddress ?? ''}`;
}

function noop(): void {}
