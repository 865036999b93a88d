/**
 * The transport-agnostic A2A service: the eleven operations with the specification's semantics.
 * JSON-RPC, REST and gRPC are codecs over `unary()` and `stream()`; nothing else implements an
 * operation. Requests arrive as untrusted JSON and are validated here, once, for every binding.
 */
import { decodeRequest } from '../protocol/operations.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../protocol/decode.js';
import { taskLimits } from './taskLimits.js';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  InternalError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
import { checkRequiredExtensions } from '../protocol/serviceParams.js';
import { isTerminalState } from '../protocol/taskStates.js';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  OperationName,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  UnaryOperationName,
  OperationRequests,
  OperationResponses,
  StreamingOperationName,
} from '../protocol/types.js';
import type { AgentExecutor } from './agentExecutor.js';
import type { TaskUpdater } from './taskUpdater.js';
import { LocalEventBus, type EventBus } from './eventBus.js';
import type { Outcome } from './execution.js';
import { storeOutOfReach } from './storePatience.js';
import { detachedExecution, takeOverTask } from './detachedRun.js';
import { settleCutOffRuns } from './cutOffRuns.js';
import { requireCompleteCard } from './cardProblems.js';
import { resolveExtendedCard } from './extendedCard.js';
import { duplicateOf, settledAnswer, startExecution, type MessageRunDeps } from './messageRun.js';
import { MemoryTaskStore } from './stores/memoryStore.js';
import type { TaskStore } from './stores/taskStore.js';
import { shapeTask } from './taskShape.js';
import { getTask, listTasks, ownerOf, requireTask } from './taskQueries.js';
import { onSettled, toPushStream, type PushStream } from './pushStream.js';
import { readTaskStream, singleItem, type StreamItem, type TaskStreamOptions } from './taskStream.js';
import { timeOrderedId } from './timeOrderedId.js';
import { TaskWriter } from './taskWriter.js';
import type { PushRuntime } from '../push/pushOptions.js';
import type { LeaseKeeper, LeaseOptions } from './leases.js';
import { warnLocalBusOnSharedStore } from './sharedStoreCheck.js';
import { TaskRunner } from './taskRunner.js';
import { AbuseLimits } from './abuseLimits.js';
import { logError, type ErrorHook } from './errorHook.js';
import { isLeaseStore } from './stores/leaseStore.js';
import { CallObserver } from './callObserver.js';

import type { CallContext, RequestHandlerOptions } from './requestHandlerOptions.js';

export type { CallContext, RequestHandlerOptions } from './requestHandlerOptions.js';
export { INSTANCE_STOPPED_MESSAGE } from './detachedRun.js';

export class A2ARequestHandler {
  readonly agentCard: AgentCard;
  readonly store: TaskStore;
  readonly bus: EventBus;
  private readonly writer: TaskWriter;
  private readonly executor: AgentExecutor;
  private readonly newId: () => string;
  /** Agent runs: one per task at a time, cancel handles, leases across instances. */
  private readonly runner: TaskRunner;
  private readonly abuse: AbuseLimits | undefined;
  /** Push configs and their delivery worker, when the card declares push notifications. */
  readonly push: PushRuntime | undefined;
  /** What runs of the agent need: those messages start (messageRun.ts), takeovers and cancel hooks (detachedRun.ts). */
  private readonly runDeps: MessageRunDeps;
  private readonly decodeLimits: DecodeLimits;
  /** options.onError, or the default logError. */
  readonly onError: ErrorHook;
  /** Aborted when drain() begins: blocking retries waiting for another instance's run stop (settledElsewhere.ts). */
  private readonly closing = new AbortController();
  /** Observes every call for options.onCall; undefined without it. */
  readonly calls: CallObserver | undefined;

