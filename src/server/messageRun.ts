/**
 * Runs of an agent that a received message starts (SendMessage, SendStreamingMessage): the R4
 * check for a message already received (duplicateOf), and the message validated against its task
 * and handed to the agent (startExecution). Runs that no request started are in detachedRun.ts.
 */
import { PushNotificationNotSupportedError, UnsupportedOperationError, invalidField } from '../protocol/errors.js';
import { activatedExtensions } from '../protocol/serviceParams.js';
import { isFinalForNow, isTerminalState } from '../protocol/taskStates.js';
import type { AgentCard, Message, SendMessageRequest } from '../protocol/types.js';
import type { PushRuntime } from '../push/pushOptions.js';
import type { AbuseLimits } from './abuseLimits.js';
import type { DetachedRunDeps } from './detachedRun.js';
import { Execution, type Outcome } from './execution.js';
import { LazyAbort } from './lazyAbort.js';
import { checkInputModes } from './mediaTypes.js';
import { messageClaim, messageFingerprint, usedId } from './messageFingerprint.js';
import type { SignalHolder } from './pushStream.js';
import type { CallContext } from './requestHandler.js';
import { textOf } from './runContext.js';
import type { TaskRecord } from './stores/taskStore.js';
import { stoppedWaiting, untilSettled, type ElsewhereDeps } from './settledElsewhere.js';
import { ownerOf, ownsContexts, requireOwnContext, requireTask } from './taskQueries.js';
import { followUpRefusal, type TaskLimits } from './taskLimits.js';

/**
 * What a run a message starts needs from the request handler: a detached run's needs, the card,
 * push configs and abuse limits, and what a blocking duplicate needs to wait for a run on
 * another instance.
 */
export interface MessageRunDeps extends DetachedRunDeps, ElsewhereDeps {
  agentCard: AgentCard;
  push: PushRuntime | undefined;
  abuse: AbuseLimits | undefined;
  /** R16: caps on a task's history, checked when a follow-up joins it. */
  taskLimits: TaskLimits;
}

/**
 * Who is answered: the caller whose message ids they are (the owner) and, for a blocking call,
 * the call, whose abort ends a wait for a run on another instance.
 */
export interface Answered {
  owner: string;
  /** The blocking call; undefined: answered at once (returnImmediately, streams). */
  waits?: SignalHolder | undefined;
}

/** A blocking caller. */
export type Blocking = Answered & { waits: SignalHolder };

/**
 * R4: the task of a message id this caller already used in this tenant, after the run it started
 * has settled (for a blocking call); a different message under an id the caller used is invalid
 * params. IDEM-02 / ERR-04: ids are per caller (the owner), so another caller's use of the id is
 * not seen here, and its message is processed as any new one.
 */
export async function duplicateOf(deps: MessageRunDeps, req: SendMessageRequest, caller: Answered): Promise<TaskRecord | undefined> {
  const tenant = req.tenant ?? '';
  const seen = await deps.store.findMessage(tenant, caller.owner, req.message.messageId);
  if (!seen) return undefined;
  if (seen.fingerprint !== messageFingerprint(req.message)) throw usedId();
  const task = { tenant, id: seen.taskId };
  const { waits } = caller;
  return waits ? settledTask(deps, task, { owner: caller.owner, waits }) : requireTask(deps.store, task, caller.owner);
}

/**
 * MSG-01, what a blocking duplicate answers: the task once its runs on this instance are idle
 * and, when instances share the store under leases and it is still SUBMITTED or WORKING, once
 * the instance running it (or the one that takes it over) has left it terminal or interrupted.
 */
async function settledTask(deps: MessageRunDeps, task: { tenant: string; id: string }, caller: Blocking): Promise<TaskRecord> {
  await deps.runner.idle(task.tenant, task.id);
  const record = await requireTask(deps.store, task, caller.owner);
  // One instance: the run that is over left the task as it is (an agent may return on WORKING).
  if (isFinalForNow(record.task.status.state) || deps.store.sharedAcrossInstances !== true || !deps.runner.leases) return record;
  await untilSettled(deps, task, caller.waits);
  const settled = await requireTask(deps.store, task, caller.owner);
  if (!isFinalForNow(settled.task.status.state)) throw stoppedWaiting(task.id);
  return settled;
}

/**
 * MSG-01: what a blocking SendMessage is answered with, the run's settled outcome. A run that
 * answered as a concurrent duplicate of its message (it passed duplicateOf before the first
 * delivery's claim was stored) answers, as duplicateOf does, with the first delivery's task once
 * that task has settled (settledTask). Waited for here, outside the duplicate's run: that run may be
 * queued on the very task, and would wait for itself.
 */
export async function settledAnswer(deps: MessageRunDeps, execution: Execution, caller: Blocking): Promise<Outcome> {
  const outcome = await execution.settled;
  const task = execution.duplicateTask;
  return task && outcome.kind === 'task' ? { kind: 'task', record: await settledTask(deps, task, caller) } : outcome;
}

