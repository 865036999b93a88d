/**
 * The task statements of the SQLite store (sqliteStore.ts), prepared once per database: the
 * snapshot row, the event log, message-id claims, the outbox rows of new events, and context owners.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { SQLITE_CONTEXT_DIALECT, contextStatements } from '../contract/contextSql.js';
import { chunkUpdateSql, lagEventsSql } from '../contract/snapshotLag.js';
import type { RecordRow } from '../contract/taskRows.js';

/**
 * R11: the outbox rows of the events `first…last` just inserted, one per config of the task, in
 * the writer's transaction. A task without configs costs one empty primary-key range lookup
 * (CROSS JOIN keeps SQLite from starting at the events instead).
 */
export const ENQUEUE_SQL = `INSERT INTO push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
  SELECT c.tenant, c.task_id, c.id, e.seq, @now, @now FROM push_configs c
  CROSS JOIN events e ON e.tenant = c.tenant AND e.task_id = c.task_id AND e.seq BETWEEN @first AND @last
  WHERE c.tenant = @tenant AND c.task_id = @taskId`;

export interface TaskRow extends RecordRow {
  owner: string;
  version: number;
  seq: number;
}

/** The columns of a task row's record (taskRows.ts), from `tasks t`: the snapshot and the events it lags behind. */
export const RECORD_COLUMNS = `t.owner, t.task_json, t.version, t.seq, ${lagEventsSql('events', 't')}`;

/** The parameters of the chunk write (snapshotLag.ts). */
export interface ChunkParams {
  tenant: string;
  taskId: string;
  expectedVersion: number;
  count: number;
  chars: number;
  now: string;
}

export interface TaskStatements {
  get: Statement<[string, string], TaskRow>;
  insertTask: Statement<unknown[]>;
  update: Statement<unknown[], { seq: number; owner: string }>;
  updateSnapshot: Statement<unknown[], { seq: number; owner: string }>;
  updateChunk: Statement<[ChunkParams], { seq: number; owner: string }>;
  insertEvent: Statement<[string, string, number, string]>;
  events: Statement<[string, string, number], { seq: number; event_json: string }>;
  claim: Statement<[MessageKey & { taskId: string; fingerprint: string }]>;
  findMessage: Statement<[MessageKey], { task_id: string; fingerprint: string }>;
  enqueue: Statement<[{ tenant: string; taskId: string; first: number; last: number; now: string }]>;
  contextOwner: Statement<[ContextKey], { owner: string }>;
  claimContext: Statement<[ContextKey & { owner: string; now: string }]>;
}

/** IDEM-02: a message id as named parameters: claimed per tenant and owner. */
export interface MessageKey {
  tenant: string;
  owner: string;
  messageId: string;
}

/** A context as named parameters. */
export interface ContextKey {
  tenant: string;
  contextId: string;
}

/** Prepares the task statements on `db` (after its migrations ran). */
export function prepareTaskStatements(db: Db): TaskStatements {
  const contexts = contextStatements({ prefix: '', ...SQLITE_CONTEXT_DIALECT });
  return {
    get: db.prepare(`SELECT ${RECORD_COLUMNS} FROM tasks t WHERE t.tenant = ? AND t.id = ?`),
    insertTask: db.prepare(
      `INSERT INTO tasks (tenant, id, owner, context_id, state, status_ts, version, seq, task_json, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    // A new snapshot: it lags behind nothing, with the room its size gives (snapshotLag.ts).
    update: db.prepare(
      `UPDATE tasks SET context_id = ?, state = ?, status_ts = ?, task_json = ?, snapshot_lag = 0, snapshot_room = ?, updated_at = ?,
              version = version + 1, seq = seq + ?
       WHERE tenant = ? AND id = ? AND version = ? RETURNING seq, owner`,
    ),
    // Same row, index columns untouched: SQLite then leaves the task indexes alone.
    updateSnapshot: db.prepare(
      `UPDATE tasks SET task_json = ?, snapshot_lag = 0, snapshot_room = ?, updated_at = ?, version = version + 1, seq = seq + ?
       WHERE tenant = ? AND id = ? AND version = ? AND state = ? AND status_ts = ? AND context_id IS ? RETURNING seq, owner`,
    ),
    updateChunk: db.prepare(chunkUpdateSql('tasks', { now: '@now' })),
    insertEvent: db.prepare('INSERT INTO events (tenant, task_id, seq, event_json) VALUES (?, ?, ?, ?)'),
    events: db.prepare('SELECT seq, event_json FROM events WHERE tenant = ? AND task_id = ? AND seq > ? ORDER BY seq'),
    // The owner is the task's (immutable); a purged task takes its messages with it.
    claim: db.prepare(
      `INSERT INTO messages (tenant, owner, message_id, task_id, fingerprint) VALUES (@tenant, @owner, @messageId, @taskId, @fingerprint)
       ON CONFLICT DO NOTHING`,
    ),
    findMessage: db.prepare('SELECT task_id, fingerprint FROM messages WHERE tenant = @tenant AND owner = @owner AND message_id = @messageId'),
    enqueue: db.prepare(ENQUEUE_SQL),
    contextOwner: db.prepare(contexts.owner),
    claimContext: db.prepare(contexts.claim),
  };
}
