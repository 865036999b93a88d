/**
 * SQLite failures as what they mean to a caller: StoreUnavailableError, so every binding answers
 * a retryable UNAVAILABLE (R19) and a run's writes retry it (R2), for
 * - SQLITE_BUSY: the write lock was still held by another process when busy_timeout ran out;
 * - a file that cannot take the write: SQLITE_FULL (disk or quota full), SQLITE_IOERR_* (the
 *   disk failed, or the file may not grow), SQLITE_CANTOPEN (the -wal or -shm file cannot be
 *   made: a full inode table, a directory made unwritable) and SQLITE_READONLY_* (the file was
 *   moved, or made read-only, under the running server). The operator can mend each of these
 *   while the server runs, so writes are tried again rather than failing their tasks; such a
 *   failure also marks the database for readiness (sqliteWriteHealth.ts). The same codes when a
 *   store is opened are the command line's (src/cli/storeFailure.ts).
 * Nothing was written. Serves the group commit (groupCommit.ts) and the writes outside it (push
 * configs and the outbox, leases).
 */
import type { Database as Db } from 'better-sqlite3';
import { StoreUnavailableError } from '../../protocol/errors.js';
import { markWritesFailing } from './sqliteWriteHealth.js';

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...). */
export function isBusy(error: unknown): boolean {
  return codeOf(error).startsWith('SQLITE_BUSY');
}

/** The file could not take a write (see above), with the extended codes. */
export function cannotWrite(error: unknown): boolean {
  return /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/.test(codeOf(error));
}

/** `error` of a call on `db` as StoreUnavailableError when it is one of the above (noted for readiness); anything else unchanged. */
export function storeFailure(db: Db, error: unknown): unknown {
  if (isBusy(error)) return StoreUnavailableError.from(error, 'The task store is locked by another process; retry later');
  if (!cannotWrite(error)) return error;
  markWritesFailing(db);
  return StoreUnavailableError.from(error, 'The task store cannot write to its file (disk full or an I/O error); retry later');
}

/** Runs synchronous SQLite calls on `db`, rethrowing their failures as storeFailure says. */
export function storeCalls(db: Db): <T>(call: () => T) => T {
  return (call) => {
    try {
      return call();
    } catch (error) {
      throw storeFailure(db, error);
    }
  };
}