  constructor(private readonly options: RequestHandlerOptions) {
    const onError = (this.onError = options.onError ?? logError);
    this.agentCard = options.agentCard;
    const extended = options.extendedAgentCard;
    if (extended !== undefined && typeof extended !== 'function') requireCompleteCard(extended, { path: 'extendedAgentCard', interfaces: 'given' });
    this.calls = options.onCall ? new CallObserver(options.onCall, onError) : undefined;
    this.executor = options.executor;
    this.store = options.store ?? new MemoryTaskStore();
    this.bus = options.bus ?? new LocalEventBus();
    warnLocalBusOnSharedStore({ store: this.store, busGiven: options.bus !== undefined, onError });
    this.newId = options.newId ?? timeOrderedId;
    const limits = options.limits;
    this.decodeLimits = {
      maxListLength: limits?.maxListLength ?? DEFAULT_DECODE_LIMITS.maxListLength,
      maxObjectKeys: limits?.maxObjectKeys ?? DEFAULT_DECODE_LIMITS.maxObjectKeys,
      maxStringLength: limits?.maxStringLength ?? DEFAULT_DECODE_LIMITS.maxStringLength,
    };
    this.push = this.agentCard.capabilities.pushNotifications === true ? this.startPush(options) : undefined;
    this.abuse = options.abuseLimits ? new AbuseLimits(options.abuseLimits) : undefined;
    this.runner = new TaskRunner({
      bus: this.bus,
      leases: options.leases ? this.leaseOptions(options.leases) : undefined,
      takeOver: (lease) => takeOverTask(this.runDeps, lease),
      onError,
    });
    this.writer = new TaskWriter(this.store, this.bus, this.push?.onWritten);
    this.runDeps = {
      writer: this.writer,
      executor: this.executor,
      newId: this.newId,
      onError,
      store: this.store,
      runner: this.runner,
      resumable: options.resumable === true,
      agentCard: this.agentCard,
      push: this.push,
      abuse: this.abuse,
      taskLimits: taskLimits(options.limits),
      bus: this.bus,
      closing: this.closing.signal,
    };
  }

  private startPush(options: RequestHandlerOptions): PushRuntime {
    const runtime = options.push?.runtime;
    if (!runtime) {
      throw new Error(
        'capabilities.pushNotifications: no push runtime configured; use serveAgent() or pass push: { runtime: nodePushRuntime } from a2a-kit/node',
      );
    }
    return runtime({
      store: this.store,
      options: options.push ?? {},
      requireTask: (tenant, taskId, owner) => requireTask(this.store, { tenant, id: taskId }, owner),
      newId: this.newId,
      onError: this.onError,
    });
  }

  private leaseOptions(options: NonNullable<RequestHandlerOptions['leases']>): LeaseOptions {
    const store = options.store ?? this.store;
    if (!isLeaseStore(store)) throw new Error('leases: the task store cannot keep execution leases');
    return { ...options, store };
  }

  /** R25 / SEC-06 abuse limits, when configured: the bindings charge failed authentications to them. */
  get abuseLimits(): AbuseLimits | undefined {
    return this.abuse;
  }

  /** Agent runs in progress (one per task at a time; runs queued behind them are not counted). */
  get runsActive(): number {
    return this.runner.activeRuns;
  }

  /** Execution leases, when several instances share the store. */
  get leases(): LeaseKeeper | undefined {
    return this.runner.leases;
  }

  /** Runs a non-streaming operation on raw (untrusted) parameters. */
  unary<K extends UnaryOperationName>(op: K, params: unknown, ctx: CallContext): Promise<OperationResponses[K]> {
    // Not async itself: without a hook the call is one async function deep, as it always was.
    if (this.calls === undefined) return this.perform(op, params, ctx);
    return this.calls.unary(op, ctx, () => this.perform(op, params, ctx));
  }

  /** Capabilities, the caller's request budget, then the request decoded (noted by the call's observation). */
  private admit<K extends OperationName>(op: K, params: unknown, ctx: CallContext): OperationRequests[K] {
    this.gate(op, ctx);
    // Charged before decoding: malformed requests count against the caller too.
    this.abuse?.request(ctx);
    const req = decodeRequest(op, params ?? {}, this.decodeLimits);
    ctx.observation?.request(req);
    return req;
  }

