/**
 * The seam between the protocol and an agent. An agent is an object with `execute` (and
 * optionally `cancel`); it reports progress through the TaskUpdater it is given:
 *
 *   const agent: AgentExecutor = {
 *     async execute(ctx, task) {
 *       await task.addArtifact(`You said: ${ctx.text}`);
 *       await task.complete();
 *     },
 *   };
 */
import type { Principal } from '../auth/principal.js';
import type { Message, SendMessageRequest, Task } from '../protocol/types.js';
import type { TaskUpdater } from './taskUpdater.js';

export interface RequestContext {
  /** The user message, with the server-assigned taskId and contextId filled in. */
  readonly message: Message;
  /** The text parts of the message joined by newlines: what most agents want. */
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
  /** The task before this message, when the message continues an existing task. */
  readonly task: Task | undefined;
  /** The whole request (configuration, request metadata). */
  readonly request: SendMessageRequest;
  readonly tenant: string;
  /** Extensions the client activated that this agent declares (EXT-05). */
  readonly extensions: readonly string[];
  /** The negotiated protocol version. */
  readonly protocolVersion: string;
  /** The authenticated caller, when the server enforces the card's security schemes. */
  readonly principal?: Principal | undefined;
  /** Aborted when the task is canceled or the server shuts down. */
  readonly signal: AbortSignal;
}

export interface CancelContext {
  readonly task: Task;
  readonly tenant: string;
  readonly signal: AbortSignal;
}

export interface AgentExecutor {
  execute(ctx: RequestContext, task: TaskUpdater): Promise<void>;
  /**
   * Optional. Called on CancelTask while the task is not terminal, before anything else: then,
   * if the task is still not terminal, the server marks it CANCELED and aborts the running
   * execute()'s signal. Throw TaskNotCancelableError to refuse; any other error (an A2AError
   * too) goes to onError and the caller gets InternalError. `ctx.signal` aborts at the
   * deadline (`cancelTimeoutMs`, 30 s): the cancel then goes on without waiting for this.
   */
  cancel?(ctx: CancelContext, task: TaskUpdater): Promise<void>;
}
