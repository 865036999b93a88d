/**
 * The TaskUpdater of one run (an agent's calls for one incoming message): every call becomes a
 * compare-and-set write of the task through the TaskWriter, checked first (agentWrites.ts). The
 * first write creates the task (SUBMITTED, the user message as history[0]) with the agent's
 * first change in it. What the run makes of its writes — when the caller is answered, and with
 * what — is Execution's (execution.ts), which extends this class and hears of the task's
 * creation, of a state that settles the run, and of a reply.
 */
import { applyArtifact, applyStatus } from '../protocol/applyEvent.js';
import { isFinalForNow, isTerminalState } from '../protocol/taskStates.js';
import type { Artifact, JsonObject, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '../protocol/types.js';
import { AgentWrites, checkTransition, checkedMessage, checkedMetadata, checkedStatus, partsOf } from './agentWrites.js';
import type { ErrorHook } from './errorHook.js';
import type { RequestFields } from './runContext.js';
import { DuplicateMessageError, type MessageClaim, type TaskRecord } from './stores/taskStore.js';
import type { StoredPushConfig } from './stores/pushStore.js';
import { isWhole, type ArtifactOptions, type Content, type StatusMessage, type StatusOptions, type TaskUpdater, type WholeArtifact, type WholeMessage } from './taskUpdater.js';
import type { TaskWriter } from './taskWriter.js';
import type { Deadline, WriteDeadline } from './storePatience.js';

/** What the writes of one run need (ExecutionInput adds what the run itself needs). */
export interface RunUpdaterInput {
  writer: TaskWriter;
  context: RequestFields;
  newId: () => string;
  /** Hears of agent failures (with this run's ids), and of agent writes ignored after the task ended. */
  onError?: ErrorHook | undefined;
  /** R4: recorded with the write this message causes (the creation, or the follow-up). */
  claim?: MessageClaim;
  /** PUSH-09: registered with the task when this run creates it. */
  pushConfig?: StoredPushConfig;
  /** Who the task belongs to when this run creates it (the caller's principal id, '' anonymous). */
  owner?: string;
}

/** One update of the task: the task after it, and its events. */
type Change = (task: Task) => { task: Task; events: StreamResponse[] };

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

export abstract class RunUpdater implements TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  /** The task as this run last wrote or read it (undefined: not created yet). */
  protected record: TaskRecord | undefined;
  protected replied: Message | undefined;
  protected terminal = false;
  /** The creation of the task while it runs (the first update's write). */
  private creating: Promise<TaskRecord> | undefined;
  /** R4: a concurrent duplicate of this message created its task first. */
  protected duplicateOf: DuplicateMessageError | undefined;
  /** Throws when this run may no longer write (its execution lease is lost). */
  protected guard: (() => void) | undefined;
  protected leaseOwner: string | undefined;
  /** R2: until when the run's writes outlive a store outage (its lease deadline; none: each gets STORE_PATIENCE_MS). */
  private leaseDeadline: Deadline | undefined;
  /** Checks of what the agent writes (agentWrites.ts). */
  private readonly writes = new AgentWrites((error) => this.report(error));
  /** The run itself (not the agent) is writing: such a write, if ignored, is not the agent's. */
  private libraryWriting = false;

  constructor(protected readonly input: RunUpdaterInput) {
    this.taskId = input.context.taskId;
    this.contextId = input.context.contextId;
  }

  /** The task exists now (this run created it). */
  protected abstract taskCreated(record: TaskRecord): void;
  /** A write left the task in a terminal or interrupted state: the run is settled. */
  protected abstract taskSettled(record: TaskRecord): void;
  /** The agent replied with a message (`replied`): answers with it. */
  protected abstract finishReply(): Promise<void>;

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
  protected until(): WriteDeadline {
    return this.leaseDeadline ?? 'patience';
  }

  get isTerminal(): boolean {
    return this.terminal;
  }

  /** A write the run itself (not the agent) makes: if it is ignored, that is not the agent's dropped write. */
  protected async ownWrite(write: () => Promise<void>): Promise<void> {
    this.libraryWriting = true;
    try {
      await write();
    } finally {
      this.libraryWriting = false;
    }
  }

  /** To onError, with this run's ids. */
  protected report(error: unknown): void {
    this.input.onError?.(error, { operation: 'execute', tenant: this.input.context.tenant, taskId: this.taskId, contextId: this.contextId });
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
    // Built by assignment, not conditional spreads (one of these per streamed chunk), onto an
    // empty literal: V8 reserves it four in-object fields, where `{ artifactId }` reserves one
    // and the name and parts went to a property array of their own (40 bytes more per artifact kept).
    const artifact = {} as Artifact;
    artifact.artifactId = artifactId;
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
    this.taskCreated(this.record);
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
    if (this.terminal || (how.isStatus && isFinalForNow(state))) this.taskSettled(record);
    // LIFE-02: a dropped write is reported unless it is the library's, or a status write of the
    // state the task already ended in (a relayed CANCELED after the cancel wrote it): harmless.
    if (ignored && !this.libraryWriting && how.state !== state) this.writes.dropped(how.what, state);
    return !ignored;
  }
}