  private async perform<K extends UnaryOperationName>(op: K, params: unknown, ctx: CallContext): Promise<OperationResponses[K]> {
    const req = this.admit(op, params, ctx);
    switch (op) {
      case 'sendMessage':
        return (await this.sendMessage(req as SendMessageRequest, ctx)) as OperationResponses[K];
      case 'getTask':
        return (await getTask(this.store, req as GetTaskRequest, ownerOf(ctx))) as OperationResponses[K];
      case 'listTasks':
        return (await listTasks(this.store, req as ListTasksRequest, {
          owner: ownerOf(ctx),
          maxListResponseChars: this.runDeps.taskLimits.maxListResponseChars,
        })) as OperationResponses[K];
      case 'cancelTask':
        return (await this.cancelTask(req as CancelTaskRequest, ctx)) as OperationResponses[K];
      case 'getExtendedAgentCard':
        return (await this.getExtendedAgentCard(ctx)) as OperationResponses[K];
      default:
        // The four push config operations; gate() refused them unless push is declared.
        if (!this.push) throw new PushNotificationNotSupportedError();
        return (await this.push.configs.operation(op, req, { owner: ownerOf(ctx), protocolVersion: ctx.protocolVersion })) as OperationResponses[K];
    }
  }

  /**
   * Starts a streaming operation. Errors found before the first event are thrown here, so
   * bindings answer them as ordinary errors (STREAM-12).
   */
  stream(op: StreamingOperationName, params: unknown, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    if (this.calls === undefined) return this.openCallStream(op, params, ctx);
    return this.calls.stream(op, ctx, () => this.openCallStream(op, params, ctx)).then((stream) => stream.abortWhen(ctx));
  }

  private async openCallStream(op: StreamingOperationName, params: unknown, ctx: CallContext): Promise<PushStream<StreamItem>> {
    const req = this.admit(op, params, ctx);
    // Pulling consumers (fetch bodies, tests) end on the call's signal; piping ones (SSE, gRPC) close the stream.
    if (!this.abuse) return toPushStream(await this.openOperationStream(op, req, ctx)).abortWhen(ctx);
    const release = this.abuse.openStream(ctx);
    try {
      // The stream counts against the caller's limit until it ends, fails or its consumer stops.
      return onSettled(toPushStream(await this.openOperationStream(op, req, ctx)), release).abortWhen(ctx);
    } catch (error) {
      release();
      throw error;
    }
  }

  private openOperationStream(op: StreamingOperationName, req: SubscribeToTaskRequest | SendMessageRequest, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    if (op === 'subscribeToTask') return this.subscribeToTask(req as SubscribeToTaskRequest, ctx);
    return this.sendStreamingMessage(req as SendMessageRequest, ctx);
  }

  /** Capability gating before anything else (CAP-01..04, CAP-06). */
  private gate(op: OperationName, ctx: CallContext): void {
    const caps = this.agentCard.capabilities;
    if ((op === 'sendStreamingMessage' || op === 'subscribeToTask') && caps.streaming !== true) {
      throw new UnsupportedOperationError('Streaming is not supported by this agent', { metadata: { operation: op } });
    }
    if ((op.endsWith('PushNotificationConfig') || op === 'listTaskPushNotificationConfigs') && caps.pushNotifications !== true) {
      throw new PushNotificationNotSupportedError(undefined, { metadata: { operation: op } });
    }
    if (op === 'getExtendedAgentCard' && caps.extendedAgentCard !== true) {
      throw new UnsupportedOperationError('This agent has no extended agent card', { metadata: { operation: op } });
    }
    checkRequiredExtensions(this.agentCard, ctx.requestedExtensions);
  }

  private async sendMessage(req: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    // R4: a retry of a message already received is answered from its task; the agent does not run again.
    const immediately = req.configuration?.returnImmediately === true;
    const caller = { owner: ownerOf(ctx), waits: ctx };
    const duplicate = await duplicateOf(this.runDeps, req, immediately ? { owner: caller.owner } : caller);
    if (duplicate) return this.toResponse({ kind: 'task', record: duplicate }, req.configuration?.historyLength);
    const execution = await startExecution(this.runDeps, req, { ctx, answer: immediately ? 'started' : 'settled' });
    return this.toResponse(await (immediately ? execution.started : settledAnswer(this.runDeps, execution, caller)), req.configuration?.historyLength);
  }

