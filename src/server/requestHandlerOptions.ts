/**
 * The request handler's inputs: what a binding knows about each call (CallContext) and the
 * options the handler is built with (RequestHandlerOptions).
 */
import type { AgentCard } from '../protocol/types.js';
import type { DecodeLimits } from '../protocol/decode.js';
import type { TaskLimits } from './taskLimits.js';
import type { AgentExecutor } from './agentExecutor.js';
import type { EventBus } from './eventBus.js';
import type { ExtendedCardSource } from './extendedCard.js';
import type { TaskStore } from './stores/taskStore.js';
import type { PushOptions } from '../push/pushOptions.js';
import type { Principal } from '../auth/principal.js';
import type { AbuseLimitOptions } from './abuseLimits.js';
import type { ErrorHook } from './errorHook.js';
import type { LeaseStore } from './stores/leaseStore.js';
import type { LeaseOptions } from './leases.js';
import type { CallBinding, CallHook, CallObservation } from './callObserver.js';

/** What a binding knows about the call besides its parameters. */
export interface CallContext {
  /** Negotiated protocol version (VER rules). */
  protocolVersion: string;
  /** Extensions listed in A2A-Extensions. */
  requestedExtensions: readonly string[];
  /** Aborted when the caller goes away; tasks keep running (STREAM-06). */
  signal?: AbortSignal;
  /** SSE Last-Event-ID: resume a task stream after this sequence number (R7). */
  lastEventId?: number | undefined;
  /** The authenticated caller, when the server enforces the card's security schemes (issue 8). */
  principal?: Principal | undefined;
  /** The caller's network address (keys the abuse limits of anonymous callers). */
  remoteAddress?: string;
  /**
   * The server's authenticator checked this call (also when it let an anonymous caller through):
   * callers are told apart, so an anonymous caller ('') is one caller among others, not everyone.
   */
  authChecked?: boolean;
  /** The binding the call came on (set by the bindings; read by the `onCall` hook). */
  binding?: CallBinding;
  /** The call's observation, while an `onCall` hook observes it (callObserver.ts). */
  observation?: CallObservation | undefined;
}

export interface RequestHandlerOptions {
  agentCard: AgentCard;
  executor: AgentExecutor;
  store?: TaskStore;
  bus?: EventBus;
  /**
   * The card returned by GetExtendedAgentCard (XCARD rules): a complete card (checked here:
   * construction throws on a card missing a required member, CARD-03 / XCARD-05), or
   * `(ctx) => card`, made per call and checked then (an incomplete card, or a throw, is answered
   * with InternalError and reported to onError; see extendedCard.ts).
   */
  extendedAgentCard?: ExtendedCardSource<AgentCard>;
  /** Ids of new tasks, contexts, messages and artifacts (default: time-ordered UUIDv7, timeOrderedId.ts). */
  newId?: () => string;
  /**
   * Input limits: the decoder's (`maxListLength`, `maxObjectKeys`, `maxStringLength`), the
   * caps on a task's history (`maxHistoryMessages`, `maxHistoryChars`, R16) and on one ListTasks
   * answer (`maxListResponseChars`); each defaults.
   */
  limits?: Partial<DecodeLimits & TaskLimits>;
  /** Most events buffered for one slow stream consumer (R10; default 10,000). */
  maxStreamBuffer?: number;
  /**
   * Most bytes of events buffered for one slow stream consumer (R10; default 8 MiB): their JSON
   * length, strings by characters, measured once per event. One event always fits.
   */
  maxStreamBufferBytes?: number;
  /**
   * How long a stream stays open once its task reaches AUTH_REQUIRED, waiting for the agent to
   * resume on a credential delivered out-of-band (§7.6.1, AUTHZ-03; digest decision A2). Any
   * event ends the wait; none within it ends the stream as at any interrupted state. A
   * SendStreamingMessage stream also ends as soon as its own run is over (the agent returned).
   * Default 0: streams end at AUTH_REQUIRED at once. A2A 0.3 streams always do (their
   * `final: true` says so).
   */
  authRequiredStreamMs?: number;
  /**
   * Called with agent and internal failures, and with what the failure concerned (ErrorContext:
   * operation, task and context ids, tenant; never request bodies or headers). Default: logError,
   * the error with its stack on console.error; `() => {}` silences it.
   */
  onError?: ErrorHook;
  /**
   * Called once per A2A call when it ends, on every binding (CallRecord: binding, operation,
   * version, tenant, principal id, outcome, duration, a stream's events and end, task id, remote
   * address; never a token, header or body). Agent card requests are not calls. Without it nothing
   * is observed. A hook that throws is reported to onError and ignored. See callObserver.ts.
   */
  onCall?: CallHook;
  /** Push notification settings; used when the card declares `capabilities.pushNotifications`. */
  push?: PushOptions;
  /**
   * Several instances on one store: runs hold execution leases, tasks of a dead instance are
   * taken over, and a cancel written by another instance stops the agent here. The lease store
   * defaults to the task store.
   */
  leases?: Omit<LeaseOptions, 'store'> & { store?: LeaseStore };
  /**
   * The agent can be run again on a task whose instance died (with the task's last user message
   * and `ctx.task` set); otherwise such a task becomes FAILED.
   */
  resumable?: boolean;
  /** R25: per-caller request rate and streams, tasks per context (all off by default). */
  abuseLimits?: AbuseLimitOptions;
  /**
   * The deadline of the agent's cancel() (CancelContext.signal, default 30 s). A cancel() still
   * running then is no longer waited for: the task is canceled anyway.
   */
  cancelTimeoutMs?: number;
}
