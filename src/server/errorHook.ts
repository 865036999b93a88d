/**
 * The `onError` hook every server entry point takes (createA2AHandler, the request handler, the
 * gRPC service, serve, serveAgent): what failed, and where. Without one, `logError` writes the
 * error with its stack to console.error (an A2A error that is not a server fault, such as a
 * StoreUnavailableError a background loop meets, in one line, without its stack). Nothing from a request body or its headers is ever
 * passed to it (R23): only the error and the ids below.
 */

import { A2AError } from '../protocol/errors.js';
import { RequestAbortedError } from './http/requestAborted.js';
import { StreamConsumerTooSlowError } from './slowConsumer.js';

/** Where an error happened; each member is there when it is known. */
export interface ErrorContext {
  /**
   * The A2A operation of the request that failed (camelCase, as `handler.unary` names it:
   * `sendMessage`, `getTask`…), or `execute` for the agent's own run of a message.
   */
  operation?: string;
  taskId?: string;
  contextId?: string;
  tenant?: string;
}

/** Receives agent failures and internal errors; an older one-argument callback fits too. */
export type ErrorHook = (error: unknown, context?: ErrorContext) => void;

/** One report: `prefix: error (task …, context …): stack`. */
export function formatError(prefix: string, error: unknown, context: ErrorContext = {}): string {
  const where = [
    context.operation === 'execute' ? 'agent' : context.operation,
    context.tenant ? `tenant ${context.tenant}` : undefined,
    context.taskId ? `task ${context.taskId}` : undefined,
    context.contextId ? `context ${context.contextId}` : undefined,
  ].filter((s) => s !== undefined);
  return `${prefix}: error${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${describe(error)}`;
}

function describe(error: unknown): string {
  // An expected condition (a store that cannot be reached, a limit) is one line: its stack says nothing.
  if (error instanceof Error) return (isServerFault(error) ? error.stack : undefined) ?? `${error.name}: ${error.message}`;
  if (typeof error === 'object' && error !== null) {
    try {
      return JSON.stringify(error);
    } catch {
      return String(error);
    }
  }
  return String(error);
}

/**
 * Whether a failure goes to onError: anything unexpected, and INTERNAL errors; not the A2A errors
 * a request earns (not found, invalid params…), nor what the client caused itself (it went away
 * mid-body, or read a stream too slowly).
 */
export function isServerFault(error: unknown): boolean {
  if (error instanceof RequestAbortedError || error instanceof StreamConsumerTooSlowError) return false;
  return !A2AError.is(error) || error.reason === 'INTERNAL';
}

/** The default hook: the error with its stack on console.error. Pass `onError` to replace it, `() => {}` to silence it. */
export const logError: ErrorHook = (error, context) => {
  console.error(formatError('a2a-kit', error, context));
};
