/**
 * One run of an agent for one incoming message, and its outcome. The run is the TaskUpdater
 * handed to the agent (its writes are RunUpdater's, runUpdater.ts); here is what its caller gets
 * and when: `started` (a reply or the task exists) and `settled` (a reply, a terminal or
 * interrupted state, or the agent returned), a FAILED task when the agent throws or returns
 * without answering, and a refusal when the outcome could not be stored (a store outage).
 */
import { appendUserMessage } from '../protocol/applyEvent.js';
import { InternalError, StoreUnavailableError, UnsupportedOperationError, type A2AError } from '../protocol/errors.js';
import { isTerminalState } from '../protocol/taskStates.js';
import type { Message } from '../protocol/types.js';
import type { AgentExecutor } from './agentExecutor.js';
import { RunContext } from './runContext.js';
import { RunUpdater, type RunUpdaterInput } from './runUpdater.js';
import { DuplicateMessageError, type TaskRecord } from './stores/taskStore.js';
import { followUpRefusal, type TaskLimits } from './taskLimits.js';
import { LeaseLostError } from './leases.js';
import { usedId } from './messageFingerprint.js';
import { UnprocessedMessageError } from './unprocessedMessage.js';
import { patiently, storeOutOfReach } from './storePatience.js';

export type Outcome =
  | { kind: 'message'; message: Message }
  | { kind: 'task'; record: TaskRecord }
  /** The message was refused before the agent ran (for example its task ended meanwhile). */
  | { kind: 'refused'; error: unknown };

export interface ExecutionInput extends RunUpdaterInput {
  executor: AgentExecutor;
  /** The existing task record when the message continues a task. */
  existing: TaskRecord | undefined;
  /** Aborted when the task is canceled or the server shuts down. */
  abort: { readonly signal: AbortSignal };
  /**
   * The message is already in the existing task's history: a re-run after a takeover, or a
   * follow-up accepted (`accept()`) before its run began. The run does not add it again, and the
   * agent does not run if the task ended meanwhile.
   */
  recorded?: boolean;
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

export class Execution extends RunUpdater {
  protected declare readonly input: ExecutionInput;
  readonly started: Promise<Outcome>;
  readonly settled: Promise<Outcome>;
  /**
   * The seq of the task when the agent is called (its earlier events belong to earlier runs), or
   * undefined when the agent will not run for this message (refused, or the task ended first).
   */
  readonly begun: Promise<number | undefined>;
  /** Settles when the run is over (the agent returned); set when the run is scheduled (startExecution). */
  ran: Promise<unknown> | undefined;
  /**
   * R4: the task this message had already started or joined, when the run answered as a
   * concurrent duplicate with that task as it was then. A blocking caller is answered with it
   * once its runs are idle (settledAnswer, messageRun.ts): not waited for here, inside this run,
   * which may be queued on that very task.
   */
  duplicateTask: { tenant: string; id: string } | undefined;
  private resolveStarted!: (o: Outcome) => void;
  private resolveSettled!: (o: Outcome) => void;
  private resolveBegun!: (seq: number | undefined) => void;
  /** accept() recorded the follow-up and answered its caller: what becomes of its run is only reported. */
  private accepted = false;
  /** The agent was called for this run's message. */
  private called = false;
  /** The record of a message reply's context (recordContext): false when it could not be stored. */
  private contextRecorded: Promise<boolean> | undefined;
  /** Shutdown aborted this run at its deadline (cutShort): cutOff answers its caller. */
  private cut = false;

  constructor(input: ExecutionInput) {
    super(input);
    this.record = input.existing;
    this.started = new Promise((resolve) => (this.resolveStarted = resolve));
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
    this.begun = new Promise((resolve) => (this.resolveBegun = resolve));
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
    // MSG-01: a run cut short by shutdown that left its task unfinished is answered by cutOff,
    // with the task as shutdown leaves it (FAILED), not with the WORKING task it returned on.
    else if (!this.cut) this.finish();
  }

  /** Answers with the reply once its context is recorded (recordContext); refused if that fails. */
  protected override async finishReply(): Promise<void> {
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
      if (await this.receivedBefore()) return false;
      this.refuse(new UnsupportedOperationError(`Task ${this.taskId} reached a terminal state before this message could be processed`, { metadata: { taskId: this.taskId } }));
      return false;
    }
    this.accepted = true;
    this.resolveStarted({ kind: 'task', record: this.record });
    return true;
  }

  /**
   * R4: a copy of a message queued behind its first delivery, whose run ended the task (a
   * terminal task takes no claim, so the write did not find the duplicate): answers as the
   * duplicate it is, not as a message too late for its task.
   */
  private async receivedBefore(): Promise<boolean> {
    const { context, owner } = this.input;
    const seen = await this.input.writer.store.findMessage(context.tenant, owner ?? '', context.message.messageId).catch(() => undefined);
    if (!seen) return false;
    this.duplicateOf = new DuplicateMessageError(seen);
    await this.answerDuplicate(this.duplicateOf);
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

  /**
   * R4: answer with the task the first delivery of this message created or continued. The store
   * refused the claim only for this caller's own id (IDEM-02), so the record is the caller's; the
   * owner is compared all the same, so a store that did not scope ids could refuse another
   * caller's id but never answer with its task.
   */
  private async answerDuplicate(dup: DuplicateMessageError): Promise<void> {
    if ((this.input.claim && dup.existing.fingerprint !== this.input.claim.fingerprint) || dup.existing.owner !== (this.input.owner ?? '')) {
      this.refuse(usedId());
      return;
    }
    const record = await this.input.writer.store.get(this.input.context.tenant, dup.existing.taskId).catch(() => undefined);
    if (!record) {
      this.refuse(dup);
      return;
    }
    this.record = record;
    this.duplicateTask = { tenant: this.input.context.tenant, id: record.task.id };
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

  /**
   * Shutdown aborted this run at its deadline: when the agent returns, its caller is not
   * answered with the task unfinished; it waits for cutOff. An answer the run gives first (a
   * reply, a terminal or interrupted state, a refusal) stands.
   */
  cutShort(): void {
    this.cut = true;
  }

  /**
   * Shutdown is done with this run (it was aborted at the deadline — ended since or not — or its
   * turn had not come by then): its caller gets `record`, the task as the server left it.
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

  protected override taskCreated(record: TaskRecord): void {
    this.resolveStarted({ kind: 'task', record });
  }

  protected override taskSettled(record: TaskRecord): void {
    this.resolveSettled({ kind: 'task', record });
  }
}
