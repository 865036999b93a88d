/**
 * What an agent uses to report its work: status changes, artifacts (whole or in chunks),
 * questions, completion, failure, or a direct message reply that creates no task.
 * Every method resolves once the change is durable in the store and visible to streams.
 */
import type { Artifact, JsonObject, Message, Part, TaskState } from '../protocol/types.js';

export type Content = string | Part | Part[];

export interface ArtifactOptions {
  /** Defaults to a new UUID; pass the same id with `append` to stream chunks of one artifact. */
  artifactId?: string;
  name?: string;
  description?: string;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
  extensions?: string[];
}

export interface TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  /** Answer with a Message and create no task (LIFE-11). Only before any task event. */
  reply(content: Content, options?: { metadata?: JsonObject }): Promise<void>;
  /** Make sure the task exists (SUBMITTED) without changing anything else. */
  submit(): Promise<void>;
  startWork(message?: Content): Promise<void>;
  /** Any state change, with an optional agent message. */
  setStatus(state: TaskState, message?: Content): Promise<void>;
  /**
   * Adds (or with `append` extends) an artifact; returns its id, or '' when the write was ignored
   * because the task had already ended (reported to onError). Content and options are checked
   * like a client's request: a malformed artifact is a TypeError.
   */
  addArtifact(content: Content, options?: ArtifactOptions): Promise<string>;
  requireInput(question: Content): Promise<void>;
  requireAuth(message: Content): Promise<void>;
  complete(message?: Content): Promise<void>;
  fail(message?: Content): Promise<void>;
  reject(message?: Content): Promise<void>;
  cancel(message?: Content): Promise<void>;
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

export function toParts(content: Content): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content : [content];
}

export type { Artifact };
