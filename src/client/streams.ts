/**
 * Task streams on the client: assembling events into a Task with the protocol's own reducer
 * (applyEvent, so artifact chunks become whole artifacts, STREAM-10), resuming a stream that
 * dropped before a terminal or interrupted state (B9, STREAM-11) without duplicate or lost
 * events, and waiting for a task to settle.
 */
import { applyEvent } from '../protocol/applyEvent.js';
import { A2AError } from '../protocol/errors.js';
import { isFinalForNow, isTerminalState } from '../protocol/taskStates.js';
import type { Message, StreamResponse, Task } from '../protocol/types.js';
import { A2AClientError } from './errors.js';
import { sleep } from './signals.js';
import type { StreamItem } from './transport.js';

export class TaskAssembler {
  task: Task | undefined;
  /** The reply of a message-only stream (STREAM-02). */
  message: Message | undefined;

  /** Applies one event and returns the task as it now stands. */
  apply(event: StreamResponse): Task | undefined {
    if ('message' in event && !this.task) {
      this.message = event.message;
      return undefined;
    }
    let task = this.task;
    if (!task && !('task' in event)) {
      // STREAM-03 says a Task comes first; tolerate servers that start with an update.
      const update = 'statusUpdate' in event ? event.statusUpdate : 'artifactUpdate' in event ? event.artifactUpdate : undefined;
      task = { id: update?.taskId ?? '', contextId: update?.contextId ?? '', status: { state: 'TASK_STATE_UNSPECIFIED' } };
    }
    this.task = applyEvent(task as Task, event);
    return this.task;
  }

  /** A message arrived, or the task reached a terminal or interrupted state (STREAM-04). */
  get settled(): boolean {
    return this.message !== undefined || (this.task !== undefined && isFinalForNow(this.task.status.state));
  }
}

/** Consumes a task stream and returns the assembled Task (INVALID_RESPONSE for a message-only stream). */
export async function collectTask(stream: AsyncIterable<StreamResponse>): Promise<Task> {
  const assembler = new TaskAssembler();
  for await (const event of stream) assembler.apply(event);
  if (!assembler.task) throw new A2AClientError('INVALID_RESPONSE', 'The stream carried no task');
  return assembler.task;
}

export interface ResumeOptions {
  /** Reconnection attempts in a row without receiving an event (default 5). */
  retries?: number;
  /** First backoff step (default 250 ms); doubled per attempt, up to maxDelayMs (default 5 s). */
  delayMs?: number;
  maxDelayMs?: number;
}

export interface ResumableSource {
  /** Opens the original stream. */
  open: () => Promise<AsyncIterable<StreamItem>>;
  /** SubscribeToTask, sending `Last-Event-ID` when `lastEventId` is given. */
  resubscribe: (taskId: string, lastEventId: string | undefined) => Promise<AsyncIterable<StreamItem>>;
  getTask: (taskId: string) => Promise<Task>;
  /** `false` turns resumption off. */
  options: ResumeOptions | false;
  signal?: AbortSignal | undefined;
}

/** JSON with sorted keys, to compare two snapshots from different responses. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Same status and artifacts: the snapshot tells nothing the stream did not (history may be trimmed). */
function sameTask(a: Task | undefined, b: Task): boolean {
  return a !== undefined && stable([a.status, a.artifacts ?? []]) === stable([b.status, b.artifacts ?? []]);
}

/**
 * An SSE id that can go back as `Last-Event-ID`: printable ASCII (a header value), at most 1,024
 * characters. Any other id (`id: ✓`) is no cursor the client can send: the stream is then
 * resumed as one without ids.
 */
function usableEventId(id: string): boolean {
  return id.length <= 1024 && /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(id);
}

function seqOf(id: string | undefined): number | undefined {
  return id !== undefined && /^\d{1,15}$/.test(id) ? Number(id) : undefined;
}

/**
 * The events of a task stream, resumed after a drop. With SSE ids the stream is resubscribed
 * with `Last-Event-ID` and the server replays exactly what was missed (events at or below the
 * last id are skipped should it replay more); without ids it is resubscribed plainly and the
 * opening snapshot is passed on only when it differs from what was already assembled. A
 * resubscribed stream that opens with a task snapshot numbered at or below the last id seen
 * comes from a server that numbers each connection's events (Last-Event-ID is no part of A2A,
 * SSE-07): its ids are no cursor, and it is read as a stream without ids. A task that became
 * terminal meanwhile (resubscribe refused, LIFE-04) ends with its GetTask snapshot. A stream
 * ends at an interrupted state, except one dropped at AUTH_REQUIRED: it is resubscribed like any
 * dropped stream, as the agent may resume on its own (AUTHZ-06), and ends there if the server
 * closes it cleanly or cannot be reached.
 */
