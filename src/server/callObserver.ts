/**
 * The `onCall` instrumentation hook (docs/agents.md, "Observing calls"): one report per A2A call
 * when it ends, for every binding, from one place. The bindings only say which binding a call
 * came on (CallContext.binding); the request handler's `unary` / `stream` (and authentication,
 * which runs before them) open the call's observation, time it and report it here. Without a
 * hook nothing is observed: the handler checks one field and builds nothing, reads no clock.
 *
 * A call is one CallContext: a call the 0.3 compatibility layer answers with several handler
 * calls (every page of a push config list, say) is reported once, by the outermost observation.
 * A call that authentication opened and that failed before a handler call claimed it (its request
 * could not be read) is reported by `fail`, which every binding calls where it answers an error:
 * whatever path a call takes, an opened observation is reported exactly once.
 */
import type { OperationName } from '../protocol/types.js';
import { toA2AError } from '../protocol/errors.js';
import type { ErrorHook } from './errorHook.js';
import { relay, toPushStream, type PushStream, type RelayEnd } from './pushStream.js';
import type { A2ARequestHandler, CallContext } from './requestHandler.js';
import type { StreamItem } from './taskStream.js';

/** The binding a call came on (the card's protocolBinding names). */
export type CallBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/**
 * Why a stream ended: `done` (its source ended: the task reached a terminal or interrupted state,
 * or the answer was a single message), `error` (it failed midway; the outcome is the error's
 * reason), `closed` (its consumer closed it: the client went away or cancelled, a deadline, the
 * server shutting down).
 */
export type StreamEnd = RelayEnd;

/** One ended call. Never a token, a header, a body or a query string. */
export interface CallRecord {
  /** Absent when the request handler was called directly, not through a binding. */
  binding?: CallBinding;
  /** The camelCase operation name (`sendMessage`, `getTask`, …). */
  operation: string;
  /** The negotiated protocol version (`1.0`, `0.3`). */
  protocolVersion: string;
  /** The request's tenant ('' without one, or when the call failed before its request was read). */
  tenant: string;
  /** The authenticated caller's Principal.id. */
  principal?: string;
  /** `ok`, or the ErrorInfo reason of the error the call ended with (`TASK_NOT_FOUND`, `UNAUTHENTICATED`, …). */
  outcome: string;
  /** From the start of the call (its authentication, when the server authenticates) to its end. */
  durationMs: number;
  /** Streams: the events written (after the first event's refusal, none and no `streamEnd`). */
  events?: number;
  /** Streams that started: why they ended. */
  streamEnd?: StreamEnd;
  /** The task the call concerned, when known (from the request, else the answer). */
  taskId?: string;
  /** The caller's network address, when the binding knows it. */
  remoteAddress?: string;
}

/**
 * Called once per call when it ends. It runs on the call's path: keep it quick (count, enqueue a
 * log line). A hook that throws (or returns a promise that rejects) is reported to onError and
 * does not change the call.
 */
export type CallHook = (call: CallRecord) => void;

/** One call in progress: when it started and what it concerned. Lives on CallContext.observation. */
export class CallObservation {
  readonly startedAt = performance.now();
  /**
   * A handler call (or a composite 0.3 call) owns it, or it ended already (a refused
   * authentication, `fail`); nested handler calls only add to it.
   */
  claimed = false;
  tenant = '';
  taskId: string | undefined = undefined;
  readonly remoteAddress: string | undefined;

  constructor(
    public operation: string,
    ctx: CallContext,
  ) {
    // Read now: a socket that is gone at the end may not know its peer any more.
    this.remoteAddress = ctx.remoteAddress;
  }

  /** The decoded request: its tenant and task id (the first request's, for a composite call). */
  request(req: object): void {
    const fields = req as { tenant?: unknown; id?: unknown; taskId?: unknown; message?: { taskId?: unknown } };
    if (this.tenant === '' && typeof fields.tenant === 'string') this.tenant = fields.tenant;
    this.taskId ??= requestTaskId(fields);
  }

  /** A task id in an answer (a Task, a stream event), unless the request named one. */
  answer(value: unknown): void {
    this.taskId ??= answerTaskId(value);
  }
}

export class CallObserver {
  private readonly streamsOpen = new Map<string, number>();

  constructor(
    private readonly hook: CallHook,
    private readonly onError: ErrorHook,
  ) {}

  /** Streams open now, per binding ('' for direct calls). */
  get openStreams(): ReadonlyMap<string, number> {
    return this.streamsOpen;
  }

  /**
   * Authentication, which bindings run before the handler: a failure is the call's end; on
   * success the observation waits, with its start, for the handler call to claim it.
   */
  async authenticate(operation: string, ctx: CallContext, check: () => Promise<void>): Promise<void> {
    this.open(operation, ctx);
    try {
      await check();
    } catch (error) {
      this.fail(ctx, error);
      throw error;
    }
  }

  /**
   * The call's start, once its operation is known and before its request is read (the bindings
   * call it where they would authenticate, also when the server authenticates nobody), so that a
   * call refused while its request is read is reported (`fail`) on every binding alike.
   */
  open(operation: string, ctx: CallContext): void {
    ctx.observation ??= new CallObservation(operation, ctx);
  }

