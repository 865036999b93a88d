/**
 * SQLite failures as what they mean to a caller: SQLITE_BUSY (the write lock was still held by
 * another process when busy_timeout ran out) is StoreUnavailableError, so every binding answers a
 * retryable UNAVAILABLE (R19) and a run's writes retry it (R2); nothing was written. Serves the
 * group commit (groupCommit.ts) and the writes outside it (push configs and the outbox, leases).
 */
import { StoreUnavailableError } from '../../protocol/errors.js';

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** `error` as StoreUnavailableError when SQLite was busy; anything else unchanged. */
export function storeFailure(error: unknown): unknown {
  return isBusy(error) ? StoreUnavailableError.from(error, 'The task store is locked by another process; retry later') : error;
}

/** Runs one synchronous SQLite call, rethrowing SQLITE_BUSY as StoreUnavailableError. */
export function unlessBusy<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw storeFailure(error);
  }
}