  private async sendStreamingMessage(req: SendMessageRequest, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    const existing = req.message.taskId !== undefined;
    const tenant = req.tenant ?? '';
    const historyLength = req.configuration?.historyLength;
    const duplicate = await duplicateOf(this.runDeps, req, { owner: ownerOf(ctx) });
    // R4: a retried stream follows the task its first delivery started, from its current snapshot.
    if (duplicate) return this.openStream({ tenant, taskId: duplicate.task.id, start: 'snapshot', historyLength }, ctx);
    const execution = await startExecution(this.runDeps, req, { ctx, answer: 'started' });
    const first = await execution.started;
    if (first.kind === 'refused') throw first.error;
    if (first.kind === 'message') return singleItem({ event: { message: first.message } });
    if (existing) {
      // STREAM-03: a follow-up stream starts at once with the Task as this message left it (the
      // message in its history), then the task's events, however fast the agent is. Its run may
      // wait for an earlier one: an interrupted state that earlier run writes does not end it.
      return this.openStream({ tenant, taskId: execution.taskId, start: { record: first.record }, historyLength, runBegun: execution.begun, runEnded: execution.ran }, ctx);
    }
    // A concurrent duplicate answers with the first delivery's task, not the id it was given.
    if (first.record.task.id !== execution.taskId) return this.openStream({ tenant, taskId: first.record.task.id, start: 'snapshot', historyLength }, ctx);
    return this.openStream({ tenant, taskId: execution.taskId, start: 0, historyLength, runEnded: execution.ran }, ctx);
  }

  private async subscribeToTask(req: SubscribeToTaskRequest, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    const tenant = req.tenant ?? '';
    const record = await requireTask(this.store, { tenant, id: req.id }, ownerOf(ctx));
    if (ctx.lastEventId !== undefined) return this.openStream({ tenant, taskId: req.id, start: ctx.lastEventId }, ctx);
    if (isTerminalState(record.task.status.state)) {
      throw new UnsupportedOperationError(`Task ${req.id} is in a terminal state and cannot be subscribed to`, { metadata: { taskId: req.id } });
    }
    return this.openStream({ tenant, taskId: req.id, start: 'snapshot' }, ctx);
  }

  private openStream(
    target: Pick<TaskStreamOptions, 'tenant' | 'taskId' | 'start' | 'historyLength' | 'runBegun' | 'runEnded'>,
    ctx: CallContext,
  ): AsyncIterable<StreamItem> {
    const { authRequiredStreamMs } = this.options;
    return readTaskStream({
      store: this.store,
      bus: this.bus,
      ...target,
      ...(this.options.maxStreamBuffer ? { maxBuffered: this.options.maxStreamBuffer } : {}),
      ...(this.options.maxStreamBufferBytes ? { maxBufferedBytes: this.options.maxStreamBufferBytes } : {}),
      // A2: open at AUTH_REQUIRED for a while; not for 0.3 clients, told `final: true` there.
      ...(authRequiredStreamMs && ctx.protocolVersion !== '0.3' ? { authRequiredMs: authRequiredStreamMs } : {}),
    });
  }

