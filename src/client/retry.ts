/**
 * Retries with exponential backoff and full jitter for idempotent operations (IDEM-01/03/04)
 * on network failures, 503 and 429 (honouring Retry-After, B13; not a 429 for a cap the task
 * has reached, such as a full history), and on an UNAVAILABLE answer in any binding (a server
 * shutting down, R24). SendMessage is retried only
 * when the caller opted in and fixed the messageId, so a server that deduplicates by
 * messageId (IDEM-02) sees the same message again rather than a new one.
 */
import { A2AError } from '../protocol/errors.js';
import { HISTORY_CHARS_LIMIT, HISTORY_MESSAGES_LIMIT } from '../protocol/historyLimits.js';
import type { Message, OperationName } from '../protocol/types.js';
import { A2AClientError, responseInfo } from './errors.js';
import { hasGeneratedId } from './messages.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** First backoff step (default 200 ms); each retry doubles it. */
  baseDelayMs?: number;
  /** Largest backoff step (default 5 s). */
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is returned (default 30 s). */
  maxRetryAfterMs?: number;
  /** Also retry sendMessage / sendStreamingMessage when the message has a caller-fixed messageId. */
  retrySendMessage?: boolean;
}

const IDEMPOTENT: ReadonlySet<OperationName> = new Set<OperationName>([
  'getTask',
  'listTasks',
  'cancelTask',
  'subscribeToTask',
  'getTaskPushNotificationConfig',
  'listTaskPushNotificationConfigs',
  'deleteTaskPushNotificationConfig',
  'getExtendedAgentCard',
]);

/**
 * RESOURCE_EXHAUSTED answers whose ErrorInfo `limit` names a cap the task itself has reached (a
 * full history, R16): the same request gets the same answer, however long the client waits.
 */
const PERMANENT_LIMITS: ReadonlySet<string> = new Set([HISTORY_MESSAGES_LIMIT, HISTORY_CHARS_LIMIT]);

function isPermanentLimit(error: unknown): boolean {
  return error instanceof A2AError && error.reason === 'RESOURCE_EXHAUSTED' && PERMANENT_LIMITS.has(error.metadata.limit ?? '');
}

function mayRepeat(op: OperationName, request: unknown, options: RetryOptions): boolean {
  if (IDEMPOTENT.has(op)) return true;
  if (op !== 'sendMessage' && op !== 'sendStreamingMessage') return false;
  const message = (request as { message?: Message }).message;
  return options.retrySendMessage === true && !!message?.messageId && !hasGeneratedId(message);
}

/**
 * How long to wait before retry number `attempt` (0-based) of `op` after `error`, or undefined
 * when the call must not be retried.
 */
export function retryDelay(input: { op: OperationName; request: unknown; error: unknown; attempt: number }, options: RetryOptions): number | undefined {
  const { op, request, error, attempt } = input;
  if (attempt >= (options.retries ?? 3) || !mayRepeat(op, request, options)) return undefined;
  const info = responseInfo(error);
  const unavailable = error instanceof A2AError && error.reason === 'UNAVAILABLE';
  const transient = A2AClientError.is(error, 'NETWORK') || unavailable || info?.status === 503 || (info?.status === 429 && !isPermanentLimit(error));
  if (!transient) return undefined;
  if (info?.retryAfterMs !== undefined) return info.retryAfterMs <= (options.maxRetryAfterMs ?? 30_000) ? info.retryAfterMs : undefined;
  const step = Math.min(options.maxDelayMs ?? 5_000, (options.baseDelayMs ?? 200) * 2 ** attempt);
  return Math.random() * step;
}
