/**
 * What an agent uses to report its work: status changes, artifacts (whole or in chunks),
 * questions, completion, failure, or a direct message reply that creates no task.
 * Every method resolves once the change is durable in the store and visible to streams.
 */
import type { Artifact, JsonObject, Message, Part, TaskState } from '../protocol/types.js';

export type Content = string | Part | Part[];

/**
 * A whole Message as a status message (another agent's, relayed): its parts, metadata, extensions
 * and referenceTaskIds are kept, and its messageId (a new one when it has none); taskId and
 * contextId become this task's, and role ROLE_AGENT (a status message is the agent's).
 */
export type WholeMessage = Omit<Message, 'messageId' | 'role'> & { messageId?: string; role?: Message['role'] };

/** What a status message can be given as: Content, or a whole Message. */
export type StatusMessage = Content | WholeMessage;

/** A whole Artifact (another agent's, relayed), its artifactId a new one when it has none. */
export type WholeArtifact = Omit<Artifact, 'artifactId'> & { artifactId?: string };

export interface StatusOptions {
  /** The status update event's own `metadata` (TaskStatusUpdateEvent.metadata), not stored with the task. */
  eventMetadata?: JsonObject | undefined;
}

/**
 * How an artifact is written. With a WholeArtifact, the fields given here win over its own.
 * `| undefined` everywhere, so that a relayed event's optional fields can be passed on as they are.
 */
export interface ArtifactOptions {
  /** Defaults to a new UUID; pass the same id with `append` to stream chunks of one artifact. */
  artifactId?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  append?: boolean | undefined;
  lastChunk?: boolean | undefined;
  metadata?: JsonObject | undefined;
  extensions?: string[] | undefined;
  /** The artifact update event's own `metadata` (TaskArtifactUpdateEvent.metadata), not stored with the task. */
  eventMetadata?: JsonObject | undefined;
}

export interface TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  /** Answer with a Message and create no task (LIFE-11). Only before any task event. */
  reply(content: Content, options?: { metadata?: JsonObject }): Promise<void>;
  /** Make sure the task exists (SUBMITTED) without changing anything else. */
  submit(): Promise<void>;
  startWork(message?: StatusMessage): Promise<void>;
  /** Any state change, with an optional agent message (Content, or a whole Message to relay) and event metadata. */
  setStatus(state: TaskState, message?: StatusMessage, options?: StatusOptions): Promise<void>;
  /**
   * Adds (or with `append` extends) an artifact, given as Content or as a whole Artifact (to
   * relay); returns its id, or '' when the write was ignored because the task had already ended
   * (reported to onError). Content and options are checked like a client's request: a malformed
   * artifact is a TypeError.
   */
  addArtifact(content: Content | WholeArtifact, options?: ArtifactOptions): Promise<string>;
  requireInput(question: StatusMessage): Promise<void>;
  requireAuth(message: StatusMessage): Promise<void>;
  complete(message?: StatusMessage): Promise<void>;
  fail(message?: StatusMessage): Promise<void>;
  reject(message?: StatusMessage): Promise<void>;
  cancel(message?: StatusMessage): Promise<void>;
  /**
   * Sets members of the task's own `metadata` (A2A Task.metadata), stored with the task: visible
   * in GetTask and ListTasks, in `ctx.task` of later runs and of cancel(), after a restart or on
   * another instance. Merged at the top level: each key given replaces that key, the others are
   * kept (there is no removal; store `null`). No stream event carries it (A2A has none for task
   * metadata); a stream or subscription opened later starts with it. Ignored (and reported) once
   * the task is terminal, like every other write.
   */
  setMetadata(metadata: JsonObject): Promise<void>;
  /** Builds an agent message in this task's context. */
  agentMessage(content: Content): Message;
  /** True once the task reached a terminal state; later updates are ignored. */
  readonly isTerminal: boolean;
}

/** A whole Message or Artifact (it has `parts`), not Content (a string, a Part or a Part[]). */
export function isWhole<T extends { parts: unknown }>(value: Content | T): value is T {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'parts' in value;
}

export function toParts(content: Content): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content : [content];
}

export type { Artifact };
