export { SqliteTaskStore } from './sqliteStore.js';
export type { SqliteStoreOptions, PurgeOptions } from './sqliteStore.js';
export { SQLITE_MIGRATIONS, migrateSqlite, schemaVersion } from './migrations.js';
export type { SqliteMigration, MigrationResult } from './migrations.js';
export { recoverInterrupted, DEFAULT_RECOVERY_REASON } from '../contract/recovery.js';
export type { ActiveTaskSource, RecoverOptions, RecoveredTask } from '../contract/recovery.js';
export { startRetention } from '../contract/retention.js';
export type { Retention, RetentionOptions } from '../contract/retention.js';
