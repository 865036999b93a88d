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
import type { Task } from '../../protocol/types.js';
import { IncompatibleStoreError } from '../contract/incompatibleStore.js';
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
  type PurgeOptions,
} from '../../server/stores/taskStore.js';
import { listPage } from '../../server/stores/listPage.js';
export type { PurgeOptions } from '../../server/stores/taskStore.js';
import { configJson, type DeliveryRow } from '../contract/pushSql.js';
import { SqlOutbox } from '../contract/sqlOutbox.js';
import { SqlStoreBase } from '../contract/sqlStoreBase.js';
import type { ActiveTaskSource } from '../contract/recovery.js';
import { appended, toMessageRecord, toRecord, toStoredEvent, type RecordRow } from '../contract/taskRows.js';
import type { LeaseRow } from '../contract/leaseSql.js';
import { SqlLeases } from '../contract/sqlLeases.js';
import { leaseFenceError } from '../../server/stores/leaseStore.js';
import { canonicalTime, listFilter, pageLimit, taskColumns } from '../contract/sqlShared.js';
import { chunkChars, snapshotRoom } from '../contract/snapshotLag.js';
import { ListQueries, leaseQueries, nameTag, pushQueries, statements, type LeaseQueryName, type PgPushQueryName, type PushQuery } from './postgresQueries.js';
import { storeFailure } from './pgFailures.js';
import { pingPool } from './pgPing.js';
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

/** What an append's UPDATE returns. */
interface AppendedRow {
  seq: string;
  owner: string;
}

export class PostgresTaskStore extends SqlStoreBase implements TaskStore, ActiveTaskSource {
  private closed = false;
  private readonly q: ReturnType<typeof statements>;
  private readonly push: Record<PgPushQueryName, PushQuery>;
  /** The push half: configs, the delivery outbox and dead letters. */
  protected readonly outbox: SqlOutbox;
  private readonly lease: Record<LeaseQueryName, PushQuery>;
  /** Task leases (scale-out): who runs a task, until when, on the database clock. */
  protected readonly leases: SqlLeases;
  private readonly lists: ListQueries;

  /** Several instances share it: a handler on it wants PostgresEventBus and leases (docs/storage.md). */
  readonly sharedAcrossInstances = true;
  readonly pool: Pool;
  readonly schema: string;
  readonly migration: MigrationResult;
  private readonly ownsPool: boolean;

  private constructor(init: { pool: Pool; schema: string; migration: MigrationResult; ownsPool: boolean }) {
    super();
    this.pool = init.pool;
    this.schema = init.schema;
    this.migration = init.migration;
    this.ownsPool = init.ownsPool;
    const schema = quoteIdent(init.schema);
    const tag = nameTag(init.schema);
    this.q = statements(schema, tag);
    this.push = pushQueries(schema, tag);
    this.lease = leaseQueries(schema, tag);
    this.lists = new ListQueries(schema);
    this.outbox = new SqlOutbox({
      run: async (name, params) => (await this.pool.query(this.pushConfig(name, params)).catch(storeFailure)).rows,
      claim: (options) => this.claim(options),
      deleteConfig: (params) => this.deleteConfig(params),
      putConfigIfRoom: (params) => this.putConfigIfRoom(params),
    });
    this.leases = new SqlLeases({
      run: async (name, params) => (await this.leaseRun(name, params)).rowCount,
      renew: async (params) => (await this.leaseRun<{ tenant: string; task_id: string }>('renew', params)).rows,
      clock: (ttlMs) => ({ ttlMs }),
      // One statement: the stale leases are deleted in a CTE beside the select of the candidates.
      expired: async (limit) => (await this.leaseRun<LeaseRow>('expired', { limit })).rows,
    });
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
        if (current !== latest) throw new IncompatibleStoreError(`database schema is at version ${current}, this a2a-kit needs ${latest}: run "a2a db migrate"`);
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
    const row = (await this.run<RecordRow>(this.q.get, [tenant, taskId]))[0];
    return row && toRecord(tenant, row);
  }

  async create(tenant: string, task: Task, options: CreateOptions = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const c = taskColumns(task);
    const push = options.pushConfig;
    const values = [tenant, task.id, c.contextId, c.state, c.statusTs, c.json, `{"task":${c.json}}`];
    // $8, $9: the config registered with the task (R11: its first event is enqueued too); $10: now; $11: owner.
    const owner = options.owner ?? '';
    values.push(push ? push.id : null, push ? configJson(push) : null, new Date().toISOString(), owner);
    const claim = options.claim;
    const rows = await this.claiming(claim, { tenant, owner: async () => owner }, () =>
      claim ? this.run<{ n: number }>(this.q.createClaim, [...values, claim.messageId, claim.fingerprint]) : this.run<{ n: number }>(this.q.create, values),
    );
    if (rows[0]?.n !== 1) throw new VersionConflictError(task.id);
    return appendFirstChange(this, { record: { tenant, owner, task, version: 1, seq: 1 }, events: [{ seq: 1, event: { task } }] }, options.then);
  }

