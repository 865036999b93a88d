/**
 * The one reducer of task state: applies a stream event to a Task and returns a new Task,
 * sharing unchanged parts (copy-on-write, never mutating its input). The server uses it to
 * keep snapshots in step with the event log; the client uses it to assemble streamed tasks.
 * Lists grow by `concat`, which allocates exactly the length needed (a spread literal reserves
 * room for 17 elements), since a snapshot is kept for as long as its task.
 */
import type { Artifact, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskStatus } from './types.js';

export function applyEvent(task: Task, event: StreamResponse): Task {
  if ('task' in event) return event.task;
  if ('statusUpdate' in event) return applyStatus(task, event.statusUpdate.status);
  if ('artifactUpdate' in event) return applyArtifact(task, event.artifactUpdate);
  if ('message' in event) return appendHistory(task, event.message);
  return task;
}

/** C6: the superseded status message moves into history, so nothing is shown twice. */
export function applyStatus(task: Task, status: TaskStatus): Task {
  const previous = task.status.message;
  const history = previous ? (task.history ?? []).concat(previous) : task.history;
  const next: Task = { ...task, status };
  if (history) next.history = history;
  return next;
}

export function appendHistory(task: Task, message: Message): Task {
  return { ...task, history: (task.history ?? []).concat(message) };
}

/**
 * A follow-up user message: the agent's current status message (the question of
 * INPUT_REQUIRED, say) moves into history first, so history stays in conversation order.
 */
export function appendUserMessage(task: Task, message: Message): Task {
  const question = task.status.message;
  if (!question) return appendHistory(task, message);
  const { message: _moved, ...status } = task.status;
  return { ...task, status, history: (task.history ?? []).concat(question, message) };
}

/** STREAM-10: append adds parts to the artifact with the same id; otherwise add or replace. */
export function applyArtifact(task: Task, update: TaskArtifactUpdateEvent): Task {
  const artifacts = task.artifacts ?? [];
  const index = artifacts.findIndex((a) => a.artifactId === update.artifact.artifactId);
  let next: Artifact[];
  if (index < 0) {
    next = artifacts.concat(update.artifact);
  } else {
    const existing = artifacts[index] as Artifact;
    const merged: Artifact = update.append
      ? // The update's fields win, except parts, which are appended (key order stays the existing one's).
        { ...existing, ...update.artifact, parts: existing.parts.concat(update.artifact.parts) }
      : update.artifact;
    next = artifacts.slice();
    next[index] = merged;
  }
  return { ...task, artifacts: next };
}

