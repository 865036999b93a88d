/**
 * Versioned schema of the PostgreSQL store, in its own schema (default `a2a`). Migrations run
 * in one transaction under an advisory lock, so instances starting together apply each one
 * exactly once and a failed migration leaves the previous version intact. Append new
 * migrations at the end; never edit one that has shipped. `{s}` is the quoted schema name.
 */
import type { Pool } from 'pg';
import { IncompatibleStoreError } from '../contract/incompatibleStore.js';

export interface PostgresMigration {
  version: number;
  name: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'tasks and events',
    sql: `
      CREATE TABLE {s}.tasks (
        tenant     text COLLATE "C" NOT NULL,
        id         text COLLATE "C" NOT NULL,
        context_id text COLLATE "C",
        state      text NOT NULL,
        status_ts  text COLLATE "C" NOT NULL,
        version    bigint NOT NULL,
        seq        bigint NOT NULL,
        task_json  text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, id)
      );
      CREATE INDEX tasks_by_time    ON {s}.tasks (tenant, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_context ON {s}.tasks (tenant, context_id, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_state   ON {s}.tasks (tenant, state, status_ts DESC, id DESC);
      CREATE INDEX tasks_terminal   ON {s}.tasks (status_ts)
        WHERE state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');
      CREATE INDEX tasks_active     ON {s}.tasks (state)
        WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');
      CREATE TABLE {s}.events (
        tenant     text COLLATE "C" NOT NULL,
        task_id    text COLLATE "C" NOT NULL,
        seq        bigint NOT NULL,
        event_json text NOT NULL,
        PRIMARY KEY (tenant, task_id, seq)
      );
      CREATE TABLE {s}.messages (
        tenant      text COLLATE "C" NOT NULL,
        message_id  text COLLATE "C" NOT NULL,
        task_id     text COLLATE "C" NOT NULL,
        fingerprint text NOT NULL,
        CONSTRAINT messages_pkey PRIMARY KEY (tenant, message_id)
      );
      CREATE INDEX messages_by_task ON {s}.messages (tenant, task_id);
    `,
  },
  {
    version: 2,
    name: 'push configs and delivery outbox',
    // Deliveries name their event by (tenant, task_id, seq) instead of copying it.
    sql: `
      CREATE TABLE {s}.push_configs (
        tenant      text COLLATE "C" NOT NULL,
        task_id     text COLLATE "C" NOT NULL,
        id          text COLLATE "C" NOT NULL,
        config_json text NOT NULL,
        PRIMARY KEY (tenant, task_id, id)
      );
      CREATE TABLE {s}.push_deliveries (
        tenant          text COLLATE "C" NOT NULL,
        task_id         text COLLATE "C" NOT NULL,
        config_id       text COLLATE "C" NOT NULL,
        seq             bigint NOT NULL,
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        locked_until    timestamptz,
        created_at      timestamptz NOT NULL,
        status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dead')),
        last_error      text,
        PRIMARY KEY (tenant, task_id, config_id, seq)
      );
      CREATE INDEX push_deliveries_due    ON {s}.push_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX push_deliveries_locked ON {s}.push_deliveries (locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;
      CREATE INDEX push_deliveries_dead   ON {s}.push_deliveries (tenant, created_at) WHERE status = 'dead';
    `,
  },
  {
    version: 3,
    name: 'execution leases',
    // Expiry is judged by the database clock (now()), so instances with skewed clocks agree.
    sql: `
      CREATE TABLE {s}.leases (
        tenant     text COLLATE "C" NOT NULL,
        task_id    text COLLATE "C" NOT NULL,
        owner      text COLLATE "C" NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, task_id)
      );
      CREATE INDEX leases_by_expiry ON {s}.leases (expires_at);
      CREATE INDEX leases_by_owner  ON {s}.leases (owner, expires_at);
    `,
  },
  {
    version: 4,
    name: 'task owners',
    // Issue 8: the principal that created a task ('' = anonymous, as every earlier task is).
    // Adding a NOT NULL column with a constant default rewrites nothing (PostgreSQL 11+).
    // The server's ListTasks always filters on the caller's owner, so the list indexes now lead
    // with (tenant, owner): keyset pages (and their count) stay index range scans in order, alone
    // and with a context or state filter. They replace the owner-less ones rather than joining
    // them, since every index on status_ts costs each status change a write; a list without an
    // owner (store API only) still works, sorting the tenant's tasks.
    sql: `
      ALTER TABLE {s}.tasks ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
      DROP INDEX {s}.tasks_by_time;
      DROP INDEX {s}.tasks_by_context;
      DROP INDEX {s}.tasks_by_state;
      CREATE INDEX tasks_by_owner         ON {s}.tasks (tenant, owner, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_owner_context ON {s}.tasks (tenant, owner, context_id, status_ts DESC, id DESC);
      CREATE INDEX tasks_by_owner_state   ON {s}.tasks (tenant, owner, state, status_ts DESC, id DESC);
    `,
  },
  {
    version: 5,
    name: 'context lookup',
    // TENANT-06: a new task in a client-chosen context checks whose the context is, across
    // owners. Without an owner-less index on the context that lookup read the tenant's tasks
    // (~65 ms at 200k tasks, per first message of a new client-chosen context).
    sql: `
      CREATE INDEX tasks_by_context ON {s}.tasks (tenant, context_id);
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
      CREATE TABLE {s}.contexts (
        tenant     text COLLATE "C" NOT NULL,
        context_id text COLLATE "C" NOT NULL,
        owner      text COLLATE "C" NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, context_id)
      );
      CREATE INDEX contexts_by_time ON {s}.contexts (updated_at);
    `,
  },
  {
    version: 7,
    name: 'message ids per owner',
    // IDEM-02 / ERR-04: a message id is claimed per (tenant, owner), so another caller's id is
    // simply unused for this one (it was refused, telling which ids others used). Each row takes
    // its task's owner (an owner never changes, and a message was always recorded by its task's
    // owner); a row whose task is gone keeps '' (anonymous), as findMessage reported it before.
    // The column is added with a constant default (no rewrite), the rows of owned tasks updated,
    // and the default dropped: every claim names its owner. The primary key keeps its name,
    // which the store reads to tell a duplicate from other unique violations.
    sql: `
      ALTER TABLE {s}.messages ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
      UPDATE {s}.messages m SET owner = t.owner FROM {s}.tasks t
        WHERE t.tenant = m.tenant AND t.id = m.task_id AND t.owner <> '';
      ALTER TABLE {s}.messages ALTER COLUMN owner DROP DEFAULT,
        DROP CONSTRAINT messages_pkey,
        ADD CONSTRAINT messages_pkey PRIMARY KEY (tenant, owner, message_id);
    `,
  },
  {
    version: 8,
    name: 'snapshot lag',
    // Artifact chunks append their events without rewriting task_json (snapshotLag.ts): the
    // events the snapshot lags behind, and the characters of chunk events it may still lag by.
    // Constant defaults: no table rewrite. Existing rows lag behind nothing; their first chunk
    // rewrites the snapshot, which sets the room.
    sql: `
      ALTER TABLE {s}.tasks ADD COLUMN snapshot_lag bigint NOT NULL DEFAULT 0,
                            ADD COLUMN snapshot_room bigint NOT NULL DEFAULT 0;
    `,
  },
];

