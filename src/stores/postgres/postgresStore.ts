/**
 * TaskStore on PostgreSQL (`pg`), for several instances sharing one database. Each write is a
 * single statement — and so a single transaction — whose UPDATE carries the compare-and-set
 * (`WHERE version = $n`) and whose data-modifying CTE inserts the events under the row lock
 * that UPDATE took: one round trip, all or nothing, and a concurrent writer either waits and
 * then finds the version changed (VersionConflictError) or never saw it. Acknowledged means
 * committed with the server's `synchronous_commit` (on by default: flushed to the WAL).
 */
import pg from 'pg';
import type { Pool, PoolConfig, QueryConfig, QueryResultRow } from 'pg';
import type { StreamResponse, Task } from '../../protocol/types.js';
import {
  DuplicateMessageError,
  VersionConflictError,
  type AppendInput,
  type MessageClaim,
  type MessageRecord,
  type TaskStore,
  type ListQuery,
  type ListResult,
  type StoredEvent,
  type TaskRecord,
} from '../../server/stores/taskStore.js';
import type { ActiveTaskSource } from '../contract/recovery.js';
import { TERMINAL_STATES, canonicalTime, listFilter, pageLimit, taskColumns, type ListFilter } from '../contract/sqlShared.js';
import { POSTGRES_MIGRATIONS, migratePostgres, quoteIdent, schemaVersionPg, type MigrationResult } from './migrations.js';

export interface PostgresStoreOptions {
  /** postgres://user:pass@host:port/db — ignored when `pool` is given. */
  connectionString?: string;
  /** Bring your own pool (it is not ended by close()). */
  pool?: Pool;
  /** Extra pool settings when the store creates the pool (default max 10 connections). */
  poolConfig?: PoolConfig;
  /** Schema holding the tables (default "a2a"); created by the first migration. */
  schema?: string;
  /** Apply pending migrations on open (default true); false refuses an outdated schema. */
  migrate?: boolean;
  /** Errors of idle pooled connections (the database restarted, say); default: ignored. */
  onError?: (error: unknown) => void;
}

export interface PurgeOptions {
  /** Terminal tasks whose status timestamp is before this instant are deleted with their events. */
  before: string | Date;
  /** Most tasks deleted per statement (default 500). */
  batchSize?: number;
}

interface TaskRow {
  task_json: string;
  version: string;
  seq: string;
}

export class PostgresTaskStore implements TaskStore, ActiveTaskSource {
  private closed = false;
  private readonly q: ReturnType<typeof statements>;
  private readonly listSql = new Map<string, string>();

  readonly pool: Pool;
  readonly schema: string;
  readonly migration: MigrationResult;
  private readonly ownsPool: boolean;

  private constructor(init: { pool: Pool; schema: string; migration: MigrationResult; ownsPool: boolean }) {
    this.pool = init.pool;
    this.schema = init.schema;
    this.migration = init.migration;
    this.ownsPool = init.ownsPool;
    this.q = statements(quoteIdent(init.schema), nameTag(init.schema));
  }

  /** Connects, applies pending migrations (unless `migrate: false`) and returns the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresTaskStore> {
    const schema = options.schema ?? 'a2a';
    const ownsPool = !options.pool;
    const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 10, ...options.poolConfig });
    if (ownsPool) pool.on('error', (error) => options.onError?.(error));
    try {
      let migration: MigrationResult;
      if (options.migrate === false) {
        const current = await schemaVersionPg(pool, schema);
        const latest = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]?.version ?? 0;
        if (current !== latest) throw new Error(`database schema is at version ${current}, this a2a-kit needs ${latest}: run "a2a db migrate"`);
        migration = { from: current, to: current, applied: [] };
      } else {
        migration = await migratePostgres(pool, { schema });
      }
      return new PostgresTaskStore({ pool, schema, migration, ownsPool });
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw error;
    }
  }

  async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    const row = (await this.run<TaskRow>(this.q.get, [tenant, taskId]))[0];
    return row && { tenant, task: JSON.parse(row.task_json) as Task, version: Number(row.version), seq: Number(row.seq) };
  }

  async create(tenant: string, task: Task, options: { claim?: MessageClaim } = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const c = taskColumns(task);
    const values = [tenant, task.id, c.contextId, c.state, c.statusTs, c.json, `{"task":${c.json}}`];
    const claim = options.claim;
    const rows = await this.claiming(claim, tenant, () =>
      claim ? this.run<{ n: number }>(this.q.createClaim, [...values, claim.messageId, claim.fingerprint]) : this.run<{ n: number }>(this.q.create, values),
    );
    if (rows[0]?.n !== 1) throw new VersionConflictError(task.id);
    return { record: { tenant, task, version: 1, seq: 1 }, events: [{ seq: 1, event: { task } }] };
  }

  async append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const c = taskColumns(input.task);
    const eventJson = input.events.map((e) => JSON.stringify(e));
    const values = [input.tenant, input.taskId, input.expectedVersion, c.contextId, c.state, c.statusTs, c.json, eventJson.length, eventJson];
    const claim = input.claim;
    const rows = await this.claiming(claim, input.tenant, () =>
      claim ? this.run<{ seq: string }>(this.q.appendClaim, [...values, claim.messageId, claim.fingerprint]) : this.run<{ seq: string }>(this.q.append, values),
    );
    const row = rows[0];
    if (!row) throw new VersionConflictError(input.taskId);
    const seq = Number(row.seq);
    const first = seq - input.events.length;
    return {
      record: { tenant: input.tenant, task: input.task, version: input.expectedVersion + 1, seq },
      events: input.events.map((event, i) => ({ seq: first + i + 1, event })),
    };
  }

  /** R4: the task a user message id was recorded with, if any. */
  async findMessage(tenant: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = (await this.run<{ task_id: string; fingerprint: string }>(this.q.findMessage, [tenant, messageId]))[0];
    return row && { messageId, taskId: row.task_id, fingerprint: row.fingerprint };
  }

