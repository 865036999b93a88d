/**
 * Background writes of the SQLite store (push claims and delivery records, lease renewal and
 * sweeps, retention) without waiting on the event loop for another process's write lock.
 * better-sqlite3 is synchronous: a write that waits busy_timeout (5 s by default) for a lock held
 * by another process (an `a2a db` command, a script's `BEGIN EXCLUSIVE`) stalls every request
 * and probe of the process, /healthz included, for that long. Such a write runs with
 * busy_timeout 0, set just around the call and restored after it (nothing else can run on the
 * connection in between), so a held lock fails it at once with SQLITE_BUSY, as
 * StoreUnavailableError (sqliteFailures.ts, as are the failures of a file that cannot take the write); its loop tries again on its next tick. Request-path
 * writes (groupCommit.ts) still wait up to busy_timeout (docs/storage.md).
 */
import type { Database as Db } from 'better-sqlite3';
import { storeCalls } from './sqliteFailures.js';

/** Runs one synchronous call on `db` without waiting for the write lock; SQLITE_BUSY (and a full disk, …) is StoreUnavailableError. */
export type NoWait = <T>(call: () => T) => T;

/** The no-wait runner of `db`, which restores the busy_timeout `db` has now after each call. */
export function noWait(db: Db): NoWait {
  const waitMs = Number(db.pragma('busy_timeout', { simple: true }));
  const calls = storeCalls(db);
  return (call) => {
    db.pragma('busy_timeout = 0');
    try {
      return calls(call);
    } finally {
      db.pragma(`busy_timeout = ${waitMs}`);
    }
  };
}
