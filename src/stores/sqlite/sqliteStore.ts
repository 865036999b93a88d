/**
 * TaskStore on SQLite (better-sqlite3 12): the default store of `a2a serve`. One file, WAL
 * journal, `synchronous=NORMAL` — a commit survives the process being killed (the WAL write
 * reaches the OS before the call returns); `FULL` adds an fsync per commit for power loss.
 * Every write is one IMMEDIATE transaction holding the version check, the snapshot and the
 * events, so a crash leaves either all of a write or none of it. Other processes (a2a db,
 * readers) may write the file beside its one server (the write lock plus `busy_timeout`
 * serialize them; the version check catches the races); a second server is refused
 * (sqliteInstances.ts), since streams, cancels and crash recovery stay within one process.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import type { Task } from '../../protocol/types.js';
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
  type CreateOptions,
} from '../../server/stores/taskStore.js';
import { listPage } from '../../server/stores/listPage.js';
import type { StoredPushConfig } from '../../server/stores/pushStore.js';
import { configJson } from '../contract/pushSql.js';
import type { SqlOutbox } from '../contract/sqlOutbox.js';
import { listFilter, pageLimit, taskColumns } from '../contract/sqlShared.js';
import { chunkChars, snapshotRoom } from '../contract/snapshotLag.js';
import type { ActiveTaskSource } from '../contract/recovery.js';
import { appended, toMessageRecord, toRecord, toStoredEvent } from '../contract/taskRows.js';
import type { SqlLeases } from '../contract/sqlLeases.js';
import { SqlStoreBase } from '../contract/sqlStoreBase.js';
import { GroupCommit } from './groupCommit.js';
import { storeCalls } from './sqliteFailures.js';
import { prepareDatabaseFile } from './sqliteFile.js';
import { noWait, type NoWait } from './sqliteNoWait.js';
import { checkWrites } from './sqliteWriteHealth.js';
import { IncompatibleStoreError } from '../contract/incompatibleStore.js';
import { liveServers, registerInstance, unregisterInstance, type InstanceRow } from './sqliteInstances.js';
import { sqliteLeaseHolder, sqliteLeases } from './sqliteLeases.js';
import { listSql, type ListSql } from './sqliteListSql.js';
import { leaseFenceError } from '../../server/stores/leaseStore.js';
import { preparePushStatements, sqliteOutbox, type PushStatements } from './sqliteOutbox.js';
import { purgeTerminal } from './sqliteRetention.js';
import type { PurgeOptions } from '../../server/stores/taskStore.js';
export type { PurgeOptions } from '../../server/stores/taskStore.js';
import { prepareTaskStatements, type ContextKey, type TaskRow, type TaskStatements } from './sqliteStatements.js';
export { ENQUEUE_SQL } from './sqliteStatements.js';
import { SQLITE_MIGRATIONS, migrateSqlite, schemaVersion, type MigrationResult } from './migrations.js';

export interface SqliteStoreOptions {
  /**
   * Database file; created if missing (mode 0600, its directory 0700: sqliteFile.ts). ':memory:'
   * for a private in-memory database.
   */
  path: string;
  /** false: a missing file is refused (MissingDatabaseError) instead of created (`a2a db`). Default true. */
  create?: boolean;
  /** NORMAL (default) survives kill -9; FULL also survives power loss, at one fsync per write. */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a write waits for another process's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Apply pending schema migrations on open (default true); false refuses an outdated file. */
  migrate?: boolean;
}

interface ListRow extends TaskRow {
  tenant: string;
}

interface CreateRow {
  tenant: string;
  owner: string;
  task: Task;
  json: string;
  claim: MessageClaim | undefined;
  pushConfig: StoredPushConfig | undefined;
}