  /**
   * The end of a call that failed before a handler call claimed its observation (authenticated,
   * then refused while its request was read: a body that does not parse, an id in the body that
   * differs from the path, a 0.3 request that does not translate), with the error's reason.
   * Nothing when no observation is open or one ended or was claimed already (its owner reports it).
   */
  fail(ctx: CallContext, error: unknown): void {
    const observation = ctx.observation;
    if (!observation || observation.claimed) return;
    observation.claimed = true;
    this.end(ctx, { observation, outcome: toA2AError(error).reason });
  }

  /**
   * A unary call (or a composite one): reported when `run` settles, unless an outer observation
   * owns it (which then notes the task of the answer).
   */
  async unary<T>(operation: OperationName, ctx: CallContext, run: () => Promise<T>): Promise<T> {
    const observation = this.claim(operation, ctx);
    if (!observation) {
      const result = await run();
      ctx.observation?.answer(result);
      return result;
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      this.end(ctx, { observation, outcome: toA2AError(error).reason });
      throw error;
    }
    observation.answer(result);
    this.end(ctx, { observation, outcome: 'ok' });
    return result;
  }

  /** A streaming call: a refusal before the first event is reported at once, else when the stream ends. */
  async stream(operation: OperationName, ctx: CallContext, open: () => Promise<AsyncIterable<StreamItem>>): Promise<PushStream<StreamItem>> {
    const observation = this.claim(operation, ctx);
    if (!observation) return toPushStream(await open());
    let items: AsyncIterable<StreamItem>;
    try {
      items = await open();
    } catch (error) {
      this.end(ctx, { observation, outcome: toA2AError(error).reason, events: 0 });
      throw error;
    }
    const binding = ctx.binding ?? '';
    this.streamsOpen.set(binding, (this.streamsOpen.get(binding) ?? 0) + 1);
    // Counts what the consumer is passed, and tells how the stream ended, once.
    let events = 0;
    return relay(toPushStream(items), {
      item: (item) => {
        if (events++ === 0) observation.answer(item.event);
      },
      settled: (how, error) => {
        this.streamsOpen.set(binding, (this.streamsOpen.get(binding) ?? 1) - 1);
        this.end(ctx, { observation, outcome: how === 'error' ? toA2AError(error).reason : 'ok', events, streamEnd: how });
      },
    });
  }

  /** The call's observation to own, or undefined when an outer one owns it already. */
  private claim(operation: string, ctx: CallContext): CallObservation | undefined {
    const existing = ctx.observation;
    if (existing?.claimed) return undefined;
    const observation = existing ?? (ctx.observation = new CallObservation(operation, ctx));
    observation.claimed = true;
    observation.operation = operation;
    return observation;
  }

  private end(ctx: CallContext, end: { observation: CallObservation; outcome: string; events?: number; streamEnd?: StreamEnd }): void {
    const { observation } = end;
    const record: CallRecord = {
      ...(ctx.binding ? { binding: ctx.binding } : {}),
      operation: observation.operation,
      protocolVersion: ctx.protocolVersion,
      tenant: observation.tenant,
      ...(ctx.principal ? { principal: ctx.principal.id } : {}),
      outcome: end.outcome,
      durationMs: performance.now() - observation.startedAt,
      ...(end.events !== undefined ? { events: end.events } : {}),
      ...(end.streamEnd ? { streamEnd: end.streamEnd } : {}),
      ...(observation.taskId ? { taskId: observation.taskId } : {}),
      ...(observation.remoteAddress ? { remoteAddress: observation.remoteAddress } : {}),
    };
    const context = { operation: observation.operation, ...(observation.tenant ? { tenant: observation.tenant } : {}) };
    try {
      const returned = (this.hook as (call: CallRecord) => unknown)(record);
      if (returned instanceof Promise) returned.catch((error: unknown) => this.onError(error, context));
    } catch (error) {
      this.onError(error, context);
    }
  }
}

/**
 * `run` observed as one call for the `onCall` hook, the handler calls inside adding to it: a 0.3
 * call answered by several handler calls, and every binding's answer with its encoding, so that
 * an answer that cannot be encoded (or translated) is reported as the error the client receives.
 */
export function observed<T>(handler: Pick<A2ARequestHandler, 'calls'>, call: { operation: OperationName; ctx: CallContext }, run: () => Promise<T>): Promise<T> {
  return handler.calls ? handler.calls.unary(call.operation, call.ctx, run) : run();
}

function requestTaskId(req: { id?: unknown; taskId?: unknown; message?: { taskId?: unknown } }): string | undefined {
  const id = req.taskId ?? req.id ?? req.message?.taskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The task of a SendMessage answer or a stream event (a Task, a status or artifact update, a message). */
function answerTaskId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { id?: unknown; status?: unknown; task?: { id?: unknown }; message?: { taskId?: unknown }; statusUpdate?: { taskId?: unknown }; artifactUpdate?: { taskId?: unknown } };
  const id = v.task?.id ?? v.statusUpdate?.taskId ?? v.artifactUpdate?.taskId ?? v.message?.taskId ?? (v.status !== undefined ? v.id : undefined);
  return typeof id === 'string' && id !== '' ? id : undefined;
}
