/**
 * `--store` failures of `a2a serve` and `a2a db` in one line with their exit code (docs/cli.md),
 * each naming the store by its label, whose password is masked (the URL is never printed):
 * - 2, a `--store` that names something unusable: a bad spec; a SQLite file that is not a
 *   database, is corrupt, is not an a2a-kit store or has a newer schema (IncompatibleStoreError),
 *   cannot be opened or written (permissions), or is missing (`a2a db`); a path whose directory
 *   cannot be made (a file in the way, no permission);
 * - 4, the machine or the database refuses: a database that cannot be reached, refuses us
 *   (PostgreSQL errors, its schema newer than the code, TLS not offered or not trusted), a full
 *   disk or an I/O error, a SQLite file another `a2a serve` serves.
 * Anything else is left as it is (exit 1: a bug).
 */
import { describeStore, parseStoreSpec, StoreInUseError, StoreSpecError } from '../stores/contract/openStore.js';
import { IncompatibleStoreError } from '../stores/contract/incompatibleStore.js';
import { CorruptDatabaseError } from '../stores/sqlite/sqliteCheck.js';
import { MissingDatabaseError } from '../stores/sqlite/sqliteFile.js';
import { CliError, EXIT } from './errors.js';
import { UsageError } from './usage.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const HINT: Record<string, string> = { ECONNREFUSED: 'connection refused (is it running?)', ENOTFOUND: 'unknown host', EAI_AGAIN: 'host name lookup failed' };
/** SQLite codes (with their extended forms) and file system codes of a file or directory that cannot be used as given. */
const BAD_FILE = /^(SQLITE_(CANTOPEN|NOTADB|READONLY|PERM|CORRUPT|AUTH)|EEXIST$|ENOTDIR$|EISDIR$|EACCES$|EPERM$|EROFS$|ENOENT$|ENAMETOOLONG$|ELOOP$)/;
/** The machine has no room, or its disk fails. */
const NO_ROOM = /^(SQLITE_(FULL|IOERR)|ENOSPC$|EDQUOT$|EIO$)/;
/** node-postgres and TLS: the server offers no TLS (sslmode=require), or its certificate is not trusted. */
const TLS_REFUSED = /does not support SSL|self[- ]signed certificate|unable to verify|certificate|Hostname\/IP does not match/i;

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
  const store = parseStoreSpec(spec);
  const named = (code: number) => new CliError(`--store ${describeStore(store)}: ${error instanceof Error ? error.message : String(error)}`, code);
  if (error instanceof CorruptDatabaseError || error instanceof MissingDatabaseError) return named(EXIT.USAGE);
  if (error instanceof IncompatibleStoreError) return named(store.kind === 'sqlite' ? EXIT.USAGE : EXIT.CLIENT);
  const { code, severity, message } = (error ?? {}) as { code?: unknown; severity?: unknown; message?: unknown };
  if (store.kind === 'postgres' && TLS_REFUSED.test(String(message))) return named(EXIT.CLIENT);
  if (typeof code !== 'string') return error;
  if (UNREACHABLE.has(code)) return new CliError(`cannot reach the database of --store ${describeStore(store)}: ${HINT[code] ?? code}`, EXIT.CLIENT);
  // A PostgreSQL error (SQLSTATE, e.g. 28P01 bad password, 3D000 no such database).
  if (typeof severity === 'string') return named(EXIT.CLIENT);
  if (NO_ROOM.test(code)) return named(EXIT.CLIENT);
  if (BAD_FILE.test(code)) return named(EXIT.USAGE);
  return error;
}