export class SqliteTaskStore extends SqlStoreBase implements TaskStore, ActiveTaskSource {
  readonly db: Db;
  readonly migration: MigrationResult;
  private closed = false;
  private registered = false;
  private readonly stmt: TaskStatements;
  private readonly push: PushStatements;
  /** The push half: configs, the delivery outbox and dead letters. */
  protected readonly outbox: SqlOutbox;
  /** Task leases (scale-out): who runs a task, until when. */
  protected readonly leases: SqlLeases;
  private readonly listStatements = new Map<string, { page: Statement<unknown[], ListRow>; count: Statement<unknown[], { n: number }> }>();
  private readonly createTx: (row: CreateRow) => void;
  /** A creation and its first change (CreateOptions.then), all or nothing. */
  private readonly createThenTx: (row: CreateRow, then: { input: AppendInput; eventJson: string[] }) => { seq: number; owner: string };
  /** Group commit: the writes of one event-loop turn share one transaction (each in its own savepoint). */
  private readonly commits: GroupCommit;
  /** Calls that do not wait for another process's write lock (readiness's write probe). */
  private readonly background: NoWait;
  private readonly appendTx: (input: AppendInput & { claim?: MessageClaim }, eventJson: string[]) => { seq: number; owner: string };
  /** TENANT-06: records a context's owner unless it has one, and reads it. */
  private readonly claimContextTx: (claim: ContextKey & { owner: string; now: string }) => string;

  constructor(options: SqliteStoreOptions) {
    super();
    prepareDatabaseFile(options.path, options.create !== false);
    this.db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      // Keep the WAL file from staying large after a burst of writes.
      this.db.pragma('journal_size_limit = 67108864');
      // The savepoint of each write in a group commit keeps a statement journal: in memory, not
      // in a temporary file (that file's writes were a fifth of a SendMessage's store CPU).
      this.db.pragma('temp_store = MEMORY');
      this.migration = options.migrate === false ? refuseOutdated(this.db) : migrateSqlite(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    const db = this.db;
    this.stmt = prepareTaskStatements(db);
    this.push = preparePushStatements(db);
    this.outbox = sqliteOutbox(db, this.push);
    this.leases = sqliteLeases(db);
    const holdsLease = sqliteLeaseHolder(db);
    const enqueue = (row: { tenant: string; taskId: string; first: number; last: number }): void => {
      if (row.last >= row.first) this.stmt.enqueue.run({ ...row, now: new Date().toISOString() });
    };
    /**
     * Records a message id for the task's owner inside the caller's transaction (IDEM-02); that
     * owner's duplicate rolls the whole write back.
     */
    const claimMessage = (task: { tenant: string; taskId: string; owner: string }, claim: MessageClaim | undefined): void => {
      if (!claim) return;
      const key = { tenant: task.tenant, owner: task.owner, messageId: claim.messageId };
      if (this.stmt.claim.run({ ...key, taskId: task.taskId, fingerprint: claim.fingerprint }).changes === 0) {
        throw new DuplicateMessageError(toMessageRecord(key, this.stmt.findMessage.get(key) ?? { task_id: '', fingerprint: '' }));
      }
    };
    this.createTx = db.transaction(({ tenant, owner, task, json, claim, pushConfig }: CreateRow) => {
      const c = taskColumns(task);
      const now = new Date().toISOString();
      const { changes } = this.stmt.insertTask.run(tenant, task.id, owner, c.contextId, c.state, c.statusTs, json, now, now);
      if (changes === 0) throw new VersionConflictError(task.id);
      this.stmt.insertEvent.run(tenant, task.id, 1, `{"task":${json}}`);
      claimMessage({ tenant, taskId: task.id, owner }, claim);
      if (pushConfig) {
        this.push.putConfig.run({ tenant, taskId: task.id, id: pushConfig.id, json: configJson(pushConfig) });
        enqueue({ tenant, taskId: task.id, first: 1, last: 1 });
      }
    }).immediate;
    this.createThenTx = db.transaction((row: CreateRow, then: { input: AppendInput; eventJson: string[] }) => {
      this.createTx(row);
      return this.appendTx(then.input, then.eventJson);
    }).immediate;
    /** A new snapshot: first the update that leaves the indexed columns (and so the indexes) alone, when no status changed and they are indeed unchanged. */
    const writeSnapshot = (input: AppendInput, count: number, now: string): { seq: number; owner: string } | undefined => {
      const c = taskColumns(input.task);
      const room = snapshotRoom(c.json);
      const { tenant, taskId, expectedVersion } = input;
      const unchanged = input.events.some((e) => 'statusUpdate' in e)
        ? undefined
        : this.stmt.updateSnapshot.get(c.json, room, now, count, tenant, taskId, expectedVersion, c.state, c.statusTs, c.contextId);
      return unchanged ?? this.stmt.update.get(c.contextId, c.state, c.statusTs, c.json, room, now, count, tenant, taskId, expectedVersion);
    };
    this.appendTx = db.transaction((input: AppendInput & { claim?: MessageClaim }, eventJson: string[]): { seq: number; owner: string } => {
      const now = new Date().toISOString();
      const { tenant, taskId, expectedVersion } = input;
      if (input.leaseOwner !== undefined && !holdsLease(tenant, taskId, input.leaseOwner)) throw leaseFenceError(taskId);
      // Artifact chunks leave the snapshot as it is while its room lasts (snapshotLag.ts).
      const chars = chunkChars(input, eventJson);
      const chunk = chars === undefined ? undefined : this.stmt.updateChunk.get({ tenant, taskId, expectedVersion, count: eventJson.length, chars, now });
      const row = chunk ?? writeSnapshot(input, eventJson.length, now);
      if (!row) throw new VersionConflictError(taskId);
      claimMessage({ tenant, taskId, owner: row.owner }, input.claim);
      let seq = row.seq - eventJson.length;
      for (const json of eventJson) this.stmt.insertEvent.run(tenant, taskId, ++seq, json);
      enqueue({ tenant, taskId, first: row.seq - eventJson.length + 1, last: row.seq });
      return row;
    }).immediate;
    this.claimContextTx = db.transaction((claim: ContextKey & { owner: string; now: string }) => {
      this.stmt.claimContext.run(claim);
      return this.stmt.contextOwner.get({ tenant: claim.tenant, contextId: claim.contextId })?.owner ?? claim.owner;
    }).immediate;
    this.commits = new GroupCommit(db);
    this.background = noWait(db);
  }

  async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    const row = this.stmt.get.get(tenant, taskId);
    return row && toRecord(tenant, row);
  }

