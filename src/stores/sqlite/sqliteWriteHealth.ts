/**
 * Whether the SQLite file takes writes, for readiness (TaskStore.ping, /readyz). A read (`SELECT
 * 1`) still answers on a full disk or a failing one, so a write the file could not take
 * (SQLITE_FULL, SQLITE_IOERR_*, …: sqliteFailures.ts) marks the database; while it is marked,
 * each ping tries a small write of its own: `PRAGMA wal_checkpoint(TRUNCATE)` (the WAL's pages
 * into the file, which must then have room for them, and the WAL emptied) and a rewrite of the
 * header's `user_version` (one page appended to the emptied WAL). A ping fails while that fails,
 * and the mark goes when it succeeds, so readiness comes back without waiting for traffic
 * (a server taken out of its load balancer gets none). Unmarked, a ping writes nothing.
 */
import type { Database as Db } from 'better-sqlite3';
import type { NoWait } from './sqliteNoWait.js';

const failing = new WeakSet<Db>();

/** A write to `db` failed because the file could not take it. */
export function markWritesFailing(db: Db): void {
  failing.add(db);
}

/**
 * Readiness of `db`'s writes: nothing while none failed; otherwise the probe write above, run
 * with `background` (no wait for another process's lock; failures as StoreUnavailableError).
 */
export function checkWrites(db: Db, background: NoWait): void {
  if (!failing.has(db)) return;
  background(() => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma(`user_version = ${Number(db.pragma('user_version', { simple: true }))}`);
  });
  failing.delete(db);
}
