/**
 * The file of a SQLite store before it is opened. A new one is made private: its directory (the
 * part a2a-kit creates) mode 0700 and the database file 0600, which SQLite's -wal and -shm files
 * then take (SQLite gives them the database file's mode), since `push_configs` holds webhook
 * credentials in clear unless `--push-key` is set. Existing files and directories keep their
 * modes. A store that must not create (`a2a db`: a wrong path in a cron job must not open a new,
 * empty database and report success) refuses a missing file with MissingDatabaseError.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export class MissingDatabaseError extends Error {
  constructor(readonly path: string) {
    super(`no database file at ${path} (a2a db does not create one: check the path; a2a serve creates it)`);
  }
}

/** Makes `path` ready to open: created privately when missing and `create`, else MissingDatabaseError. */
export function prepareDatabaseFile(path: string, create: boolean): void {
  if (path === ':memory:' || path === '') return;
  if (!create) {
    if (!existsSync(path)) throw new MissingDatabaseError(path);
    return;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // An empty file is an empty database to SQLite.
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
}
