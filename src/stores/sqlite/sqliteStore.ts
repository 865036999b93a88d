/**
 * TaskStore on SQLite (better-sqlite3 12): the default store of `a2a serve`. One file, WAL
 * journal, `synchronous=NORMAL` — a commit survives the process being killed (the WAL write
 * reaches the OS before the call returns); `FULL` adds an fsync per commit for power loss.
 * Every write is one IMMEDIATE transaction holding the version check, the snapshot and the
 * events, so a crash leaves either all of a write or none of it, and several processes can
 * share the file (the write lock plus `busy_timeout` serialize them; the version check catches
 * the races).
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
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
import { TERMINAL_STATES, canonicalTime, listFilter, pageLimit, taskColumns, type ListFilter } from '../contract/sqlShared.js';
import type { ActiveTaskSource } from '../contract/recovery.js';
import { SQLITE_MIGRATIONS, migrateSqlite, schemaVersion, type MigrationResult } from './migrations.js';

export interface SqliteStoreOptions {
  /** Database file; its directory is created if missing. ':memory:' for a private in-memory database. */
  path: string;
  /** NORMAL (default) survives kill -9; FULL also survives power loss, at one fsync per write. */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a write waits for another process's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /** Apply pending schema migrations on open (default true); false refuses an outdated file. */
  migrate?: boolean;
}

export interface PurgeOptions {
  /** Terminal tasks whose status timestamp is before this instant are deleted with their events. */
  before: string | Date;
  /** Most tasks deleted per transaction (default 500), so writers are not blocked for long. */
  batchSize?: number;
}

interface TaskRow {
  task_json: string;
  version: number;
  seq: number;
}

interface ListRow extends TaskRow {
  tenant: string;
}

export class SqliteTaskStore implements TaskStore, ActiveTaskSource {
  readonly db: Db;
  readonly migration: MigrationResult;
  private closed = false;
  private registered = false;
  private readonly stmt: {
    get: Statement<[string, string], TaskRow>;
    insertTask: Statement<unknown[]>;
    update: Statement<unknown[], { seq: number }>;
    insertEvent: Statement<[string, string, number, string]>;
    events: Statement<[string, string, number], { seq: number; event_json: string }>;
    claim: Statement<[string, string, string, string]>;
    findMessage: Statement<[string, string], { task_id: string; fingerprint: string }>;
  };
  private readonly listStatements = new Map<string, { page: Statement<unknown[], ListRow>; count: Statement<unknown[], { n: number }> }>();
  private readonly createTx: (row: { tenant: string; task: Task; json: string; claim: MessageClaim | undefined }) => void;
  private readonly appendTx: (input: AppendInput & { claim?: MessageClaim }, eventJson: string[]) => number;