  private async cancelTask(req: CancelTaskRequest, ctx: CallContext): Promise<Task> {
    const tenant = req.tenant ?? '';
    const record = await requireTask(this.store, { tenant, id: req.id }, ownerOf(ctx));
    const notCancelable = () =>
      new TaskNotCancelableError(`Task ${req.id} is in a terminal state and cannot be canceled`, { metadata: { taskId: req.id } });
    if (isTerminalState(record.task.status.state)) throw notCancelable();
    const updater = detachedExecution(this.runDeps, record);
    if (this.executor.cancel) await this.agentCancel(this.executor.cancel.bind(this.executor), { task: record.task, tenant, updater });
    // CANCELED is written before the running agent is stopped, so whatever it does next is
    // dropped (LIFE-02) and blocking callers see the canceled task (MSG-01).
    if (!updater.isTerminal) await updater.cancelByServer();
    this.runner.abort(tenant, req.id);
    const after = (await requireTask(this.store, { tenant, id: req.id }, ownerOf(ctx))).task;
    // R5: if the agent finished first, this cancel changed nothing: the task is not cancelable.
    if (after.status.state !== 'TASK_STATE_CANCELED') throw notCancelable();
    return after;
  }

  /** The card declares `capabilities.extendedAgentCard` and an extended card is configured (which needs authentication, §13.3). */
  get servesExtendedCard(): boolean {
    return this.agentCard.capabilities.extendedAgentCard === true && this.options.extendedAgentCard !== undefined;
  }

  /**
   * The agent's cancel(), until its signal's deadline: one that throws TaskNotCancelableError
   * refuses the cancel; one still running then is left behind (reported to onError), and the
   * cancel proceeds, so CancelTask never hangs on the agent. Any other error (an A2AError too,
   * such as the TASK_NOT_FOUND or UNAUTHENTICATED of a downstream agent the hook called) is the
   * agent's failure, not the caller's: it goes to onError, and the caller gets InternalError.
   */
  private async agentCancel(cancel: NonNullable<AgentExecutor['cancel']>, call: { task: Task; tenant: string; updater: TaskUpdater }): Promise<void> {
    const timeoutMs = this.options.cancelTimeoutMs ?? 30_000;
    const deadline = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => {
        deadline.abort(new DOMException('cancel() deadline reached', 'TimeoutError'));
        resolve('deadline');
      }, timeoutMs);
    });
    // Called in a microtask, so that one throwing at once also ends up in the race below.
    const running = Promise.resolve().then(() => cancel({ task: call.task, tenant: call.tenant, signal: deadline.signal }, call.updater));
    const context = { operation: 'cancelTask', taskId: call.task.id, ...(call.task.contextId ? { contextId: call.task.contextId } : {}), tenant: call.tenant };
    try {
      if ((await Promise.race([running, expired])) !== 'deadline') return;
    } catch (error) {
      if (A2AError.is(error) && error.reason === 'TASK_NOT_CANCELABLE') throw error;
      // The task's own writes (through the updater) failing on the store: UNAVAILABLE, retryable (R19).
      const outage = storeOutOfReach(error);
      if (outage) throw outage;
      this.onError(error, context);
      throw new InternalError('The agent failed while canceling this task');
    } finally {
      clearTimeout(timer);
    }
    running.catch((error: unknown) => this.onError(error, context));
    this.onError(new Error(`cancel() of task ${call.task.id} did not finish within ${timeoutMs} ms; the task is canceled without it`), context);
  }

  private async getExtendedAgentCard(ctx: CallContext): Promise<AgentCard> {
    const source = this.options.extendedAgentCard;
    if (!source) throw new ExtendedAgentCardNotConfiguredError();
    return resolveExtendedCard(source, ctx);
  }

  private toResponse(outcome: Outcome, historyLength: number | undefined): SendMessageResponse {
    if (outcome.kind === 'refused') throw outcome.error;
    if (outcome.kind === 'message') return { message: outcome.message };
    return { task: shapeTask(outcome.record.task, { historyLength }) };
  }

  /**
   * Graceful shutdown: waits for running executions, aborts them after `timeoutMs`, waits
   * SHUTDOWN_GRACE_MS more, then settles the runs cut short (cutOffRuns.ts) and stops waiting.
   * Blocking retries waiting for a run on another instance are answered UNAVAILABLE at once.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.closing.abort();
    await this.runner.drain({ timeoutMs, onCutOff: (tasks) => settleCutOffRuns(this.runDeps, tasks) });
    // Deliveries not yet made stay in the outbox for the next start.
    await this.push?.dispatcher?.stop();
  }
}

