/**
 * `--store` failures of `a2a serve` and `a2a db` in one line with their exit code: a bad spec or
 * a file that cannot be a database (or is corrupt) is 2, a database that cannot be reached (or refuses us), or a
 * SQLite file another `a2a serve` serves, is 4. The store is named by its label, whose password is masked: the URL is never printed.
 */
import { describeStore, parseStoreSpec, StoreInUseError, StoreSpecError } from '../stores/contract/openStore.js';
import { CorruptDatabaseError } from '../stores/sqlite/sqliteCheck.js';
import { CliError, EXIT } from './errors.js';
import { UsageError } from './usage.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const HINT: Record<string, string> = { ECONNREFUSED: 'connection refused (is it running?)', ENOTFOUND: 'unknown host', EAI_AGAIN: 'host name lookup failed' };
const BAD_FILE = new Set(['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_CORRUPT']);

/** Runs `open` (openStore, migrateStore…) with its failures reported as above. */
export async function withStore<T>(spec: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw storeFailure(error, spec);
  }
}

function storeFailure(error: unknown, spec: string): unknown {
  if (error instanceof StoreSpecError) return new UsageError(error.message);
  // Like a port in use: the machine refuses, the command line is fine.
  if (error instanceof StoreInUseError) return new CliError(error.message, EXIT.CLIENT);
  if (error instanceof CorruptDatabaseError) return new CliError(`--store ${describeStore(parseStoreSpec(spec))}: ${error.message}`, EXIT.USAGE);
  const { code, message, severity } = (error ?? {}) as { code?: unknown; message?: unknown; severity?: unknown };
  if (typeof code !== 'string') return error;
  const label = describeStore(parseStoreSpec(spec));
  if (UNREACHABLE.has(code)) return new CliError(`cannot reach the database of --store ${label}: ${HINT[code] ?? code}`, EXIT.CLIENT);
  // A PostgreSQL error (SQLSTATE, e.g. 28P01 bad password, 3D000 no such database).
  if (typeof severity === 'string') return new CliError(`--store ${label}: ${String(message)}`, EXIT.CLIENT);
  if (BAD_FILE.has(code)) return new CliError(`--store ${label}: ${String(message)}`, EXIT.USAGE);
  return error;
}