  constructor(options: SqliteStoreOptions) {
    if (options.path !== ':memory:' && options.path !== '') mkdirSync(dirname(options.path), { recursive: true });
    this.db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      // Keep the WAL file from staying large after a burst of writes.
      this.db.pragma('journal_size_limit = 67108864');
      this.migration = options.migrate === false ? refuseOutdated(this.db) : migrateSqlite(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    const db = this.db;
    this.stmt = {
      get: db.prepare('SELECT task_json, version, seq FROM tasks WHERE tenant = ? AND id = ?'),
      insertTask: db.prepare(
        `INSERT INTO tasks (tenant, id, context_id, state, status_ts, version, seq, task_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 1, 1, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      update: db.prepare(
        `UPDATE tasks SET context_id = ?, state = ?, status_ts = ?, task_json = ?, updated_at = ?,
                version = version + 1, seq = seq + ?
         WHERE tenant = ? AND id = ? AND version = ? RETURNING seq`,
      ),
      insertEvent: db.prepare('INSERT INTO events (tenant, task_id, seq, event_json) VALUES (?, ?, ?, ?)'),
      events: db.prepare('SELECT seq, event_json FROM events WHERE tenant = ? AND task_id = ? AND seq > ? ORDER BY seq'),
      claim: db.prepare('INSERT INTO messages (tenant, message_id, task_id, fingerprint) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      findMessage: db.prepare('SELECT task_id, fingerprint FROM messages WHERE tenant = ? AND message_id = ?'),
    };
    /** Records a message id inside the caller's transaction; a duplicate rolls the whole write back. */
    const claimMessage = (tenant: string, taskId: string, claim: MessageClaim | undefined): void => {
      if (!claim) return;
      if (this.stmt.claim.run(tenant, claim.messageId, taskId, claim.fingerprint).changes === 0) {
        const row = this.stmt.findMessage.get(tenant, claim.messageId);
        throw new DuplicateMessageError({ messageId: claim.messageId, taskId: row?.task_id ?? '', fingerprint: row?.fingerprint ?? '' });
      }
    };
    this.createTx = db.transaction(({ tenant, task, json, claim }: { tenant: string; task: Task; json: string; claim: MessageClaim | undefined }) => {
      const c = taskColumns(task);
      const now = new Date().toISOString();
      const { changes } = this.stmt.insertTask.run(tenant, task.id, c.contextId, c.state, c.statusTs, json, now, now);
      if (changes === 0) throw new VersionConflictError(task.id);
      this.stmt.insertEvent.run(tenant, task.id, 1, `{"task":${json}}`);
      claimMessage(tenant, task.id, claim);
    }).immediate;
    this.appendTx = db.transaction((input: AppendInput & { claim?: MessageClaim }, eventJson: string[]): number => {
      const c = taskColumns(input.task);
      const row = this.stmt.update.get(
        c.contextId,
        c.state,
        c.statusTs,
        c.json,
        new Date().toISOString(),
        eventJson.length,
        input.tenant,
        input.taskId,
        input.expectedVersion,
      );
      if (!row) throw new VersionConflictError(input.taskId);
      claimMessage(input.tenant, input.taskId, input.claim);
      let seq = row.seq - eventJson.length;
      for (const json of eventJson) this.stmt.insertEvent.run(input.tenant, input.taskId, ++seq, json);
      return row.seq;
    }).immediate;
  }

  async get(tenant: string, taskId: string): Promise<TaskRecord | undefined> {
    const row = this.stmt.get.get(tenant, taskId);
    return row && { tenant, task: JSON.parse(row.task_json) as Task, version: row.version, seq: row.seq };
  }

  async create(tenant: string, task: Task, options: { claim?: MessageClaim } = {}): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    this.createTx({ tenant, task, json: JSON.stringify(task), claim: options.claim });
    return { record: { tenant, task, version: 1, seq: 1 }, events: [{ seq: 1, event: { task } }] };
  }

  async append(input: AppendInput & { claim?: MessageClaim }): Promise<{ record: TaskRecord; events: StoredEvent[] }> {
    const seq = this.appendTx(
      input,
      input.events.map((e) => JSON.stringify(e)),
    );
    const first = seq - input.events.length;
    return {
      record: { tenant: input.tenant, task: input.task, version: input.expectedVersion + 1, seq },
      events: input.events.map((event, i) => ({ seq: first + i + 1, event })),
    };
  }

  /** R4: the task a user message id was recorded with, if any. */
  async findMessage(tenant: string, messageId: string): Promise<MessageRecord | undefined> {
    const row = this.stmt.findMessage.get(tenant, messageId);
    return row && { messageId, taskId: row.task_id, fingerprint: row.fingerprint };
  }

  async events(tenant: string, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    return this.stmt.events.all(tenant, taskId, afterSeq).map((r) => ({ seq: r.seq, event: JSON.parse(r.event_json) as StreamResponse }));
  }

  async list(query: ListQuery): Promise<ListResult> {
    const limit = pageLimit(query.pageSize);
    const filter = listFilter(query);
    const { page, count } = this.listStatementsFor(filter);
    const params = filterParams(query.tenant, filter);
    const rows = page.all(...params, ...cursorParams(filter), limit + 1);
    const { n } = count.get(...params) as { n: number };
    return {
      records: rows.slice(0, limit).map((r) => ({ tenant: r.tenant, task: JSON.parse(r.task_json) as Task, version: r.version, seq: r.seq })),
      totalSize: n,
      hasMore: rows.length > limit,
    };
  }

  /**
   * Retention: deletes terminal tasks (and their events) whose status timestamp is older than
   * `before`. Returns the number of tasks deleted. Runs in small transactions.
   */
  async purgeTerminal(options: PurgeOptions): Promise<number> {
    const before = canonicalTime(typeof options.before === 'string' ? options.before : options.before.toISOString());
    const batch = Math.max(1, options.batchSize ?? 500);
    const states = TERMINAL_STATES.map((s) => `'${s}'`).join(', ');
    const pick = this.db.prepare<[string, number], { tenant: string; id: string }>(
      `SELECT tenant, id FROM tasks WHERE state IN (${states}) AND status_ts < ? LIMIT ?`,
    );
    const delEvents = this.db.prepare<[string, string]>('DELETE FROM events WHERE tenant = ? AND task_id = ?');
    const delMessages = this.db.prepare<[string, string]>('DELETE FROM messages WHERE tenant = ? AND task_id = ?');
    const delTask = this.db.prepare<[string, string]>(`DELETE FROM tasks WHERE tenant = ? AND id = ? AND state IN (${states})`);
    const step = this.db.transaction(() => {
      const rows = pick.all(before, batch);
      for (const r of rows) {
        delEvents.run(r.tenant, r.id);
        delMessages.run(r.tenant, r.id);
        delTask.run(r.tenant, r.id);
      }
      return rows.length;
    }).immediate;
    let total = 0;
    for (;;) {
      const n = step();
      total += n;
      if (n < batch) return total;
      // Let other work (requests on this event loop) run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Tasks left SUBMITTED or WORKING, across tenants (R2 recovery, see recoverInterrupted). */
  async listActive(): Promise<Array<{ tenant: string; taskId: string }>> {
    return this.db
      .prepare<[], { tenant: string; id: string }>(`SELECT tenant, id FROM tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`)
      .all()
      .map((r) => ({ tenant: r.tenant, taskId: r.id }));
  }

  /**
   * Records this process as a server of the file and returns the other live ones on this host
   * (rows of processes that died, by kill -9 say, and rows of other hosts are removed). The R2 sweep must not run while
   * another server may be executing tasks: `openStore().recover()` skips it then.
   */
  registerInstance(): Array<{ host: string; pid: number; startedAt: string }> {
    const host = hostname();
    const others = this.db.transaction(() => {
      const rows = this.db.prepare<[], { host: string; pid: number; started_at: string }>('SELECT host, pid, started_at FROM instances').all();
      const live: Array<{ host: string; pid: number; startedAt: string }> = [];
      for (const r of rows) {
        if (r.host === host && r.pid === process.pid) continue;
        // A file is served from one host (SQLite over a network filesystem is unsupported), so a
        // row from another host is a previous life of this one — a container restarted under a
        // new hostname, say — as is a row whose process is gone.
        if (r.host !== host || !processAlive(r.pid)) {
          this.db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(r.host, r.pid);
          continue;
        }
        live.push({ host: r.host, pid: r.pid, startedAt: r.started_at });
      }
      this.db.prepare('INSERT OR REPLACE INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run(host, process.pid, new Date().toISOString());
      return live;
    }).immediate();
    this.registered = true;
    return others;
  }

  /** `PRAGMA integrity_check`: 'ok' or the problems found. */
  checkIntegrity(): string {
    const rows = this.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join('\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.registered) this.db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(hostname(), process.pid);
    this.db.close();
  }

  private listStatementsFor(filter: ListFilter) {
    const shape = `${+(filter.contextId !== undefined)}${+(filter.state !== undefined)}${+(filter.since !== undefined)}${+(filter.after !== undefined)}`;
    let cached = this.listStatements.get(shape);
    if (!cached) {
      const where = ['tenant = ?'];
      if (filter.contextId !== undefined) where.push('context_id = ?');
      if (filter.state !== undefined) where.push('state = ?');
      if (filter.since !== undefined) where.push('status_ts >= ?');
      const base = where.join(' AND ');
      // Keyset: the range on status_ts uses the index; the OR only trims the boundary timestamp.
      const cursor = filter.after !== undefined ? ' AND status_ts <= ? AND (status_ts < ? OR id < ?)' : '';
      cached = {
        page: this.db.prepare(
          `SELECT tenant, task_json, version, seq FROM tasks WHERE ${base}${cursor} ORDER BY status_ts DESC, id DESC LIMIT ?`,
        ),
        count: this.db.prepare(`SELECT count(*) AS n FROM tasks WHERE ${base}`),
      };
      this.listStatements.set(shape, cached);
    }
    return cached;
  }
}

function filterParams(tenant: string, filter: ListFilter): string[] {
  const params = [tenant];
  if (filter.contextId !== undefined) params.push(filter.contextId);
  if (filter.state !== undefined) params.push(filter.state);
  if (filter.since !== undefined) params.push(filter.since);
  return params;
}

function cursorParams(filter: ListFilter): string[] {
  return filter.after ? [filter.after.timestamp, filter.after.timestamp, filter.after.id] : [];
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function refuseOutdated(db: Db): MigrationResult {
  const current = schemaVersion(db);
  const latest = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;
  if (current !== latest) {
    throw new Error(`database schema is at version ${current}, this a2a-kit needs ${latest}: run "a2a db migrate"`);
  }
  return { from: current, to: current, applied: [] };
}
