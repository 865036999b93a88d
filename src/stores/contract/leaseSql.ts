/**
 * The lease half of the SQL stores (LeaseStore), written once for SQLite and PostgreSQL with
 * `@name` parameters like pushSql.ts. Only the clock differs: the dialect supplies the SQL for
 * "now" and for "now + @ttlMs". PostgreSQL uses the database clock (`now()`, timestamptz), so
 * instances with skewed clocks agree; SQLite, one host by construction, binds `@now` and
 * `@expires` as epoch milliseconds (an INTEGER column) computed with Date.now().
 *
 * Every write is one statement, so each is atomic on its own: the acquire is an upsert whose
 * DO UPDATE only fires when the caller already holds the lease or it expired, and the takeover
 * is a compare-and-set UPDATE on (owner, expiry). None of these run on the task write path.
 */
import type { Lease } from '../../server/stores/leaseStore.js';
import { isoTime, type SqlTime } from './pushSql.js';

/** The states whose expired leases are takeover candidates (a running agent was lost). */
export const LEASED_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

export interface LeaseDialect {
  /** Table prefix: `"a2a".` on PostgreSQL, empty on SQLite. */
  prefix: string;
  /** SQL for the current instant, comparable with `expires_at`. */
  now: string;
  /** SQL for the expiry of a lease taken or renewed now with `@ttlMs`. */
  expires: string;
}

export const SQLITE_LEASE_DIALECT: Omit<LeaseDialect, 'prefix'> = { now: '@now', expires: '@expires' };

export const POSTGRES_LEASE_DIALECT: Omit<LeaseDialect, 'prefix'> = {
  now: 'now()',
  expires: `now() + @ttlMs::double precision * interval '1 millisecond'`,
};

export function leaseStatements(d: LeaseDialect) {
  const leases = `${d.prefix}leases`;
  const tasks = `${d.prefix}tasks`;
  const states = LEASED_STATES.map((s) => `'${s}'`).join(', ');
  return {
    /** Inserts a free lease, or takes over an expired one, or extends the caller's own; 1 row changed when taken. */
    acquire: `INSERT INTO ${leases} AS l (tenant, task_id, owner, expires_at) VALUES (@tenant, @taskId, @owner, ${d.expires})
      ON CONFLICT (tenant, task_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE l.owner = excluded.owner OR l.expires_at < ${d.now}`,
    /** The owner's live leases, extended; returns each one's key (a held lease not among them is lost). */
    renew: `UPDATE ${leases} SET expires_at = ${d.expires} WHERE owner = @owner AND expires_at >= ${d.now} RETURNING tenant, task_id`,
    release: `DELETE FROM ${leases} WHERE tenant = @tenant AND task_id = @taskId AND owner = @owner`,
    /** R3 fence: a row when `@owner` holds the task's lease, unexpired (AppendInput.leaseOwner). */
    holds: `SELECT 1 AS held FROM ${leases} WHERE tenant = @tenant AND task_id = @taskId AND owner = @owner AND expires_at >= ${d.now}`,
    /** Expired leases of tasks that are missing or not SUBMITTED/WORKING: nobody will take them over. */
    dropStale: `DELETE FROM ${leases} WHERE expires_at < ${d.now}
      AND NOT EXISTS (SELECT 1 FROM ${tasks} t WHERE t.tenant = ${leases}.tenant AND t.id = ${leases}.task_id AND t.state IN (${states}))`,
    /**
     * Takeover candidates, oldest expiry first: walks the expiry index in order (a probe of the
     * task per lease), so the scan stops after `@limit` candidates however many tasks are active.
     */
    expired: `SELECT l.tenant, l.task_id, l.owner, l.expires_at FROM ${leases} l
      WHERE l.expires_at < ${d.now}
        AND EXISTS (SELECT 1 FROM ${tasks} t WHERE t.tenant = l.tenant AND t.id = l.task_id AND t.state IN (${states}))
      ORDER BY l.expires_at, l.tenant, l.task_id
      LIMIT @limit`,
    takeOver: `UPDATE ${leases} SET owner = @owner, expires_at = ${d.expires}
      WHERE tenant = @tenant AND task_id = @taskId AND owner = @previousOwner AND expires_at < ${d.now}`,
  };
}

export type LeaseStatementName = keyof ReturnType<typeof leaseStatements>;

/** SQLite stores epoch milliseconds, PostgreSQL hands back a Date. */
export interface LeaseRow {
  tenant: string;
  task_id: string;
  owner: string;
  expires_at: SqlTime | number;
}

export function toLease(row: LeaseRow): Lease {
  const at = typeof row.expires_at === 'number' ? new Date(row.expires_at).toISOString() : isoTime(row.expires_at);
  return { tenant: row.tenant, taskId: row.task_id, owner: row.owner, expiresAt: at };
}

/** Validates a lease duration: a finite, non-negative number of milliseconds. */
export function leaseTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`ttlMs must be a non-negative number, got ${ttlMs}`);
  return ttlMs;
}
