/**
 * Reading stored tasks for a caller: whose a task is (ownerOf), the ownership check every
 * operation on a task starts with (requireTask, SEC-03), whose a context is (requireOwnContext,
 * TENANT-06), and the two read operations, GetTask and ListTasks.
 */
import { TaskNotFoundError, invalidField } from '../protocol/errors.js';
import type { GetTaskRequest, ListTasksRequest, ListTasksResponse, Task } from '../protocol/types.js';
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
 * TENANT-06 / CTX-04: a new task joins a client-chosen context only if no other caller's task is
 * in it; otherwise InvalidParams on `message.contextId` (never a silently minted new context).
 * Contexts keep one owner this way, so any task of the caller's in the context says it is the
 * caller's (an index range on owner and context); only a context new to the caller is looked up
 * without the owner (its newest task says whose it is; the SQL stores have no owner-less context
 * index, so that lookup reads the tenant's tasks). None where every caller is the same owner
 * (no authentication: everyone is '').
 */
export async function requireOwnContext(store: TaskStore, context: { tenant: string; contextId: string }, ctx: CallContext): Promise<void> {
  const owner = ownerOf(ctx);
  if (owner === '' && ctx.authChecked !== true) return;
  // The usual case, a caller continuing its own context: one index range (owner, context).
  if ((await store.list({ tenant: context.tenant, owner, contextId: context.contextId, pageSize: 1 })).records.length > 0) return;
  const newest = (await store.list({ tenant: context.tenant, contextId: context.contextId, pageSize: 1 })).records[0];
  if (newest && newest.owner !== owner) {
    throw invalidField('message.contextId', 'belongs to another caller; send the message without contextId to start a new context');
  }
}

export async function getTask(store: TaskStore, req: GetTaskRequest, owner: string): Promise<Task> {
  const record = await requireTask(store, { tenant: req.tenant ?? '', id: req.id }, owner);
  return shapeTask(record.task, { historyLength: req.historyLength });
}

export async function listTasks(store: TaskStore, req: ListTasksRequest, owner: string): Promise<ListTasksResponse> {
  const pageSize = req.pageSize ?? 50;
  const after = decodePageToken(req);
  const result = await store.list({
    tenant: req.tenant ?? '',
    // ListTasks shows only the caller's tasks (spec 13.1).
    owner,
    ...(req.contextId ? { contextId: req.contextId } : {}),
    ...(req.status ? { status: req.status } : {}),
    ...(req.statusTimestampAfter ? { statusTimestampAfter: req.statusTimestampAfter } : {}),
    pageSize,
    ...(after ? { after } : {}),
  });
  const shape = { historyLength: req.historyLength, includeArtifacts: req.includeArtifacts === true };
  const last = result.records[result.records.length - 1];
  return {
    tasks: result.records.map((r) => shapeTask(r.task, shape)),
    nextPageToken: result.hasMore && last ? encodePageToken(req, { timestamp: statusTime(last.task), id: last.task.id }) : '',
    pageSize,
    totalSize: result.totalSize,
  };
}