  async append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const eventJson = input.events.map((e) => JSON.stringify(e));
    const row = (await this.appendChunk(input, eventJson)) ?? (await this.appendSnapshot(input, eventJson));
    if (!row) {
      // Nothing written: the version moved on, or (R3) the run's lease is gone.
      const { leaseOwner } = input;
      if (leaseOwner !== undefined && (await this.leaseRun('holds', { tenant: input.tenant, taskId: input.taskId, owner: leaseOwner })).rowCount === 0) {
        throw leaseFenceError(input.taskId);
      }
      throw new VersionConflictError(input.taskId);
    }
    return appended(input, { seq: Number(row.seq), owner: row.owner });
  }

  /**
   * Artifact chunks: their events only, while the snapshot's room lasts (snapshotLag.ts). No row
   * when the append is not made of chunks, the room is used up, or the write would fail anyway:
   * then the snapshot is written (and the failure found).
   */
  private async appendChunk(input: AppendInput & { claim?: MessageClaim }, eventJson: string[]): Promise<AppendedRow | undefined> {
    const chars = chunkChars(input, eventJson);
    if (chars === undefined) return undefined;
    const { tenant, taskId, expectedVersion, leaseOwner } = input;
    const params = { tenant, taskId, expectedVersion, count: eventJson.length, chars, events: eventJson, now: new Date().toISOString(), leaseOwner };
    return (await this.named<AppendedRow>(leaseOwner === undefined ? this.q.appendChunk : this.q.appendChunkLeased, params))[0];
  }

  /** The whole new snapshot with the events (and the message claim). */
  private async appendSnapshot(input: AppendInput & { claim?: MessageClaim }, eventJson: string[]): Promise<AppendedRow | undefined> {
    const c = taskColumns(input.task);
    const values = [input.tenant, input.taskId, input.expectedVersion, c.contextId, c.state, c.statusTs, c.json, eventJson.length, eventJson];
    values.push(new Date().toISOString(), snapshotRoom(c.json)); // $10: enqueue time of the deliveries; $11: the snapshot's room
    const { claim, leaseOwner } = input;
    const leased = leaseOwner !== undefined;
    // The claim is the task owner's: read only to report a duplicate.
    const taskOwner = async () => (await this.get(input.tenant, input.taskId))?.owner ?? '';
    const rows = await this.claiming(claim, { tenant: input.tenant, owner: taskOwner }, () =>
      claim
        ? this.run<AppendedRow>(leased ? this.q.appendClaimLeased : this.q.appendClaim, [...values, claim.messageId, claim.fingerprint, ...(leased ? [leaseOwner] : [])])
        : this.run<AppendedRow>(leased ? this.q.appendLeased : this.q.append, leased ? [...values, leaseOwner] : values),
    );
    return rows[0];
  }

  /** R4 / IDEM-02: the task the owner's message id was recorded with, if any. */
  async findMessage(tenant: string, owner: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = (await this.run<{ task_id: string; fingerprint: string }>(this.q.findMessage, [tenant, owner, messageId]))[0];
    return row && toMessageRecord({ owner, messageId }, row);
  }

  /**
   * Runs a claiming write: the owner's duplicate message id aborts the whole statement (unique
   * violation), reported with that owner's record (`owner` is asked for only then).
   */
  private async claiming<T>(claim: MessageClaim | undefined, task: { tenant: string; owner: () => Promise<string> }, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const e = error as { code?: string; constraint?: string };
      if (!claim || e.code !== '23505' || e.constraint !== 'messages_pkey') throw error;
      const owner = await task.owner();
      const existing = await this.findMessage(task.tenant, owner, claim.messageId);
      throw new DuplicateMessageError(existing ?? { messageId: claim.messageId, taskId: '', fingerprint: '', owner });
    }
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = await this.run<{ seq: string; event_json: string }>(this.q.events, [tenant, taskId, afterSeq]);
    return rows.map(toStoredEvent);
  }

  async list(query: ListQuery): Promise<ListResult> {
    const limit = pageLimit(query.pageSize);
    const filter = listFilter(query);
    const { text, values } = this.lists.build(query.tenant, filter, limit);
    // One statement: the page and totalSize come from the same snapshot.
    const rows = await this.run<{ total: string; tenant: string | null; owner: string | null; task_json: string | null; lag_json: string | null; version: string | null; seq: string | null }>(
      { text },
      values,
    );
    const total = Number(rows[0]?.total ?? 0);
    // The row of an empty page carries the total only.
    const { records, hasMore } = listPage(rows, query, (r) => (r.task_json === null || r.tenant === null ? undefined : toRecord(r.tenant, r as RecordRow)));
    return { records, totalSize: total, hasMore };
  }

  /** TENANT-06: one statement, plus a read when a racing claim of the same new context won. */
  async claimContext(tenant: string, contextId: string, owner: string): Promise<string> {
    const claimed = await this.named<{ owner: string }>(this.q.claimContext, { tenant, contextId, owner });
    return claimed[0]?.owner ?? (await this.named<{ owner: string }>(this.q.contextOwner, { tenant, contextId }))[0]?.owner ?? owner;
  }

  /** Tasks left SUBMITTED or WORKING, across tenants (R2 recovery, see recoverInterrupted). */
  async listActive(): Promise<Array<{ tenant: string; taskId: string }>> {
    const rows = await this.run<{ tenant: string; id: string }>(this.q.active, []);
    return rows.map((r) => ({ tenant: r.tenant, taskId: r.id }));
  }

  /**
   * Retention: deletes terminal tasks whose status timestamp is older than `before`, with their
   * events, message ids, push configs, deliveries and lease, and records their contexts' owners
   * (TENANT-06); then forgets the contexts with no task left whose row is older than `before`.
   * In batches; returns the number of tasks deleted.
   */
  async purgeTerminal(options: PurgeOptions): Promise<number> {
    const before = canonicalTime(typeof options.before === 'string' ? options.before : options.before.toISOString());
    const batch = Math.max(1, options.batchSize ?? 500);
    let total = 0;
    for (;;) {
      const rows = await this.run<{ n: number }>(this.q.purge, [before, batch]);
      const n = rows[0]?.n ?? 0;
      total += n;
      if (n < batch) break;
    }
    // Then the contexts left without tasks since before the cutoff (TENANT-06, contextSql.ts).
    let forgotten = batch;
    while (forgotten === batch) forgotten = (await this.pool.query(this.namedConfig(this.q.forgetContexts, { before, limit: batch }))).rowCount ?? 0;
    return total;
  }

  /** Readiness: `SELECT 1` through the pool, given up when `signal` aborts (pgPing.ts). */
  async ping(signal?: AbortSignal): Promise<void> {
    return pingPool(this.pool, signal);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  private async run<R extends QueryResultRow>(query: { name?: string; text: string }, values: unknown[]): Promise<R[]> {
    const config: QueryConfig = { text: query.text, values };
    if (query.name) config.name = query.name;
    return (await this.pool.query<R>(config).catch(storeFailure)).rows;
  }

  /** A statement with `@name` parameters (compilePg), by name. */
  private namedConfig(query: PushQuery, params: Record<string, unknown>): QueryConfig {
    return { name: query.name, text: query.text, values: query.bind(params) };
  }

  private async named<R extends QueryResultRow>(query: PushQuery, params: Record<string, unknown>): Promise<R[]> {
    return (await this.pool.query<R>(this.namedConfig(query, params)).catch(storeFailure)).rows;
  }

  private async claim(options: { now: string; until: string; limit: number }): Promise<DeliveryRow[]> {
    const rows = await this.pushRun<DeliveryRow & { next_attempt_at: Date }>('claim', options);
    rows.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime());
    return rows;
  }

  /**
   * Two statements in one transaction, config first: an append that read the config before this
   * delete committed holds a key-share lock on it, so the DELETE waits for that append, and the
   * second statement's fresh snapshot then sees (and removes) the deliveries it enqueued. An
   * append after the first statement finds the config gone.
   */
  private async deleteConfig(params: { tenant: string; taskId: string; id: string }): Promise<boolean> {
    return this.transaction(async (client) => {
      const deleted = await client.query(this.pushConfig('deleteConfig', params));
      await client.query(this.pushConfig('deleteConfigDeliveries', params));
      return (deleted.rowCount ?? 0) > 0;
    });
  }

  /**
   * The task's row locked first: a concurrent put of the same task waits here, and the count of
   * the second statement (a fresh snapshot under READ COMMITTED) sees what the first committed.
   */
  private async putConfigIfRoom(params: { tenant: string; taskId: string; id: string; json: string; max: number }): Promise<boolean> {
    return this.transaction(async (client) => {
      await client.query(this.pushConfig('lockTask', params));
      return ((await client.query(this.pushConfig('putConfigIfRoom', params))).rowCount ?? 0) > 0;
    });
  }

  private pushConfig(name: PgPushQueryName, params: Record<string, unknown>): QueryConfig {
    const q = this.push[name];
    return { name: q.name, text: q.text, values: q.bind(params) };
  }

  private async pushRun<R extends QueryResultRow>(name: PgPushQueryName, params: Record<string, unknown>): Promise<R[]> {
    return (await this.pool.query<R>(this.pushConfig(name, params)).catch(storeFailure)).rows;
  }

  private async leaseRun<R extends QueryResultRow>(name: LeaseQueryName, params: Record<string, unknown>): Promise<{ rows: R[]; rowCount: number }> {
    const q = this.lease[name];
    const result = await this.pool.query<R>({ name: q.name, text: q.text, values: q.bind(params) }).catch(storeFailure);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch(storeFailure);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      return storeFailure(error);
    } finally {
      client.release();
    }
  }
}
