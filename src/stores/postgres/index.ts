export { PostgresTaskStore } from './postgresStore.js';
export type { PostgresStoreOptions, PurgeOptions } from './postgresStore.js';
export { POSTGRES_MIGRATIONS, migratePostgres, schemaVersionPg } from './migrations.js';
export type { PostgresMigration, MigrationResult } from './migrations.js';
export { recoverInterrupted, DEFAULT_RECOVERY_REASON } from '../contract/recovery.js';
export type { ActiveTaskSource, RecoverOptions, RecoveredTask } from '../contract/recovery.js';
export { startRetention } from '../contract/retention.js';
export type { Retention, RetentionOptions } from '../contract/retention.js';