  async create(tenant: string, task: Task, options: CreateOptions = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const owner = options.owner ?? '';
    const row: CreateRow = { tenant, owner, task, json: JSON.stringify(task), claim: options.claim, pushConfig: options.pushConfig };
    const created: StoredEvent = { seq: 1, event: { task } };
    const first = options.then;
    if (!first) {
      await this.commits.write(() => this.createTx(row));
      return { record: { tenant, owner, task, version: 1, seq: 1 }, events: [created] };
    }
    const then = { input: { tenant, taskId: task.id, expectedVersion: 1, task: first.task, events: first.events }, eventJson: first.events.map((e) => JSON.stringify(e)) };
    const written = appended(then.input, await this.commits.write(() => this.createThenTx(row, then)));
    return { record: written.record, events: [created].concat(written.events) };
  }

  async append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const eventJson = input.events.map((e) => JSON.stringify(e));
    return appended(input, await this.commits.write(() => this.appendTx(input, eventJson)));
  }

  /** R4 / IDEM-02: the task the owner's message id was recorded with, if any. */
  async findMessage(tenant: string, owner: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = this.stmt.findMessage.get({ tenant, owner, messageId });
    return row && toMessageRecord({ owner, messageId }, row);
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    return this.stmt.events.all(tenant, taskId, afterSeq).map(toStoredEvent);
  }

  /** TENANT-06: a recorded owner is one primary-key read; otherwise a claim in the next group commit. */
  async claimContext(tenant: string, contextId: string, owner: string): Promise<string> {
    const held = this.stmt.contextOwner.get({ tenant, contextId });
    if (held) return held.owner;
    return this.commits.write(() => this.claimContextTx({ tenant, contextId, owner, now: new Date().toISOString() }));
  }

  async list(query: ListQuery): Promise<ListResult> {
    const limit = pageLimit(query.pageSize);
    const params: Record<string, string | number> = {};
    let bound = 0;
    const sql = listSql(query.tenant, listFilter(query), (value) => {
      const name = `p${++bound}`;
      params[name] = value;
      return `@${name}`;
    });
    const { page, count } = this.listStatementsFor(sql);
    const { n } = count.get(params) as { n: number };
    // Rows are read one at a time: those past a page ended by query.fits are never read.
    const { records, hasMore } = listPage(page.iterate({ ...params, limit: limit + 1 }), query, (r) => toRecord(r.tenant, r));
    return { records, totalSize: n, hasMore };
  }

  /**
   * Retention: deletes terminal tasks whose status timestamp is older than `before`, with their
   * events, message ids, push configs, deliveries and lease, keeping their contexts owned
   * (sqliteRetention.ts). Returns the number of tasks deleted. Runs in small transactions.
   */
  async purgeTerminal(options: PurgeOptions): Promise<number> {
    return purgeTerminal(this.db, options);
  }

  /** Tasks left SUBMITTED or WORKING, across tenants (R2 recovery, see recoverInterrupted). */
  async listActive(): Promise<Array<{ tenant: string; taskId: string }>> {
    return this.db
      .prepare<[], { tenant: string; id: string }>(`SELECT tenant, id FROM tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`)
      .all()
      .map((r) => ({ tenant: r.tenant, taskId: r.id }));
  }

  /**
   * Claims the file for this process as its one server (sqliteInstances.ts): returns [] when
   * claimed (the row goes on close), or the live server that has it (nothing claimed).
   */
  registerInstance(): InstanceRow[] {
    const others = registerInstance(this.db);
    if (others.length === 0) this.registered = true;
    return others;
  }

  /** The live servers of the file other than this process. */
  liveServers(): InstanceRow[] {
    return liveServers(this.db);
  }

  /**
   * Readiness: `SELECT 1` on the store's connection (a closed database throws). Reads are not
   * held up by another process's write lock in WAL mode; SQLITE_BUSY is StoreUnavailableError.
   * After a write the file could not take (a full disk, an I/O error), also a small write of
   * its own until one succeeds (sqliteWriteHealth.ts): a full disk still answers reads.
   */
  async ping(): Promise<void> {
    storeCalls(this.db)(() => this.db.prepare('SELECT 1').get());
    checkWrites(this.db, this.background);
  }

  /** `PRAGMA quick_check` (integrity_check without the index contents): 'ok' or the problems found. */
  quickCheck(): string {
    const rows = this.db.pragma('quick_check') as Array<{ quick_check: string }>;
    return rows.map((r) => r.quick_check).join('\n');
  }

  /** `PRAGMA integrity_check`: 'ok' or the problems found. */
  checkIntegrity(): string {
    const rows = this.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join('\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.registered) unregisterInstance(this.db);
    this.db.close();
  }

  /** The page and count statements of a list query (sqliteListSql.ts), prepared once per shape. */
  private listStatementsFor(sql: ListSql) {
    let cached = this.listStatements.get(sql.page);
    if (!cached) {
      cached = { page: this.db.prepare(sql.page), count: this.db.prepare(sql.count) };
      this.listStatements.set(sql.page, cached);
    }
    return cached;
  }
}

function refuseOutdated(db: Db): MigrationResult {
  const current = schemaVersion(db);
  const latest = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;
  if (current !== latest) {
    throw new IncompatibleStoreError(`database schema is at version ${current}, this a2a-kit needs ${latest}: run "a2a db migrate"`);
  }
  return { from: current, to: current, applied: [] };
}
