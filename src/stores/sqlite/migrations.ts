/**
 * Versioned schema of the SQLite store. Each migration runs once, in order, inside one
 * IMMEDIATE transaction together with its row in `schema_version`, so a crash mid-migration
 * leaves the previous version intact and two processes opening one file never both apply it.
 * Append new migrations at the end; never edit one that has shipped.
 */
import type { Database } from 'better-sqlite3';
import { IncompatibleStoreError } from '../contract/incompatibleStore.js';

export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'tasks and events',
    sql: `
      CREATE TABLE tasks (
        tenant     TEXT    NOT NULL,
        id         TEXT    NOT NULL,
        context_id TEXT,
        state      TEXT    NOT NULL,
        status_ts  TEXT    NOT NULL,
        version    INTEGER NOT NULL,
        seq        INTEGER NOT NULL,
        task_json  TEXT    NOT NULL,
        created_at TEXT    NOT NULL,
        updated_at TEXT    NOT NULL,
        PRIMARY KEY (tenant, id)
      );
      CREATE INDEX tasks_by_time    ON tasks (tenant, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_context ON tasks (tenant, context_id, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_state   ON tasks (tenant, state, status_ts DESC, id DESC);
      CREATE INDEX tasks_terminal   ON tasks (status_ts)
        WHERE state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');
      CREATE INDEX tasks_active     ON tasks (state)
        WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');
      CREATE TABLE events (
        tenant     TEXT    NOT NULL,
        task_id    TEXT    NOT NULL,
        seq        INTEGER NOT NULL,
        event_json TEXT    NOT NULL,
        PRIMARY KEY (tenant, task_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE messages (
        tenant      TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        task_id     TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        PRIMARY KEY (tenant, message_id)
      ) WITHOUT ROWID;
      CREATE INDEX messages_by_task ON messages (tenant, task_id);
      CREATE TABLE instances (
        host       TEXT    NOT NULL,
        pid        INTEGER NOT NULL,
        started_at TEXT    NOT NULL,
        PRIMARY KEY (host, pid)
      );
    `,
  },
  {
    version: 2,
    name: 'push configs and delivery outbox',
    // Deliveries name their event by (tenant, task_id, seq) instead of copying it. Times are
    // ISO-8601 UTC text (toISOString), whose string order is time order.
    sql: `
      CREATE TABLE push_configs (
        tenant      TEXT NOT NULL,
        task_id     TEXT NOT NULL,
        id          TEXT NOT NULL,
        config_json TEXT NOT NULL,
        PRIMARY KEY (tenant, task_id, id)
      ) WITHOUT ROWID;
      CREATE TABLE push_deliveries (
        tenant          TEXT    NOT NULL,
        task_id         TEXT    NOT NULL,
        config_id       TEXT    NOT NULL,
        seq             INTEGER NOT NULL,
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT    NOT NULL,
        locked_until    TEXT,
        created_at      TEXT    NOT NULL,
        status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dead')),
        last_error      TEXT,
        PRIMARY KEY (tenant, task_id, config_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX push_deliveries_due    ON push_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX push_deliveries_locked ON push_deliveries (locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;
      CREATE INDEX push_deliveries_dead   ON push_deliveries (tenant, created_at) WHERE status = 'dead';
    `,
  },
  {
    version: 3,
    name: 'execution leases',
    // expires_at is epoch milliseconds (Date.now() of the writer: one host shares a file).
    sql: `
      CREATE TABLE leases (
        tenant     TEXT    NOT NULL,
        task_id    TEXT    NOT NULL,
        owner      TEXT    NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, task_id)
      ) WITHOUT ROWID;
      CREATE INDEX leases_by_expiry ON leases (expires_at);
      CREATE INDEX leases_by_owner  ON leases (owner, expires_at);
    `,
  },
  {
    version: 4,
    name: 'task owners',
    // Issue 8: the principal that created a task ('' = anonymous, as every earlier task is).
    // The server's ListTasks always filters on the caller's owner, so the list indexes now lead
    // with (tenant, owner): keyset pages (and their count) stay index range scans in order, alone
    // and with a context or state filter. They replace the owner-less ones rather than joining
    // them, since every index on status_ts costs each status change a write; a list without an
    // owner (store API only) still works, sorting the tenant's tasks.
    sql: `
      ALTER TABLE tasks ADD COLUMN owner TEXT NOT NULL DEFAULT '';
      DROP INDEX tasks_by_time;
      DROP INDEX tasks_by_context;
      DROP INDEX tasks_by_state;
      CREATE INDEX tasks_by_owner         ON tasks (tenant, owner, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_owner_context ON tasks (tenant, owner, context_id, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_owner_state   ON tasks (tenant, owner, state, status_ts DESC, id DESC);
    `,
  },
  {
    version: 5,
    name: 'context lookup',
    // TENANT-06: a new task in a client-chosen context checks whose the context is, across
    // owners. Without an owner-less index on the context that lookup read the tenant's tasks
    // (~65 ms at 200k tasks, per first message of a new client-chosen context).
    sql: `
      CREATE INDEX tasks_by_context ON tasks (tenant, context_id);
    `,
  },
  {
    version: 6,
    name: 'context owners',
    // TENANT-06: whose a context is, for contexts their tasks do not tell: one the server
    // answered with a message only (no task), one whose tasks retention purged, one a caller
    // claimed before its first task. A context without a row belongs to its oldest task's owner
    // (contextSql.ts), so existing contexts need no backfill and this migration is instant.
    // updated_at: when the row was recorded, or its last tasks purged (retention, storage.md).
    sql: `
      CREATE TABLE contexts (
        tenant     TEXT NOT NULL,
        context_id TEXT NOT NULL,
        owner      TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (tenant, context_id)
      ) WITHOUT ROWID;
      CREATE INDEX contexts_by_time ON contexts (updated_at);
    `,
  },
  {
    version: 7,
    name: 'message ids per owner',
    // IDEM-02 / ERR-04: a message id is claimed per (tenant, owner), so another caller's id is
    // simply unused for this one (it was refused, telling which ids others used). SQLite cannot
    // change a primary key: the table is rebuilt, each row taking its task's owner (an owner
    // never changes, and a message was always recorded by its task's owner); a row whose task
    // is gone keeps '' (anonymous), as findMessage reported it before.
    sql: `
      ALTER TABLE messages RENAME TO messages_v6;
      DROP INDEX messages_by_task;
      CREATE TABLE messages (
        tenant      TEXT NOT NULL,
        owner       TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        task_id     TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        PRIMARY KEY (tenant, owner, message_id)
      ) WITHOUT ROWID;
      INSERT INTO messages (tenant, owner, message_id, task_id, fingerprint)
        SELECT m.tenant, coalesce(t.owner, ''), m.message_id, m.task_id, m.fingerprint
        FROM messages_v6 m LEFT JOIN tasks t ON t.tenant = m.tenant AND t.id = m.task_id;
      DROP TABLE messages_v6;
      CREATE INDEX messages_by_task ON messages (tenant, task_id);
    `,
  },
  {
    version: 8,
    name: 'snapshot lag',
    // Artifact chunks append their events without rewriting task_json (snapshotLag.ts): the
    // events the snapshot lags behind, and the characters of chunk events it may still lag by.
    // Existing rows lag behind nothing; their first chunk rewrites the snapshot, which sets the room.
    sql: `
      ALTER TABLE tasks ADD COLUMN snapshot_lag  INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN snapshot_room INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

export interface MigrationResult {
  /** Schema version before and after. */
  from: number;
  to: number;
  applied: number[];
}

/** The schema version of an open database (0 when no migration ran yet). */
export function schemaVersion(db: Database): number {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).get();
  if (!exists) return 0;
  const row = db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Runs one migration's SQL. A table or index it creates that is there already belongs to a file
 * that is not an a2a-kit store (its schema_version said nothing of it): IncompatibleStoreError.
 */
function execMigration(db: Database, sql: string): void {
  try {
    db.exec(sql);
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === 'SQLITE_ERROR' && / already exists$/.test(String(message))) {
      throw new IncompatibleStoreError(`not an a2a-kit task store: ${String(message)} (a table of another program?)`);
    }
    throw error;
  }
}

export function migrateSqlite(db: Database, migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS): MigrationResult {
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const from = schemaVersion(db);
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (from > latest) {
      throw new IncompatibleStoreError(`database schema version ${from} is newer than this a2a-kit (knows up to ${latest}); upgrade a2a-kit`);
    }
    const applied: number[] = [];
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of migrations) {
      if (m.version <= from) continue;
      execMigration(db, m.sql);
      record.run(m.version, m.name, new Date().toISOString());
      applied.push(m.version);
    }
    return { from, to: Math.max(from, latest), applied };
  });
  return run.immediate();
}