  /** Runs a claiming write: a duplicate message id aborts the whole statement (unique violation). */
  private async claiming<T>(claim: MessageClaim | undefined, tenant: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const e = error as { code?: string; constraint?: string };
      if (!claim || e.code !== '23505' || e.constraint !== 'messages_pkey') throw error;
      const existing = await this.findMessage(tenant, claim.messageId);
      throw new DuplicateMessageError(existing ?? { messageId: claim.messageId, taskId: '', fingerprint: '' });
    }
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = await this.run<{ seq: string; event_json: string }>(this.q.events, [tenant, taskId, afterSeq]);
    return rows.map((r) => ({ seq: Number(r.seq), event: JSON.parse(r.event_json) as StreamResponse }));
  }

  async list(query: ListQuery): Promise<ListResult> {
    const limit = pageLimit(query.pageSize);
    const filter = listFilter(query);
    const { text, values } = this.listQuery(query.tenant, filter, limit);
    // One statement: the page and totalSize come from the same snapshot.
    const rows = await this.run<{ total: string; tenant: string | null; task_json: string | null; version: string | null; seq: string | null }>(
      { text },
      values,
    );
    const total = Number(rows[0]?.total ?? 0);
    const records: TaskRecord[] = [];
    for (const r of rows) {
      if (r.task_json === null || r.tenant === null) continue;
      records.push({ tenant: r.tenant, task: JSON.parse(r.task_json) as Task, version: Number(r.version), seq: Number(r.seq) });
    }
    return { records: records.slice(0, limit), totalSize: total, hasMore: records.length > limit };
  }

  /** Tasks left SUBMITTED or WORKING, across tenants (R2 recovery, see recoverInterrupted). */
  async listActive(): Promise<Array<{ tenant: string; taskId: string }>> {
    const rows = await this.run<{ tenant: string; id: string }>(this.q.active, []);
    return rows.map((r) => ({ tenant: r.tenant, taskId: r.id }));
  }

  /**
   * Retention: deletes terminal tasks (and their events) whose status timestamp is older than
   * `before`, in batches; returns the number of tasks deleted.
   */
  async purgeTerminal(options: PurgeOptions): Promise<number> {
    const before = canonicalTime(typeof options.before === 'string' ? options.before : options.before.toISOString());
    const batch = Math.max(1, options.batchSize ?? 500);
    let total = 0;
    for (;;) {
      const rows = await this.run<{ n: number }>(this.q.purge, [before, batch]);
      const n = rows[0]?.n ?? 0;
      total += n;
      if (n < batch) return total;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  private async run<R extends QueryResultRow>(query: { name?: string; text: string }, values: unknown[]): Promise<R[]> {
    const config: QueryConfig = { text: query.text, values };
    if (query.name) config.name = query.name;
    return (await this.pool.query<R>(config)).rows;
  }

  private listQuery(tenant: string, filter: ListFilter, limit: number): { text: string; values: unknown[] } {
    const values: unknown[] = [tenant];
    const where = ['tenant = $1'];
    if (filter.contextId !== undefined) where.push(`context_id = $${values.push(filter.contextId)}`);
    if (filter.state !== undefined) where.push(`state = $${values.push(filter.state)}`);
    if (filter.since !== undefined) where.push(`status_ts >= $${values.push(filter.since)}`);
    const base = where.join(' AND ');
    let cursor = '';
    if (filter.after) {
      const t = values.push(filter.after.timestamp);
      const i = values.push(filter.after.id);
      // The range on status_ts uses the index; the OR only trims the boundary timestamp.
      cursor = ` AND status_ts <= $${t} AND (status_ts < $${t} OR id < $${i})`;
    }
    const l = values.push(limit + 1);
    const key = `${base}|${cursor}|${l}`;
    let text = this.listSql.get(key);
    if (!text) {
      const s = quoteIdent(this.schema);
      text = `WITH page AS (
          SELECT tenant, id, status_ts, task_json, version, seq FROM ${s}.tasks
          WHERE ${base}${cursor} ORDER BY status_ts DESC, id DESC LIMIT $${l}
        )
        SELECT (SELECT count(*) FROM ${s}.tasks WHERE ${base}) AS total, page.tenant, page.task_json, page.version, page.seq
        FROM (SELECT 1) AS one LEFT JOIN page ON true
        ORDER BY page.status_ts DESC, page.id DESC`;
      this.listSql.set(key, text);
    }
    return { text, values };
  }
}

function statements(s: string, tag: string) {
  const terminal = TERMINAL_STATES.map((x) => `'${x}'`).join(', ');
  const create = `WITH t AS (
          INSERT INTO ${s}.tasks (tenant, id, context_id, state, status_ts, version, seq, task_json)
          VALUES ($1, $2, $3, $4, $5, 1, 1, $6) ON CONFLICT DO NOTHING RETURNING 1
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json) SELECT $1::text, $2::text, 1, $7::text FROM t
        )`;
  const append = `WITH u AS (
          UPDATE ${s}.tasks
          SET context_id = $4, state = $5, status_ts = $6, task_json = $7, updated_at = now(),
              version = version + 1, seq = seq + $8::bigint
          WHERE tenant = $1 AND id = $2 AND version = $3
          RETURNING seq
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json)
          SELECT $1::text, $2::text, u.seq - $8::bigint + x.ord, x.j
          FROM u, unnest($9::text[]) WITH ORDINALITY AS x(j, ord)
        )`;
  return {
    get: { name: `a2a_get_${tag}`, text: `SELECT task_json, version, seq FROM ${s}.tasks WHERE tenant = $1 AND id = $2` },
    create: { name: `a2a_create_${tag}`, text: `${create} SELECT count(*)::int AS n FROM t` },
    // Without ON CONFLICT: a recorded message id raises unique_violation and undoes the whole write.
    createClaim: {
      name: `a2a_create_claim_${tag}`,
      text: `${create}, m AS (
          INSERT INTO ${s}.messages (tenant, message_id, task_id, fingerprint) SELECT $1::text, $8::text, $2::text, $9::text FROM t
        ) SELECT count(*)::int AS n FROM t`,
    },
    append: { name: `a2a_append_${tag}`, text: `${append} SELECT seq FROM u` },
    appendClaim: {
      name: `a2a_append_claim_${tag}`,
      text: `${append}, m AS (
          INSERT INTO ${s}.messages (tenant, message_id, task_id, fingerprint) SELECT $1::text, $10::text, $2::text, $11::text FROM u
        ) SELECT seq FROM u`,
    },
    findMessage: {
      name: `a2a_find_message_${tag}`,
      text: `SELECT task_id, fingerprint FROM ${s}.messages WHERE tenant = $1 AND message_id = $2`,
    },
    events: {
      name: `a2a_events_${tag}`,
      text: `SELECT seq, event_json FROM ${s}.events WHERE tenant = $1 AND task_id = $2 AND seq > $3 ORDER BY seq`,
    },
    active: {
      name: `a2a_active_${tag}`,
      text: `SELECT tenant, id FROM ${s}.tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`,
    },
    purge: {
      name: `a2a_purge_${tag}`,
      text: `WITH victims AS (
          SELECT tenant, id FROM ${s}.tasks WHERE state IN (${terminal}) AND status_ts < $1
          LIMIT $2 FOR UPDATE SKIP LOCKED
        ), ev AS (
          DELETE FROM ${s}.events e USING victims v WHERE e.tenant = v.tenant AND e.task_id = v.id
        ), msg AS (
          DELETE FROM ${s}.messages m USING victims v WHERE m.tenant = v.tenant AND m.task_id = v.id
        ), t AS (
          DELETE FROM ${s}.tasks t USING victims v WHERE t.tenant = v.tenant AND t.id = v.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM t`,
    },
  };
}

/** Prepared statement names are per connection: one set per schema, in 63 bytes. */
function nameTag(schema: string): string {
  let h = 0x811c9dc5;
  for (const ch of schema) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}
