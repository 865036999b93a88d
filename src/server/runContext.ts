/**
 * The RequestContext an agent run is given. A class, so its lazy `signal` getter lives on the
 * prototype: an object literal with a getter is a new closure and a new hidden class for every
 * request, and every property read by the agent then misses V8's inline caches.
 */
import type { Principal } from '../auth/principal.js';
import type { Message, Part, SendMessageRequest, Task } from '../protocol/types.js';
import type { RequestContext } from './agentExecutor.js';

/** What a run is told about its request, without the signal. */
export type RequestFields = Omit<RequestContext, 'signal'>;

export class RunContext implements RequestContext {
  readonly message: Message;
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly task: Task | undefined;
  readonly request: SendMessageRequest;
  readonly tenant: string;
  readonly extensions: readonly string[];
  readonly protocolVersion: string;
  /** The authenticated caller; undefined for an anonymous one (always present: one shape for all). */
  readonly principal: Principal | undefined;
  readonly #abort: { readonly signal: AbortSignal };

  /** `abort` is read only when the agent asks for the signal (creating one is costly in Node). */
  constructor(fields: RequestFields, abort: { readonly signal: AbortSignal }) {
    this.message = fields.message;
    this.text = fields.text;
    this.taskId = fields.taskId;
    this.contextId = fields.contextId;
    this.task = fields.task;
    this.request = fields.request;
    this.tenant = fields.tenant;
    this.extensions = fields.extensions;
    this.protocolVersion = fields.protocolVersion;
    this.principal = fields.principal;
    this.#abort = abort;
  }

  /** Aborted when the task is canceled or the server shuts down. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/** The text parts of a message, joined by newlines (RequestContext.text). */
export function textOf(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if ('text' in part) text += (text ? '\n' : '') + part.text;
  return text;
}
