/**
 * R16 caps on a task's history: how many messages it keeps and how much content they hold. They
 * are checked when a follow-up user message would join the history of an existing task; a
 * message that would pass a cap is refused with RESOURCE_EXHAUSTED (HTTP 429, gRPC
 * RESOURCE_EXHAUSTED, JSON-RPC -32000) naming the cap, and nothing already in the task is ever
 * dropped. The agent's own writes are not refused (it is the operator's code), but the status
 * messages it moves into history count when the next follow-up is measured.
 *
 * Sizes are measured without serializing: a value counts as the length of its JSON, each string
 * by its characters (escapes not counted, ./jsonLength.ts). Each message's size is remembered
 * per object, so a store that keeps snapshots in memory measures a message once.
 *
 * The same options carry the cap on what one ListTasks answer carries (`maxListResponseChars`,
 * applied in ./taskQueries.ts): tasks near the history caps are legitimate, and a page of 100
 * of them would otherwise be one answer of gigabytes.
 */
import { HISTORY_CHARS_LIMIT, HISTORY_MESSAGES_LIMIT } from '../protocol/historyLimits.js';
import { A2AError } from '../protocol/errors.js';
import type { Message, Task } from '../protocol/types.js';
import { storedJsonLength } from './jsonLength.js';

export interface TaskLimits {
  /** Most messages in a task's history, the agent's moved status messages included (default 1,000). */
  maxHistoryMessages: number;
  /** Most content in a task's history, in characters of its JSON (default 16 Mi). */
  maxHistoryChars: number;
  /**
   * Most characters of task JSON in one ListTasks answer (default 8 Mi): the page ends early,
   * with a nextPageToken, before the task that would pass it; one task always comes.
   */
  maxListResponseChars: number;
}

/** The two R16 caps a follow-up is checked against. */
export type HistoryCaps = Pick<TaskLimits, 'maxHistoryMessages' | 'maxHistoryChars'>;

export const DEFAULT_TASK_LIMITS: TaskLimits = {
  maxHistoryMessages: 1000,
  maxHistoryChars: 16 * 1024 * 1024,
  maxListResponseChars: 8 * 1024 * 1024,
};

/** The caps in `options` over the defaults; refuses values that are not positive integers. */
export function taskLimits(options: Partial<TaskLimits> | undefined): TaskLimits {
  const limits = { ...DEFAULT_TASK_LIMITS, ...pick(options) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`limits.${name} must be a positive integer`);
  }
  return limits;
}

function pick(options: Partial<TaskLimits> | undefined): Partial<TaskLimits> {
  const out: Partial<TaskLimits> = {};
  if (options?.maxHistoryMessages !== undefined) out.maxHistoryMessages = options.maxHistoryMessages;
  if (options?.maxHistoryChars !== undefined) out.maxHistoryChars = options.maxHistoryChars;
  if (options?.maxListResponseChars !== undefined) out.maxListResponseChars = options.maxListResponseChars;
  return out;
}

/** A message's content size (its JSON length), remembered per message object. */
export function messageSize(message: Message): number {
  return storedJsonLength(message);
}

/** What a task's history holds: its messages and the status message that will move into it. */
export function historyUsage(task: Task): { messages: number; chars: number } {
  let messages = 0;
  let chars = 0;
  for (const m of task.history ?? []) {
    messages++;
    chars += messageSize(m);
  }
  if (task.status.message) {
    messages++;
    chars += messageSize(task.status.message);
  }
  return { messages, chars };
}

/**
 * The error for a follow-up `message` that would take `task` past a cap, or undefined when it
 * fits. Appending it moves the status message into history too (appendUserMessage), which
 * historyUsage already counts.
 */
export function followUpRefusal(task: Task, message: Message, limits: HistoryCaps): A2AError | undefined {
  const used = historyUsage(task);
  const context = task.contextId ? ` in context ${task.contextId}` : '';
  const metadata = (limit: string, max: number): Record<string, string> => ({ limit, max: String(max), taskId: task.id, ...(task.contextId ? { contextId: task.contextId } : {}) });
  if (used.messages + 1 > limits.maxHistoryMessages) {
    return new A2AError(
      'RESOURCE_EXHAUSTED',
      `Task ${task.id} already holds ${used.messages} messages, the most its history may keep (${limits.maxHistoryMessages}); start a new task${context}`,
      { metadata: metadata(HISTORY_MESSAGES_LIMIT, limits.maxHistoryMessages) },
    );
  }
  const size = messageSize(message);
  if (used.chars + size > limits.maxHistoryChars) {
    return new A2AError(
      'RESOURCE_EXHAUSTED',
      `Task ${task.id} has no room for this message: its history would hold ${used.chars + size} characters of content, over the limit of ${limits.maxHistoryChars}; start a new task${context}`,
      { metadata: metadata(HISTORY_CHARS_LIMIT, limits.maxHistoryChars) },
    );
  }
  return undefined;
}
