/**
 * The lease half of the SQLite store (sqliteStore.ts): the shared lease statements prepared on
 * the database with SQLite's dialect, and the shared leases (contract/sqlLeases.ts) running them
 * on this host's clock; SQLITE_BUSY is StoreUnavailableError (sqliteFailures.ts). Renewal, the
 * sweep of expired leases and take-overs run in the background and do not wait for another
 * process's lock (sqliteNoWait.ts).
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { SQLITE_LEASE_DIALECT, leaseStatements, type LeaseRow } from '../contract/leaseSql.js';
import { SqlLeases } from '../contract/sqlLeases.js';
import { storeCalls } from './sqliteFailures.js';
import { noWait } from './sqliteNoWait.js';

/** The leases of `db` (after its migrations ran). */
export function sqliteLeases(db: Db): SqlLeases {
  const sql = leaseStatements({ prefix: '', ...SQLITE_LEASE_DIALECT });
  const lease = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, db.prepare(text)])) as Record<keyof typeof sql, Statement<unknown[]>>;
  const background = noWait(db);
  const direct = storeCalls(db);
  return new SqlLeases({
    run: async (name, params) => (name === 'takeOver' ? background : direct)(() => lease[name].run(params).changes),
    renew: async (params) => background(() => lease.renew.all(params) as Array<{ tenant: string; task_id: string }>),
    clock: leaseClock,
    expired: async (limit) =>
      background(() => {
        const now = Date.now();
        lease.dropStale.run({ now });
        if (limit === 0) return [];
        return lease.expired.all({ now, limit }) as LeaseRow[];
      }),
  });
}

/** R3 (AppendInput.leaseOwner): whether `owner` holds the task's unexpired lease; run inside the write's transaction. */
export function sqliteLeaseHolder(db: Db): (tenant: string, taskId: string, owner: string) => boolean {
  const holds = db.prepare(leaseStatements({ prefix: '', ...SQLITE_LEASE_DIALECT }).holds);
  return (tenant, taskId, owner) => holds.get({ tenant, taskId, owner, now: Date.now() }) !== undefined;
}

/** `@now` and `@expires` of the lease statements: epoch milliseconds of this host's clock. */
function leaseClock(ttlMs: number): { now: number; expires: number } {
  const now = Date.now();
  return { now, expires: now + Math.ceil(ttlMs) };
}
