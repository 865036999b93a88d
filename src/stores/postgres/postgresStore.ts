/**
 * TaskStore on PostgreSQL (`pg`), for several instances sharing one database. Each write is a
 * single statement — and so a single transaction — whose UPDATE carries the compare-and-set
 * (`WHERE version = $n`) and whose data-modifying CTE inserts the events under the row lock
 * that UPDATE took: one round trip, all or nothing, and a concurrent writer either waits and
 * then finds the version changed (VersionConflictError) or never saw it. Acknowledged means
 * committed with the server's `synchronous_commit` (on by default: flushed to the WAL).
 */
import pg from 'pg';
import type { Pool, PoolClient, PoolConfig, QueryConfig, QueryResultRow } from 'pg';
import type { StreamResponse, Task } from '../../protocol/types.js';
import {
  DuplicateMessageError,
  VersionConflictError,
  appendFirstChange,
  type AppendInput,
  type MessageClaim,
  type MessageRecord,
  type TaskStore,
  type ListQuery,
  type ListResult,
  type StoredEvent,
  type TaskRecord,
  type CreateOptions,
} from '../../server/stores/taskStore.js';
import type {
  ClaimOptions,
  DeadLetter,
  DeliveryKey,
  PushConfigPage,
  PushDelivery,
  PushStore,
  StoredPushConfig,
} from '../../server/stores/pushStore.js';
import type { AcquireLease, Lease, LeaseStore } from '../../server/stores/leaseStore.js';
import {
  DEFAULT_DEAD_LETTER_LIMIT,
  compilePg,
  configJson,
  configPage,
  earliest,
  keyParams,
  optionalTime,
  parseConfig,
  pushStatements,
  rowLimit,
  toDeadLetter,
  toDelivery,
  type CompiledSql,
  type DeadLetterRow,
  type DeliveryRow,
  type PushStatementName,
  type SqlTime,
} from '../contract/pushSql.js';
import type { ActiveTaskSource } from '../contract/recovery.js';
import { POSTGRES_LEASE_DIALECT, leaseStatements, leaseTtl, toLease, type LeaseRow } from '../contract/leaseSql.js';
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
  owner: string;
  task_json: string;
  version: string;
  seq: string;
}

type PushQuery = CompiledSql & { name: string };

