/**
 * One run of an agent for one incoming message. It owns the TaskUpdater given to the agent,
 * turns every call into a compare-and-set write of the task (via TaskWriter), and exposes two
 * moments the request handler waits for: `started` (a reply or the task exists) and `settled`
 * (a reply, a terminal or interrupted state, or the agent returned).
 */
import { applyArtifact, applyStatus, appendUserMessage } from '../protocol/applyEvent.js';
import { InternalError, StoreUnavailableError, UnsupportedOperationError, invalidField, type A2AError } from '../protocol/errors.js';
import { isFinalForNow, isTerminalState } from '../protocol/taskStates.js';
import type { Artifact, JsonObject, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '../protocol/types.js';
import type { AgentExecutor } from './agentExecutor.js';
import { AgentWrites, checkTransition, checkedMessage, checkedMetadata, checkedStatus, partsOf } from './agentWrites.js';
import type { ErrorHook } from './errorHook.js';
import { RunContext, type RequestFields } from './runContext.js';
import { DuplicateMessageError, type MessageClaim, type TaskRecord } from './stores/taskStore.js';
import type { StoredPushConfig } from './stores/pushStore.js';
import { isWhole, type ArtifactOptions, type Content, type StatusMessage, type StatusOptions, type TaskUpdater, type WholeArtifact, type WholeMessage } from './taskUpdater.js';
import type { TaskWriter } from './taskWriter.js';
import { followUpRefusal, type TaskLimits } from './taskLimits.js';
import { LeaseLostError } from './leases.js';
import { UnprocessedMessageError } from './unprocessedMessage.js';
import { patiently, storeOutOfReach, type Deadline, type WriteDeadline } from './storePatience.js';

export type Outcome =
  | { kind: 'message'; message: Message }
  | { kind: 'task'; record: TaskRecord }
  /** The message was refused before the agent ran (for example its task ended meanwhile). */
  | { kind: 'refused'; error: unknown };

export interface ExecutionInput {
  writer: TaskWriter;
  executor: AgentExecutor;
  context: RequestFields;
  /** The existing task record when the message continues a task. */
  existing: TaskRecord | undefined;
  /** Aborted when the task is canceled or the server shuts down. */
  abort: { readonly signal: AbortSignal };
  newId: () => string;
  /** Hears of agent failures (with this run's ids), and of agent writes ignored after the task ended. */
  onError?: ErrorHook | undefined;
  /** R4: recorded with the write this message causes (the creation, or the follow-up). */
  claim?: MessageClaim;
  /** PUSH-09: registered with the task when this run creates it. */
  pushConfig?: StoredPushConfig;
  /** Who the task belongs to when this run creates it (the caller's principal id, '' anonymous). */
  owner?: string;
  /**
   * The message is already in the existing task's history: a re-run after a takeover, or a
   * follow-up accepted (`accept()`) before its run began. The run does not add it again, and the
   * agent does not run if the task ended meanwhile.
   */
  recorded?: boolean;
  /** returnImmediately: the run stores the task (SUBMITTED) before the agent is called. */
  createFirst?: boolean;
  /** R16: caps a follow-up message must fit in (none: not checked). */
  taskLimits?: TaskLimits;
  /**
   * TENANT-06: the server minted this run's context for a caller whose contexts are owned. A
   * message reply leaves no task to say whose the context is, so the reply records its owner
   * (TaskStore.claimContext) before it is answered.
   */
  recordContext?: boolean;
}

/**
 * The refusal a caller gets when the run's outcome could not be stored (never a stale task):
 * UNAVAILABLE when the store could not be reached (a retry of the message is answered by R4),
 * else INTERNAL.
 */
function outcomeNotStored(cause?: unknown): A2AError {
  if (cause instanceof StoreUnavailableError) return cause;
  return new InternalError('The server could not store the outcome of this task');
}

/** The task a run fails with `error` records as its reason. */
function failureReason(error: unknown): string {
  return storeOutOfReach(error)
    ? 'The task store could not be reached for too long while processing this message'
    : 'The agent failed while processing this message';
}

let lastMs = 0;
let lastIso = '';
/** ISO timestamp with millisecond precision, formatted at most once per millisecond. */
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export class Execution implements TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  readonly started: Promise<Outcome>;
  readonly settled: Promise<Outcome>;
  /**
   * The seq of the task when the agent is called (its earlier events belong to earlier runs), or
   * undefined when the agent will not run for this message (refused, or the task ended first).
   */
  readonly begun: Promise<number | undefined>;
  private resolveStarted!: (o: Outcome) => void;
  private resolveSettled!: (o: Outcome) => void;
  private resolveBegun!: (seq: number | undefined) => void;
  private record: TaskRecord | undefined;
  private replied: Message | undefined;
  private terminal = false;
  /** The creation of the task while it runs (the first update's write). */
  private creating: Promise<TaskRecord> | undefined;
  /** R4: a concurrent duplicate of this message created its task first. */
  private duplicateOf: DuplicateMessageError | undefined;
  /** Throws when this run may no longer write (its execution lease is lost). */
  private guard: (() => void) | undefined;
  private leaseOwner: string | undefined;
  /** R2: until when the run's writes outlive a store outage (its lease deadline; none: each gets STORE_PATIENCE_MS). */
  private leaseDeadline: Deadline | undefined;
  /** accept() recorded the follow-up and answered its caller: what becomes of its run is only reported. */
  private accepted = false;
  /** The agent was called for this run's message. */
  private called = false;
  /** Checks of what the agent writes (agentWrites.ts). */
  private readonly writes = new AgentWrites((error) => this.report(error));
  /** The run itself (not the agent) is writing: such a write, if ignored, is not the agent's. */
  private libraryWriting = false;
  /** The record of a message reply's context (recordContext): false when it could not be stored. */
  private contextRecorded: Promise<boolean> | undefined;

  constructor(private readonly input: ExecutionInput) {
    this.taskId = input.context.taskId;
    this.contextId = input.context.contextId;
    this.record = input.existing;
    this.started = new Promise((resolve) => (this.resolveStarted = resolve));
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
    this.begun = new Promise((resolve) => (this.resolveBegun = resolve));
  }

  /**
   * R3: `check` runs before every write of this run and throws when it may no longer write (the
   * instance lost the task's execution lease, so another may be running it); `leaseOwner` goes
   * with each write, so the store refuses one that passed the check but lands after the lease
   * was lost (the process paused between the two, say). A write the store cannot take is retried
   * until `deadline` (the lease's), not after: another instance may take the task over then.
   */
  fence(lease: { check: () => void; owner: string; deadline: Deadline }): void {
    this.guard = lease.check;
    this.leaseOwner = lease.owner;
    this.leaseDeadline = lease.deadline;
  }

  /** The deadline of one write: the lease's, or STORE_PATIENCE_MS from its first failure without a lease. */
  private until(): WriteDeadline {
    return this.leaseDeadline ?? 'patience';
  }

  get isTerminal(): boolean {
    return this.terminal;
  }

  /**
   * The message is in its task's history already (a follow-up accepted before its run, or a
   * re-run after a takeover): its caller, if any, was answered, so the run is owed. Otherwise
   * nothing of the message is stored until the run begins.
   */
  get recorded(): boolean {
    return this.accepted || this.input.recorded === true;
  }

  /** Runs the agent; never rejects: agent failures become a FAILED task. */
  async run(): Promise<void> {
    const { context, abort } = this.input;
    try {
      if (this.record && this.input.recorded) {
        if (!(await this.stillOpen())) return;
      } else if (this.record) {
        // A follow-up message joins the history of its task now (it may have waited for a previous run).
        if (!(await this.accept())) return;
      } else if (this.input.createFirst) {
        // returnImmediately: the caller is answered with the stored task, not after the agent's first call.
        await this.submit();
      }
      this.resolveBegun(this.record?.seq ?? 0);
      this.called = true;
      await this.input.executor.execute(new RunContext(context, abort), this);
    } catch (error) {
      if (error instanceof DuplicateMessageError) this.duplicateOf = error;
      if (this.duplicateOf) {
        await this.answerDuplicate(this.duplicateOf);
        return;
      }
      // A lost lease was reported when it was lost; the run only stops writing.
      if (!(error instanceof LeaseLostError)) this.report(error);
      if (!this.replied && !this.record && storeOutOfReach(error)) {
        // Not even the task could be stored: nothing to fail, the caller may retry (R4).
        this.refuse(outcomeNotStored(error));
        return;
      }
      // The error itself goes to onError (logs), not to the client: it may hold internals.
      if (!this.replied && !this.terminal && !this.fencedOut() && !(await this.failSafely(failureReason(error)))) return;
    }
    if (this.duplicateOf) {
      // The agent swallowed the refused write: its run still answers as the duplicate it is.
      await this.answerDuplicate(this.duplicateOf);
      return;
    }
    if (!this.replied && !this.record) {
      const lost = this.fencedOut();
      if (lost) {
        this.refuse(lost);
        return;
      }
      // The agent returned without answering: record that as a failed task, never hang.
      if (!(await this.failSafely('The agent returned without a response'))) return;
    }
    if (this.record && !isTerminalState(this.record.task.status.state)) {
      // Others may have written since our last write (a cancel, say): answer with the latest.
      // A terminal task never changes again (LIFE-02), so the record we wrote is the latest.
      const { tenant } = this.input.context;
      this.record = (await this.input.writer.store.get(tenant, this.taskId).catch(() => undefined)) ?? this.record;
    }
    if (this.replied) await this.finishReply();
    else this.finish();
  }

  /** Answers with the reply once its context is recorded (recordContext); refused if that fails. */
  private async finishReply(): Promise<void> {
    if (!this.input.recordContext || (await (this.contextRecorded ??= this.recordContext()))) this.finish();
  }

  private async recordContext(): Promise<boolean> {
    try {
      // Outlives a short store outage as the run's writes do (R2).
      await patiently(this.until(), () => this.input.writer.store.claimContext(this.input.context.tenant, this.contextId, this.input.owner ?? ''));
      return true;
    } catch (error) {
      this.report(error);
      this.refuse(outcomeNotStored(error));
      return false;
    }
  }

  /** The error of the fence when this run may no longer write. */
  private fencedOut(): LeaseLostError | undefined {
    try {
      this.guard?.();
      return undefined;
    } catch (error) {
      if (error instanceof LeaseLostError) return error;
      throw error;
    }
  }

  /**
   * Adds the follow-up message to its task's history, with its R4 claim (a snapshot-only change,
   * no event), and answers `started` with the task as it left it. A task that ended meanwhile
   * refuses it (LIFE-03), a concurrent duplicate answers with its task: then false, and the
   * agent must not run. A store failure refuses it too (the message was not recorded), and so
   * does a message that no longer fits in the history (R16; nothing is dropped).
   */
  async accept(): Promise<boolean> {
    const { context, claim, taskLimits } = this.input;
    const message = context.message;
    let full: A2AError | undefined;
    try {
      this.guard?.();
      const { record } = await this.input.writer.update({ tenant: context.tenant, taskId: this.taskId, leaseOwner: this.leaseOwner, until: this.until() }, (r) => {
        if (isTerminalState(r.task.status.state)) return undefined;
        full = taskLimits && followUpRefusal(r.task, message, taskLimits);
        return full ? undefined : { task: appendUserMessage(r.task, message), events: [], ...(claim ? { claim } : {}) };
      });
      this.record = record;
    } catch (error) {
      if (error instanceof DuplicateMessageError) {
        this.duplicateOf = error;
        await this.answerDuplicate(error);
      } else {
        this.report(error);
        this.refuse(error);
      }
      return false;
    }
    if (full) {
      this.refuse(full);
      return false;
    }
    if (isTerminalState(this.record.task.status.state)) {
      this.refuse(new UnsupportedOperationError(`Task ${this.taskId} reached a terminal state before this message could be processed`, { metadata: { taskId: this.taskId } }));
      return false;
    }
    this.accepted = true;
    this.resolveStarted({ kind: 'task', record: this.record });
    return true;
  }

  /** An accepted follow-up whose run will not call the agent: said to onError (its caller was answered long ago). */
  private unprocessed(why: string, cause?: unknown): void {
    if (!this.accepted || this.called) return;
    const id = this.input.context.message.messageId;
    this.report(new UnprocessedMessageError(`Message ${id} joined task ${this.taskId}, but ${why}: the agent was not called for it`, { cause }));
  }

  /**
   * A run whose message is already in the history: reads the task as it is now. One that ended
   * meanwhile (an earlier run finished it) settles with it, and the agent does not run.
   */
  private async stillOpen(): Promise<boolean> {
    const latest = await this.input.writer.store.get(this.input.context.tenant, this.taskId);
    if (latest) this.record = latest;
    this.resolveStarted({ kind: 'task', record: this.record as TaskRecord });
    if (latest && !isTerminalState(latest.task.status.state)) return true;
    this.unprocessed(`an earlier run ended the task (${latest?.task.status.state ?? 'gone'}) before its turn`);
    this.terminal = true;
    this.finish();
    return false;
  }

  /** R4: answer with the task the first delivery of this message created or continued. */
  private async answerDuplicate(dup: DuplicateMessageError): Promise<void> {
    // Another principal's message id is "used" (as in duplicateOf), never an answer with its task.
    if ((this.input.claim && dup.existing.fingerprint !== this.input.claim.fingerprint) || dup.existing.owner !== (this.input.owner ?? '')) {
      this.refuse(invalidField('message.messageId', 'was already used for a different message'));
      return;
    }
    const record = await this.input.writer.store.get(this.input.context.tenant, dup.existing.taskId).catch(() => undefined);
    if (!record) {
      this.refuse(dup);
      return;
    }
    this.record = record;
    this.finish();
  }

  /** Answers the caller with `error`; the agent does not run (or its outcome is unknown). */
  refuse(error: unknown): void {
    this.unprocessed(`its run could not start (${error instanceof Error ? error.message : String(error)})`, error);
    this.resolveBegun(undefined);
    this.resolveStarted({ kind: 'refused', error });
    this.resolveSettled({ kind: 'refused', error });
  }

  /**
   * Writes FAILED with `reason`. When that write fails too, the task as stored is not the
   * outcome (it may still be SUBMITTED, or not exist): the caller gets an InternalError, never
   * that stale record. false: the run is over.
   */
  private async failSafely(reason: string): Promise<boolean> {
    try {
      await this.ownWrite(() => this.fail(reason));
      return true;
    } catch (error) {
      this.report(error);
      this.refuse(outcomeNotStored(error));
      return false;
    }
  }

  /** CancelTask's own CANCELED: like FAILED after an error, the library's write, not the agent's (never reported if ignored). */
  cancelByServer(): Promise<void> {
    return this.ownWrite(() => this.cancel());
  }

  /** A write the run itself (not the agent) makes: if it is ignored, that is not the agent's dropped write. */
  private async ownWrite(write: () => Promise<void>): Promise<void> {
    this.libraryWriting = true;
    try {
      await write();
    } finally {
      this.libraryWriting = false;
    }
  }

  /** To onError, with this run's ids. */
  private report(error: unknown): void {
    this.input.onError?.(error, { operation: 'execute', tenant: this.input.context.tenant, taskId: this.taskId, contextId: this.contextId });
  }

  /**
   * Shutdown gave up on this run (it ran past the deadline, or its turn had not come by then):
   * its caller gets `record`, the task as the server left it.
   */
  cutOff(record: TaskRecord): void {
    this.unprocessed('the server shut down before its turn');
    this.record = record;
    this.finish();
  }

  private finish(): void {
    if (!this.replied && !this.record) {
      this.refuse(outcomeNotStored());
      return;
    }
    const outcome: Outcome = this.replied ? { kind: 'message', message: this.replied } : { kind: 'task', record: this.record as TaskRecord };
    this.resolveBegun(undefined);
    this.resolveStarted(outcome);
    this.resolveSettled(outcome);
  }

  agentMessage(content: Content): Message {
    return checkedMessage('agentMessage', this.draftMessage('agentMessage', content));
  }

  /** An agent message in this task's context, not yet checked; a whole message keeps its messageId and other members. */
  private draftMessage(label: string, content: StatusMessage): Message {
    if (isWhole<WholeMessage>(content)) {
      return { ...content, messageId: content.messageId ?? this.input.newId(), contextId: this.contextId, taskId: this.taskId, role: 'ROLE_AGENT' };
    }
    return {
      messageId: this.input.newId(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: 'ROLE_AGENT',
      parts: partsOf(label, content),
    };
  }

  async reply(content: Content, options: { metadata?: JsonObject } = {}): Promise<void> {
    // returnImmediately stored the task before the agent ran, and its caller holds it: a reply
    // made before any other change completes that task, with the reply as its status message.
    if (this.input.createFirst && this.record?.seq === 1 && !this.replied) return this.complete(content);
    if (this.record || this.creating) throw new Error('reply() is only allowed before the task exists; use setStatus() or complete(message) instead');
    if (this.replied) throw new Error('reply() was already called');
    const message = checkedMessage('reply', {
      messageId: this.input.newId(),
      contextId: this.contextId,
      role: 'ROLE_AGENT',
      parts: partsOf('reply', content),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    });
    this.replied = message;
    await this.finishReply();
  }

  async submit(): Promise<void> {
    if (!this.record) await (this.creating ??= this.createTask());
  }

  startWork(message?: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_WORKING', message);
  }
  requireInput(question: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_INPUT_REQUIRED', question);
  }
  requireAuth(message: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_AUTH_REQUIRED', message);
  }
  complete(message?: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_COMPLETED', message);
  }
  fail(message?: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_FAILED', message);
  }
  reject(message?: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_REJECTED', message);
  }
  cancel(message?: StatusMessage): Promise<void> {
    return this.setStatus('TASK_STATE_CANCELED', message);
  }

  async setStatus(state: TaskState, message?: StatusMessage, options: StatusOptions = {}): Promise<void> {
    // Read before the status time, so that a task this write creates was created no later.
    const createdAt = now();
    const status = checkedStatus('setStatus', { state, ...(message !== undefined ? { message: this.draftMessage('setStatus', message) } : {}), timestamp: now() });
    const update: TaskStatusUpdateEvent = { taskId: this.taskId, contextId: this.contextId, status };
    if (options.eventMetadata !== undefined) update.metadata = checkedMetadata('setStatus', 'eventMetadata', options.eventMetadata);
    await this.write(
      (task) => {
        checkTransition('setStatus', task.status.state, status.state);
        return { task: applyStatus(task, status), events: [{ statusUpdate: update }] };
      },
      { isStatus: true, createdAt, what: `status ${status.state}`, state: status.state },
    );
  }

  async setMetadata(metadata: JsonObject): Promise<void> {
    const valid = checkedMetadata('setMetadata', 'metadata', metadata);
    // A snapshot-only change: A2A has no event for a task's metadata.
    await this.write((task) => ({ task: { ...task, metadata: { ...task.metadata, ...valid } }, events: [] }), { isStatus: false, what: 'task metadata' });
  }

  async addArtifact(content: Content | WholeArtifact, options: ArtifactOptions = {}): Promise<string> {
    // Content is an artifact of those parts; of a whole artifact, the options' fields win.
    const given: WholeArtifact = isWhole<WholeArtifact>(content) ? content : { parts: partsOf('addArtifact', content) };
    const artifactId = options.artifactId ?? given.artifactId ?? this.input.newId();
    // Built by assignment, not conditional spreads (one of these per streamed chunk).
    const artifact = { artifactId } as Artifact;
    const { name = given.name, description = given.description, metadata = given.metadata, extensions = given.extensions } = options;
    if (name !== undefined) artifact.name = name;
    if (description !== undefined) artifact.description = description;
    artifact.parts = given.parts;
    if (metadata) artifact.metadata = metadata;
    if (extensions) artifact.extensions = extensions;
    const update: TaskArtifactUpdateEvent = { taskId: this.taskId, contextId: this.contextId, artifact: this.writes.artifact(artifact, options) };
    if (options.append) update.append = true;
    if (options.lastChunk) update.lastChunk = true;
    if (options.eventMetadata !== undefined) update.metadata = checkedMetadata('addArtifact', 'eventMetadata', options.eventMetadata);
    const written = await this.write((task) => ({ task: applyArtifact(task, update), events: [{ artifactUpdate: update }] }), { isStatus: false, what: `artifact ${artifactId}` });
    if (!written) return ''; // ignored: the task had ended (reported to onError)
    this.writes.written(artifactId, options);
    return artifactId;
  }

  /**
   * Creates the task: SUBMITTED, with the user message as history[0], and with `first` (the
   * agent's first update) in the same write, so the usual run costs one write less.
   */
  private async createTask(first?: Change, createdAt = now()): Promise<TaskRecord> {
    if (this.duplicateOf) throw this.duplicateOf;
    this.guard?.();
    if (this.replied) throw new Error('the agent already replied with a message; no task can be created');
    const task: Task = {
      id: this.taskId,
      contextId: this.contextId,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: createdAt },
      history: [this.input.context.message],
    };
    const { claim, pushConfig, owner } = this.input;
    try {
      this.record = await this.input.writer.create(this.input.context.tenant, task, { claim, pushConfig, owner, until: this.until(), ...(first ? { then: first(task) } : {}) });
    } catch (error) {
      this.creating = undefined; // a later update tries again
      // A concurrent duplicate of this message created its task first: every later write of
      // this run is refused too, and run() answers with that task.
      if (error instanceof DuplicateMessageError) this.duplicateOf = error;
      throw error;
    }
    this.resolveStarted({ kind: 'task', record: this.record });
    return this.record;
  }

  /**
   * Writes a change; a status change to a terminal or interrupted state settles the run. The
   * first change creates the task with it; changes made while that creation runs follow it.
   * Resolves false when the change was ignored because the task had ended (LIFE-02).
   */
  private async write(change: Change, how: { isStatus: boolean; createdAt?: string; what: string; state?: TaskState }): Promise<boolean> {
    let record: TaskRecord;
    let ignored = false;
    if (!this.record && !this.creating) {
      record = await (this.creating = this.createTask(change, how.createdAt));
    } else {
      if (!this.record) await this.creating;
      this.guard?.();
      const target = { tenant: this.input.context.tenant, taskId: this.taskId, known: this.record, leaseOwner: this.leaseOwner, until: this.until() };
      ({ record } = await this.input.writer.update(target, (r) =>
        // LIFE-02: nothing leaves a terminal state; late updates (after a cancel) are dropped.
        isTerminalState(r.task.status.state) ? ((ignored = true), undefined) : change(r.task),
      ));
    }
    this.record = record;
    const state = record.task.status.state;
    if (isTerminalState(state)) this.terminal = true;
    if (this.terminal || (how.isStatus && isFinalForNow(state))) this.resolveSettled({ kind: 'task', record });
    // LIFE-02: a dropped write is reported unless it is the library's, or a status write of the
    // state the task already ended in (a relayed CANCELED after the cancel wrote it): harmless.
    if (ignored && !this.libraryWriting && how.state !== state) this.writes.dropped(how.what, state);
    return !ignored;
  }
}

/** One update of the task: the task after it, and its events. */
type Change = (task: Task) => { task: Task; events: StreamResponse[] };
