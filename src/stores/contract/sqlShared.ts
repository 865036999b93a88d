/**
 * What the SQL stores share: the columns derived from a task, the canonical form of the
 * ordering timestamp, and the shape of a ListTasks query. Both engines order rows by
 * (status_ts DESC, id DESC) with byte-wise text comparison, which matches the memory store's
 * JavaScript string order for the ISO-8601 UTC timestamps the server writes.
 */
import type { Task } from '../../protocol/types.js';
import { millisRoundedUp } from '../../protocol/timestamp.js';
import { statusTime, type ListQuery } from '../../server/stores/taskStore.js';

/** States after which a task never changes (LIFE-01); retention purges only these. */
export const TERMINAL_STATES = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'] as const;

/**
 * The instant as `YYYY-MM-DDTHH:mm:ss.sssZ`, so string order is time order whatever ISO form
 * the value came in (`…Z`, `…+01:00`, no milliseconds). Unparseable text is kept as is.
 */
export function canonicalTime(value: string): string {
  return canonicalMillis(Date.parse(value), value);
}

/** `ms` as `YYYY-MM-DDTHH:mm:ss.sssZ`, or `raw` when `ms` is NaN or out of that form's range. */
function canonicalMillis(ms: number, raw: string): string {
  if (Number.isNaN(ms)) return raw;
  const iso = new Date(ms).toISOString();
  // Years outside 0000–9999 get a sign and six digits, which would sort wrongly: keep those raw.
  return iso.length === 24 ? iso : raw;
}

export interface TaskColumns {
  contextId: string | null;
  state: string;
  statusTs: string;
  json: string;
}

export function taskColumns(task: Task): TaskColumns {
  return {
    contextId: task.contextId ?? null,
    state: task.status.state,
    statusTs: canonicalTime(statusTime(task)),
    json: JSON.stringify(task),
  };
}

/** The WHERE clause of a list query as parts, shared by both dialects (placeholders differ). */
export interface ListFilter {
  /** Exact owner ('' = anonymous tasks); the owner indexes lead with (tenant, owner). */
  owner?: string;
  contextId?: string;
  state?: string;
  /** Canonical inclusive lower bound. */
  since?: string;
  /** Canonical keyset cursor. */
  after?: { timestamp: string; id: string };
}

export function listFilter(query: ListQuery): ListFilter {
  const filter: ListFilter = {};
  if (query.owner !== undefined) filter.owner = query.owner;
  if (query.contextId !== undefined) filter.contextId = query.contextId;
  if (query.status !== undefined) filter.state = query.status;
  if (query.statusTimestampAfter !== undefined) {
    // Rounded up to the millisecond the stored timestamps have: `.680` is before `.680999` (LIST-07).
    const since = millisRoundedUp(query.statusTimestampAfter);
    if (!Number.isNaN(since)) filter.since = canonicalMillis(since, query.statusTimestampAfter);
  }
  if (query.after) filter.after = { timestamp: canonicalTime(query.after.timestamp), id: query.after.id };
  return filter;
}

/**
 * The WHERE clause of a list query, written once for both dialects: `base` is the filter (and
 * what totalSize counts), `cursor` the keyset bound (` AND …`, or empty). `bind` takes a value
 * and returns its placeholder (`$n` on PostgreSQL, `@name` on SQLite).
 */
export function listWhere(tenant: string, filter: ListFilter, bind: (value: string) => string): { base: string; cursor: string } {
  const where = [`tenant = ${bind(tenant)}`];
  if (filter.owner !== undefined) where.push(`owner = ${bind(filter.owner)}`);
  if (filter.contextId !== undefined) where.push(`context_id = ${bind(filter.contextId)}`);
  if (filter.state !== undefined) where.push(`state = ${bind(filter.state)}`);
  if (filter.since !== undefined) where.push(`status_ts >= ${bind(filter.since)}`);
  let cursor = '';
  if (filter.after) {
    const t = bind(filter.after.timestamp);
    const i = bind(filter.after.id);
    // Keyset: the range on status_ts uses the index; the OR only trims the boundary timestamp.
    cursor = ` AND status_ts <= ${t} AND (status_ts < ${t} OR id < ${i})`;
  }
  return { base: where.join(' AND '), cursor };
}

/** Validates a page size: the request layer bounds it, the store only refuses nonsense. */
export function pageLimit(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 0) throw new RangeError(`pageSize must be a non-negative integer, got ${pageSize}`);
  return pageSize;
}