export interface MigrationResult {
  from: number;
  to: number;
  applied: number[];
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A fixed advisory lock key per schema, so migrations of different schemas do not wait on each other. */
function lockKey(schema: string): number {
  let h = 0x811c9dc5;
  for (const ch of `a2a-kit migrations ${schema}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h | 0;
}

export async function schemaVersionPg(pool: Pool, schema: string): Promise<number> {
  const exists = await pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${quoteIdent(schema)}.schema_version`]);
  if (!exists.rows[0]?.t) return 0;
  const r = await pool.query<{ v: string | null }>(`SELECT max(version) AS v FROM ${quoteIdent(schema)}.schema_version`);
  return Number(r.rows[0]?.v ?? 0);
}

export async function migratePostgres(
  pool: Pool,
  options: { schema: string; migrations?: readonly PostgresMigration[] },
): Promise<MigrationResult> {
  const migrations = options.migrations ?? POSTGRES_MIGRATIONS;
  const s = quoteIdent(options.schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey(options.schema)]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const r = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.schema_version`);
    const from = r.rows[0]?.v ?? 0;
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (from > latest) {
      throw new IncompatibleStoreError(`database schema version ${from} is newer than this a2a-kit (knows up to ${latest}); upgrade a2a-kit`);
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (m.version <= from) continue;
      await client.query(m.sql.replaceAll('{s}', s));
      await client.query(`INSERT INTO ${s}.schema_version (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, latest), applied };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