export async function* resumableStream(source: ResumableSource): AsyncGenerator<StreamResponse> {
  const assembler = new TaskAssembler();
  const options = source.options;
  let lastId: string | undefined;
  let failures = 0;
  let resumed = false;
  let items: AsyncIterable<StreamItem> | StreamItem[] = await source.open();
  for (;;) {
    let cause: unknown;
    let first = resumed;
    // This stream's ids restarted: they say nothing about what was already seen.
    let renumbered = false;
    try {
      for await (const item of items) {
        const opening = first;
        first = false;
        const seq = seqOf(item.id);
        const last = seqOf(lastId);
        const seen = seq !== undefined && last !== undefined && seq <= last;
        const isTask = 'task' in item.event;
        if (opening && seen && isTask) renumbered = true;
        if (seen && !renumbered) continue;
        // Without usable ids the resubscription opens with a snapshot that may repeat what we have (SUB-01).
        const snapshotOnResume = opening && isTask && (renumbered || lastId === undefined);
        if (item.id) lastId = usableEventId(item.id) ? item.id : undefined;
        if (snapshotOnResume && sameTask(assembler.task, (item.event as { task: Task }).task)) continue;
        assembler.apply(item.event);
        failures = 0;
        yield item.event;
      }
    } catch (error) {
      // Only a broken connection is resumed; an error the agent sent ends the stream.
      if (!A2AClientError.is(error, 'NETWORK')) throw error;
      cause = error;
    }
    // A drop while the task waits for an out-of-band credential is resumed: the server may keep
    // streams open at AUTH_REQUIRED and deliver the resumption (decision A2). A clean end is not.
    const waitsForAuth = cause !== undefined && !assembler.message && assembler.task?.status.state === 'TASK_STATE_AUTH_REQUIRED';
    if (assembler.settled && !waitsForAuth) return;
    const taskId = assembler.task?.id;
    if (options === false || !taskId || failures >= (options.retries ?? 5)) {
      if (assembler.settled) return;
      throw new A2AClientError('STREAM_CLOSED', 'The stream ended before the task reached a terminal or interrupted state', { cause });
    }
    await sleep(Math.min(options.maxDelayMs ?? 5_000, (options.delayMs ?? 250) * 2 ** failures++), source.signal);
    try {
      items = await source.resubscribe(taskId, lastId);
      resumed = true;
    } catch (error) {
      if (A2AError.is(error) && error.reason === 'UNSUPPORTED_OPERATION') {
        const task = await source.getTask(taskId);
        if (!sameTask(assembler.task, task)) yield { task };
        return;
      }
      if (!A2AClientError.is(error, 'NETWORK')) throw error;
      items = [];
    }
  }
}

export interface WaitOptions {
  /** `terminal` (default) or `finalForNow` (terminal or interrupted: the agent waits for the client). */
  until?: 'terminal' | 'finalForNow';
  /** Polling interval when streaming is not available, and pause between resubscriptions (default 1 s). */
  pollMs?: number;
  signal?: AbortSignal;
}

export interface WaitSource {
  streaming: boolean;
  subscribe: (taskId: string) => AsyncIterable<StreamResponse>;
  getTask: (taskId: string) => Promise<Task>;
}

/** Resolves with the task once it reaches `until`: SubscribeToTask when streaming, else GetTask polling. */
export async function waitForTask(source: WaitSource, taskId: string, options: WaitOptions = {}): Promise<Task> {
  const reached = (task: Task) =>
    options.until === 'finalForNow' ? isFinalForNow(task.status.state) : isTerminalState(task.status.state);
  let streaming = source.streaming;
  for (;;) {
    if (streaming) {
      try {
        const assembler = new TaskAssembler();
        for await (const event of source.subscribe(taskId)) {
          const task = assembler.apply(event);
          if (task && reached(task)) return task;
        }
      } catch (error) {
        // Refused: the task is terminal already (LIFE-04) or the agent cannot stream after all.
        if (!(A2AError.is(error) && error.reason === 'UNSUPPORTED_OPERATION')) throw error;
        streaming = false;
      }
    }
    if (!streaming) {
      const task = await source.getTask(taskId);
      if (reached(task)) return task;
    }
    await sleep(options.pollMs ?? 1_000, options.signal);
  }
}