/**
 * When the caller is answered: 'settled' (a blocking SendMessage) or 'started' (SendMessage with
 * returnImmediately, and SendStreamingMessage): at the run's start (Execution.started).
 */
export type AnswerMode = 'settled' | 'started';

/**
 * Validates the message against its task (CTX rules, LIFE-03) or, for a new task in a context
 * the client chose, against the context's owner (TENANT-06), and starts the agent. Unless the
 * caller blocks, a follow-up is answered without waiting for the agent or an earlier run of the
 * task: it joins the task's history now (refused at once if the task ended), and its run follows
 * the task's current one. A new task's caller is answered at the agent's first call (MSG-03: a
 * reply() is answered as the Message it is, and no task is created).
 */
export async function startExecution(deps: MessageRunDeps, req: SendMessageRequest, call: { ctx: CallContext; answer: AnswerMode }): Promise<Execution> {
  const { ctx } = call;
  const tenant = req.tenant ?? '';
  const message = req.message;
  if (req.configuration?.taskPushNotificationConfig && deps.agentCard.capabilities.pushNotifications !== true) {
    throw new PushNotificationNotSupportedError();
  }
  checkInputModes(deps.agentCard, req.message);
  let existing: TaskRecord | undefined;
  let contextId: string;
  if (message.taskId) {
    existing = await requireTask(deps.store, { tenant, id: message.taskId }, ownerOf(ctx));
    if (isTerminalState(existing.task.status.state)) {
      throw new UnsupportedOperationError(`Task ${message.taskId} is in a terminal state; start a new task in the same context`, {
        metadata: { taskId: message.taskId },
      });
    }
    contextId = existing.task.contextId ?? '';
    if (message.contextId && message.contextId !== contextId) {
      throw invalidField('message.contextId', `does not match the context of task ${message.taskId}`);
    }
  } else if (message.contextId) {
    // A new task in a context the client chose: not another caller's (TENANT-06). A context the
    // server mints below is the caller's by its task, or recorded with a message reply (Execution).
    await requireOwnContext(deps.store, { tenant, contextId: message.contextId }, ctx);
    contextId = message.contextId;
  } else {
    contextId = deps.newId();
  }
  const taskId = message.taskId ?? deps.newId();
  const inline = req.configuration?.taskPushNotificationConfig;
  const pushConfig = inline && deps.push ? await deps.push.configs.inline(inline, { tenant, taskId, existing: existing !== undefined, protocolVersion: ctx.protocolVersion }) : undefined;
  const stored = withIds(message, taskId, contextId);
  // R16: a follow-up that would overfill the task's history is refused before it waits for a
  // run (Execution checks again against the record it writes).
  const refusal = existing && followUpRefusal(existing.task, stored, deps.taskLimits);
  if (refusal) throw refusal;
  const controller = new LazyAbort();
  const execution = new Execution({
    writer: deps.writer,
    executor: deps.executor,
    existing,
    abort: controller,
    claim: messageClaim(message),
    taskLimits: deps.taskLimits,
    owner: ownerOf(ctx),
    pushConfig,
    newId: deps.newId,
    onError: deps.onError,
    recorded: existing !== undefined && call.answer !== 'settled',
    recordContext: !message.taskId && !message.contextId && ownsContexts(ctx),
    context: {
      message: stored,
      text: textOf(stored.parts),
      taskId,
      contextId,
      task: existing?.task,
      request: req,
      tenant,
      extensions: ctx.requestedExtensions.length === 0 ? [] : activatedExtensions(deps.agentCard, ctx.requestedExtensions),
      protocolVersion: ctx.protocolVersion,
      principal: ctx.principal,
    },
  });
  // R25: runs in one context at once (a new task only; follow-ups continue theirs).
  const release = existing ? undefined : deps.abuse?.startTask(tenant, contextId);
  if (release) void execution.settled.then(release, release);
  // Not blocking: the message is recorded (or refused) now, whatever runs on the task.
  if (existing && call.answer !== 'settled' && !(await execution.accept())) return execution;
  // One executor per task at a time: a follow-up's run waits for the previous run to finish.
  execution.ran = deps.runner.schedule({ tenant, taskId, execution, abort: controller });
  return execution;
}

/**
 * The user message as the task keeps it: with its task and context ids. Built field by field
 * (not by spreading) so every stored message shares one hidden class; a spread copy of a
 * decoded message got a map of its own in V8, some 300 bytes more per kept task.
 */
function withIds(message: Message, taskId: string, contextId: string): Message {
  const stored: Message = { messageId: message.messageId, contextId, taskId, role: message.role, parts: message.parts };
  if (message.metadata !== undefined) stored.metadata = message.metadata;
  if (message.extensions !== undefined) stored.extensions = message.extensions;
  if (message.referenceTaskIds !== undefined) stored.referenceTaskIds = message.referenceTaskIds;
  return stored;
}