export class PostgresTaskStore implements TaskStore, PushStore, LeaseStore, ActiveTaskSource {
  private closed = false;
  private readonly q: ReturnType<typeof statements>;
  private readonly push: Record<PushStatementName | 'claim', PushQuery>;
  private readonly lease: Record<LeaseQueryName, PushQuery>;
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
    this.push = pushQueries(quoteIdent(init.schema), nameTag(init.schema));
    this.lease = leaseQueries(quoteIdent(init.schema), nameTag(init.schema));
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
    return row && { tenant, owner: row.owner, task: JSON.parse(row.task_json) as Task, version: Number(row.version), seq: Number(row.seq) };
  }

  async create(tenant: string, task: Task, options: CreateOptions = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const c = taskColumns(task);
    const push = options.pushConfig;
    const values = [tenant, task.id, c.contextId, c.state, c.statusTs, c.json, `{"task":${c.json}}`];
    // $8, $9: the config registered with the task (R11: its first event is enqueued too); $10: now; $11: owner.
    const owner = options.owner ?? '';
    values.push(push ? push.id : null, push ? configJson(push) : null, new Date().toISOString(), owner);
    const claim = options.claim;
    const rows = await this.claiming(claim, tenant, () =>
      claim ? this.run<{ n: number }>(this.q.createClaim, [...values, claim.messageId, claim.fingerprint]) : this.run<{ n: number }>(this.q.create, values),
    );
    if (rows[0]?.n !== 1) throw new VersionConflictError(task.id);
    return appendFirstChange(this, { record: { tenant, owner, task, version: 1, seq: 1 }, events: [{ seq: 1, event: { task } }] }, options.then);
  }

  async append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const c = taskColumns(input.task);
    const eventJson = input.events.map((e) => JSON.stringify(e));
    const values = [input.tenant, input.taskId, input.expectedVersion, c.contextId, c.state, c.statusTs, c.json, eventJson.length, eventJson];
    values.push(new Date().toISOString()); // $10: enqueue time of the deliveries
    const claim = input.claim;
    const rows = await this.claiming(claim, input.tenant, () =>
      claim
        ? this.run<{ seq: string; owner: string }>(this.q.appendClaim, [...values, claim.messageId, claim.fingerprint])
        : this.run<{ seq: string; owner: string }>(this.q.append, values),
    );
    const row = rows[0];
    if (!row) throw new VersionConflictError(input.taskId);
    const seq = Number(row.seq);
    const first = seq - input.events.length;
    return {
      record: { tenant: input.tenant, owner: row.owner, task: input.task, version: input.expectedVersion + 1, seq },
      events: input.events.map((event, i) => ({ seq: first + i + 1, event })),
    };
  }

  /** R4: the task a user message id was recorded with, if any. */
  async findMessage(tenant: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = (await this.run<{ task_id: string; fingerprint: string; owner: string | null }>(this.q.findMessage, [tenant, messageId]))[0];
    return row && { messageId, taskId: row.task_id, fingerprint: row.fingerprint, owner: row.owner ?? '' };
  }

  /** Runs a claiming write: a duplicate message id aborts the whole statement (unique violation). */
  private async claiming<T>(claim: MessageClaim | undefined, tenant: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const e = error as { code?: string; constraint?: string };
      if (!claim || e.code !== '23505' || e.constraint !== 'messages_pkey') throw error;
      const existing = await this.findMessage(tenant, claim.messageId);
      throw new DuplicateMessageError(existing ?? { messageId: claim.messageId, taskId: '', fingerprint: '', owner: '' });
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
    const rows = await this.run<{ total: string; tenant: string | null; owner: string | null; task_json: string | null; version: string | null; seq: string | null }>(
      { text },
      values,
    );
    const total = Number(rows[0]?.total ?? 0);
    const records: TaskRecord[] = [];
    for (const r of rows) {
      if (r.task_json === null || r.tenant === null) continue;
      records.push({ tenant: r.tenant, owner: r.owner ?? '', task: JSON.parse(r.task_json) as Task, version: Number(r.version), seq: Number(r.seq) });
    }
    return { records: records.slice(0, limit), totalSize: total, hasMore: records.length > limit };
  }

  /** Tasks left SUBMITTED or WORKING, across tenants (R2 recovery, see recoverInterrupted). */
  async listActive(): Promise<Array<{ tenant: string; taskId: string }>> {
    const rows = await this.run<{ tenant: string; id: string }>(this.q.active, []);
    return rows.map((r) => ({ tenant: r.tenant, taskId: r.id }));
  }

  async putPushConfig(tenant: string, config: StoredPushConfig): Promise<StoredPushConfig> {
    const json = configJson(config);
    await this.pushRun('putConfig', { tenant, taskId: config.taskId, id: config.id, json });
    return parseConfig(json);
  }

  async getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const row = (await this.pushRun<{ config_json: string }>('getConfig', { tenant, taskId, id }))[0];
    return row && parseConfig(row.config_json);
  }

  async listPushConfigs(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): Promise<PushConfigPage> {
    const limit = rowLimit(page.pageSize, 'pageSize') + 1;
    const rows =
      page.afterId === undefined
        ? await this.pushRun<{ config_json: string }>('listConfigs', { tenant, taskId, limit })
        : await this.pushRun<{ config_json: string }>('listConfigsAfter', { tenant, taskId, afterId: page.afterId, limit });
    return configPage(rows, page.pageSize);
  }

  /**
   * Two statements in one transaction, config first: an append that read the config before this
   * delete committed holds a key-share lock on it, so the DELETE waits for that append, and the
   * second statement's fresh snapshot then sees (and removes) the deliveries it enqueued. An
   * append after the first statement finds the config gone.
   */
  async deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean> {
    return this.transaction(async (client) => {
      const deleted = await client.query(this.pushConfig('deleteConfig', { tenant, taskId, id }));
      await client.query(this.pushConfig('deleteConfigDeliveries', { tenant, taskId, id }));
      return (deleted.rowCount ?? 0) > 0;
    });
  }

  async claimDeliveries(options: ClaimOptions): Promise<PushDelivery[]> {
    const limit = rowLimit(options.limit, 'limit');
    if (limit === 0) return [];
    const until = new Date(options.now.getTime() + options.lockMs).toISOString();
    const rows = await this.pushRun<DeliveryRow & { next_attempt_at: Date }>('claim', { now: options.now.toISOString(), until, limit });
    rows.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime());
    return rows.map(toDelivery);
  }

  async completeDelivery(key: DeliveryKey): Promise<void> {
    await this.pushRun('complete', keyParams(key));
  }

  async retryDelivery(key: DeliveryKey, retry: { nextAttemptAt: Date; error: string }): Promise<void> {
    await this.pushRun('retry', { ...keyParams(key), next: retry.nextAttemptAt.toISOString(), error: retry.error });
  }

  async deadLetterDelivery(key: DeliveryKey, failure: { error: string }): Promise<void> {
    await this.pushRun('dead', { ...keyParams(key), error: failure.error });
  }

  async nextDeliveryDue(): Promise<Date | undefined> {
    const row = (await this.pushRun<{ next_attempt: SqlTime | null; lock_expiry: SqlTime | null }>('nextDue', {}))[0];
    return earliest(optionalTime(row?.next_attempt), optionalTime(row?.lock_expiry));
  }

  async listDeadLetters(tenant: string, options: { taskId?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    const limit = rowLimit(options.limit ?? DEFAULT_DEAD_LETTER_LIMIT, 'limit');
    const rows =
      options.taskId === undefined
        ? await this.pushRun<DeadLetterRow>('listDead', { tenant, limit })
        : await this.pushRun<DeadLetterRow>('listDeadOfTask', { tenant, taskId: options.taskId, limit });
    return rows.map((r) => toDeadLetter(tenant, r));
  }

  async acquireLease(input: AcquireLease): Promise<boolean> {
    const { tenant, taskId, owner } = input;
    return (await this.leaseRun('acquire', { tenant, taskId, owner, ttlMs: leaseTtl(input.ttlMs) })).rowCount > 0;
  }

  async renewLeases(owner: string, ttlMs: number): Promise<number> {
    return (await this.leaseRun('renew', { owner, ttlMs: leaseTtl(ttlMs) })).rowCount;
  }

  async releaseLease(tenant: string, taskId: string, owner: string): Promise<void> {
    await this.leaseRun('release', { tenant, taskId, owner });
  }

  /** One statement: the stale leases are deleted in a CTE beside the select of the candidates. */
  async expiredLeases(limit: number): Promise<Lease[]> {
    const rows = (await this.leaseRun<LeaseRow>('expired', { limit: rowLimit(limit, 'limit') })).rows;
    return rows.map(toLease);
  }

  async takeOverLease(input: AcquireLease & { previousOwner: string }): Promise<boolean> {
    const { tenant, taskId, owner, previousOwner } = input;
    return (await this.leaseRun('takeOver', { tenant, taskId, owner, previousOwner, ttlMs: leaseTtl(input.ttlMs) })).rowCount > 0;
  }

  /**
   * Retention: deletes terminal tasks whose status timestamp is older than `before`, with their
   * events, message ids, push configs, deliveries and lease, in batches; returns the number of
   * tasks deleted.
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

  private pushConfig(name: PushStatementName | 'claim', params: Record<string, unknown>): QueryConfig {
    const q = this.push[name];
    return { name: q.name, text: q.text, values: q.bind(params) };
  }

  private async pushRun<R extends QueryResultRow>(name: PushStatementName | 'claim', params: Record<string, unknown>): Promise<R[]> {
    return (await this.pool.query<R>(this.pushConfig(name, params))).rows;
  }

  private async leaseRun<R extends QueryResultRow>(name: LeaseQueryName, params: Record<string, unknown>): Promise<{ rows: R[]; rowCount: number }> {
    const q = this.lease[name];
    const result = await this.pool.query<R>({ name: q.name, text: q.text, values: q.bind(params) });
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private listQuery(tenant: string, filter: ListFilter, limit: number): { text: string; values: unknown[] } {
    const values: unknown[] = [tenant];
    const where = ['tenant = $1'];
    if (filter.owner !== undefined) where.push(`owner = $${values.push(filter.owner)}`);
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
          SELECT tenant, id, owner, status_ts, task_json, version, seq FROM ${s}.tasks
          WHERE ${base}${cursor} ORDER BY status_ts DESC, id DESC LIMIT $${l}
        )
        SELECT (SELECT count(*) FROM ${s}.tasks WHERE ${base}) AS total, page.tenant, page.owner, page.task_json, page.version, page.seq
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
          INSERT INTO ${s}.tasks (tenant, id, owner, context_id, state, status_ts, version, seq, task_json)
          VALUES ($1, $2, $11, $3, $4, $5, 1, 1, $6) ON CONFLICT DO NOTHING RETURNING 1
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json) SELECT $1::text, $2::text, 1, $7::text FROM t
        ), pc AS (
          INSERT INTO ${s}.push_configs (tenant, task_id, id, config_json)
          SELECT $1::text, $2::text, $8::text, $9::text FROM t WHERE $8::text IS NOT NULL
          ON CONFLICT (tenant, task_id, id) DO UPDATE SET config_json = excluded.config_json
        ), pd AS (
          INSERT INTO ${s}.push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
          SELECT $1::text, $2::text, $8::text, 1, $10::timestamptz, $10::timestamptz FROM t WHERE $8::text IS NOT NULL
        )`;
  const append = `WITH u AS (
          UPDATE ${s}.tasks
          SET context_id = $4, state = $5, status_ts = $6, task_json = $7, updated_at = now(),
              version = version + 1, seq = seq + $8::bigint
          WHERE tenant = $1 AND id = $2 AND version = $3
          RETURNING seq, owner
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json)
          SELECT $1::text, $2::text, u.seq - $8::bigint + x.ord, x.j
          FROM u, unnest($9::text[]) WITH ORDINALITY AS x(j, ord)
        ), c AS (
          -- The key-share lock makes a concurrent deletePushConfig either wait for this write or
          -- be seen by it (see there).
          SELECT id FROM ${s}.push_configs WHERE tenant = $1::text AND task_id = $2::text FOR KEY SHARE
        ), pd AS (
          -- R11: one delivery per (event, config).
          INSERT INTO ${s}.push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
          SELECT $1::text, $2::text, c.id, u.seq - $8::bigint + x.ord, $10::timestamptz, $10::timestamptz
          FROM c, u, generate_series(1, $8::bigint) AS x(ord)
        )`;
  return {
    get: { name: `a2a_get_${tag}`, text: `SELECT owner, task_json, version, seq FROM ${s}.tasks WHERE tenant = $1 AND id = $2` },
    create: { name: `a2a_create_${tag}`, text: `${create} SELECT count(*)::int AS n FROM t` },
    // Without ON CONFLICT: a recorded message id raises unique_violation and undoes the whole write.
    createClaim: {
      name: `a2a_create_claim_${tag}`,
      text: `${create}, m AS (
          INSERT INTO ${s}.messages (tenant, message_id, task_id, fingerprint) SELECT $1::text, $12::text, $2::text, $13::text FROM t
        ) SELECT count(*)::int AS n FROM t`,
    },
    append: { name: `a2a_append_${tag}`, text: `${append} SELECT seq, owner FROM u` },
    appendClaim: {
      name: `a2a_append_claim_${tag}`,
      text: `${append}, m AS (
          INSERT INTO ${s}.messages (tenant, message_id, task_id, fingerprint) SELECT $1::text, $11::text, $2::text, $12::text FROM u
        ) SELECT seq, owner FROM u`,
    },
    findMessage: {
      name: `a2a_find_message_${tag}`,
      // The owner is the task's (immutable, so never stale); a purged task takes its messages with it.
      text: `SELECT m.task_id, m.fingerprint, t.owner FROM ${s}.messages m
        LEFT JOIN ${s}.tasks t ON t.tenant = m.tenant AND t.id = m.task_id
        WHERE m.tenant = $1 AND m.message_id = $2`,
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
        ), pd AS (
          DELETE FROM ${s}.push_deliveries d USING victims v WHERE d.tenant = v.tenant AND d.task_id = v.id
        ), pc AS (
          DELETE FROM ${s}.push_configs c USING victims v WHERE c.tenant = v.tenant AND c.task_id = v.id
        ), le AS (
          DELETE FROM ${s}.leases l USING victims v WHERE l.tenant = v.tenant AND l.task_id = v.id
        ), t AS (
          DELETE FROM ${s}.tasks t USING victims v WHERE t.tenant = v.tenant AND t.id = v.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM t`,
    },
  };
}

/**
 * The shared push statements, compiled to `$n`, plus the claim: the head-of-line rows are locked
 * with SKIP LOCKED, so instances claiming at once each take different rows (one never waits
 * for another), and stamped with the lock expiry in the same statement.
 */
function pushQueries(s: string, tag: string): Record<PushStatementName | 'claim', PushQuery> {
  const sql: Record<PushStatementName | 'claim', string> = {
    ...pushStatements(`${s}.`),
    claim: `WITH picked AS (
        ${pushStatements(`${s}.`).claimable} FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE ${s}.push_deliveries d SET locked_until = @until FROM picked p
        WHERE d.tenant = p.tenant AND d.task_id = p.task_id AND d.config_id = p.config_id AND d.seq = p.seq
        RETURNING p.*
      )
      SELECT * FROM claimed`,
  };
  const out = {} as Record<PushStatementName | 'claim', PushQuery>;
  for (const [name, text] of Object.entries(sql) as Array<[PushStatementName | 'claim', string]>) {
    out[name] = { ...compilePg(text), name: `a2a_push_${name}_${tag}` };
  }
  return out;
}

type LeaseQueryName = 'acquire' | 'renew' | 'release' | 'expired' | 'takeOver';

/**
 * The shared lease statements on the database clock, compiled to `$n`. `expired` carries the
 * clean-up of stale leases as a CTE: one round trip.
 */
function leaseQueries(s: string, tag: string): Record<LeaseQueryName, PushQuery> {
  const sql = leaseStatements({ prefix: `${s}.`, ...POSTGRES_LEASE_DIALECT });
  const texts: Record<LeaseQueryName, string> = {
    acquire: sql.acquire,
    renew: sql.renew,
    release: sql.release,
    expired: `WITH stale AS (${sql.dropStale}) ${sql.expired}`,
    takeOver: sql.takeOver,
  };
  const out = {} as Record<LeaseQueryName, PushQuery>;
  for (const [name, text] of Object.entries(texts) as Array<[LeaseQueryName, string]>) {
    out[name] = { ...compilePg(text), name: `a2a_lease_${name}_${tag}` };
  }
  return out;
}

/** Prepared statement names are per connection: one set per schema, in 63 bytes. */
function nameTag(schema: string): string {
  let h = 0x811c9dc5;
  for (const ch of schema) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}
