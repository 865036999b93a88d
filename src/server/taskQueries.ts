/**
 * Reading stored tasks for a caller: whose a task is (ownerOf), the ownership check every
 * operation on a task starts with (requireTask, SEC-03), whose a context is (requireOwnContext,
 * TENANT-06), and the two read operations, GetTask and ListTasks.
 */
import { TaskNotFoundError, invalidField } from '../protocol/errors.js';
import type { GetTaskRequest, ListTasksRequest, ListTasksResponse, Task } from '../protocol/types.js';
import { jsonLength } from './jsonLength.js';
import { decodePageToken, encodePageToken } from './pageToken.js';
import type { CallContext } from './requestHandler.js';
import { statusTime, type TaskRecord, type TaskStore } from './stores/taskStore.js';
import { shapeTask } from './taskShape.js';

/** Tasks belong to who created them: the authenticated principal, or '' without authentication. */
export function ownerOf(ctx: CallContext): string {
  return ctx.principal?.id ?? '';
}

/** SEC-03 / spec 13.1: someone else's task is reported exactly like a missing one. */
export async function requireTask(store: TaskStore, task: { tenant: string; id: string }, owner: string): Promise<TaskRecord> {
  const record = await store.get(task.tenant, task.id);
  if (!record || record.owner !== owner) throw new TaskNotFoundError(`Task ${task.id} not found`, { metadata: { taskId: task.id } });
  return record;
}

/**
 * TENANT-06: whether the contexts of this caller's server have owners to tell apart — a caller
 * with a principal, or an anonymous one behind an authenticator. Without authentication every
 * caller is '' and nothing about contexts is checked or recorded.
 */
export function ownsContexts(ctx: CallContext): boolean {
  return ownerOf(ctx) !== '' || ctx.authChecked === true;
}

/**
 * TENANT-06 / CTX-04: a new task joins a client-chosen context only if it is the caller's;
 * otherwise InvalidParams on `message.contextId` (never a silently minted new context). Whose a
 * context is comes from one atomic claim in the store (TaskStore.claimContext): its recorded
 * owner, else its oldest task's, else — an id unknown to everyone — the caller, recorded now, so
 * of two callers racing for a new id only one gets it. A context that holds tasks of two owners
 * (data from before contexts were checked) refuses neither of them: a caller with a task in it
 * is let in (a second query, on the refusal path only).
 */
export async function requireOwnContext(store: TaskStore, context: { tenant: string; contextId: string }, ctx: CallContext): Promise<void> {
  if (!ownsContexts(ctx)) return;
  const owner = ownerOf(ctx);
  if ((await store.claimContext(context.tenant, context.contextId, owner)) === owner) return;
  if ((await store.list({ tenant: context.tenant, owner, contextId: context.contextId, pageSize: 1 })).records.length > 0) return;
  throw invalidField('message.contextId', 'belongs to another caller; send the message without contextId to start a new context');
}

export async function getTask(store: TaskStore, req: GetTaskRequest, owner: string): Promise<Task> {
  const record = await requireTask(store, { tenant: req.tenant ?? '', id: req.id }, owner);
  return shapeTask(record.task, { historyLength: req.historyLength });
}

/** Who lists, and how much one answer may carry (TaskLimits.maxListResponseChars). */
export interface ListScope {
  owner: string;
  maxListResponseChars: number;
}

/**
 * ListTasks: one page of the caller's tasks, shaped. `pageSize` is an upper bound (LIST-09: the
 * size applied): the page also ends before the task that would take the tasks' JSON past
 * `maxListResponseChars` (measured without serializing, ./jsonLength.ts), always with at least
 * one task, so one call never builds an answer of gigabytes; the stores do not read the rows
 * past it (ListQuery.fits). A page ended early has a nextPageToken from its last task, made
 * like every other (LIST-02), so the next page goes on right after it: nothing skipped,
 * nothing repeated.
 */
export async function listTasks(store: TaskStore, req: ListTasksRequest, scope: ListScope): Promise<ListTasksResponse> {
  const pageSize = req.pageSize ?? 50;
  const after = decodePageToken(req);
  const shape = { historyLength: req.historyLength, includeArtifacts: req.includeArtifacts === true };
  const room = pageRoom(scope.maxListResponseChars);
  const result = await store.list({
    tenant: req.tenant ?? '',
    // ListTasks shows only the caller's tasks (spec 13.1).
    owner: scope.owner,
    ...(req.contextId ? { contextId: req.contextId } : {}),
    ...(req.status ? { status: req.status } : {}),
    ...(req.statusTimestampAfter ? { statusTimestampAfter: req.statusTimestampAfter } : {}),
    pageSize,
    ...(after ? { after } : {}),
    fits: (record) => room(shapeTask(record.task, shape)),
  });
  // Again, for a store that does not ask `fits`: the same page.
  const fits = pageRoom(scope.maxListResponseChars);
  const shaped = result.records.map((r) => shapeTask(r.task, shape));
  const kept = shaped.findIndex((task) => !fits(task));
  const tasks = kept < 0 ? shaped : shaped.slice(0, kept);
  const last = tasks[tasks.length - 1];
  const more = result.hasMore || tasks.length < result.records.length;
  return {
    tasks,
    nextPageToken: more && last ? encodePageToken(req, { timestamp: statusTime(last), id: last.id }) : '',
    pageSize,
    totalSize: result.totalSize,
  };
}

/**
 * A page's room for tasks: called with each in order, true while they fit in `maxChars`
 * together (the first always fits).
 */
function pageRoom(maxChars: number): (task: Task) => boolean {
  let chars = 0;
  let count = 0;
  return (task) => {
    chars += jsonLength(task) + (count > 0 ? 1 : 0);
    return count++ === 0 || chars <= maxChars;
  };
}
