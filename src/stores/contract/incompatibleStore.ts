/**
 * A database this a2a-kit cannot serve as it is: its schema is newer than the code (written by a
 * newer a2a-kit), older with migrations turned off, or not an a2a-kit schema at all (a SQLite
 * file with tables of its own). The command line reports it as a bad `--store` (exit 2) for a
 * SQLite file, as the database refusing us (exit 4) for PostgreSQL (src/cli/storeFailure.ts).
 */
export class IncompatibleStoreError extends Error {}
