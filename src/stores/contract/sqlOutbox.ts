/**
 * The push half of the SQL stores as PushStore methods, written once for SQLite and PostgreSQL
 * over the statements of pushSql.ts (as memoryOutbox.ts is for the memory store). A store
 * supplies how a statement runs, and the writes that differ per engine: the claim (an
 * IMMEDIATE transaction on SQLite, `FOR UPDATE SKIP LOCKED` on PostgreSQL), the deletion of
 * a config with its pending deliveries (one transaction on each), and the put of a config
 * within a per-task limit (counted and written under the write lock on SQLite, under a lock on
 * the task's row on PostgreSQL).
 */
import {
  PushConfigLimitError,
  type ClaimOptions,
  type DeadLetter,
  type DeliveryKey,
  type PushConfigPage,
  type PushDelivery,
  type PushStore,
  type PutPushConfigOptions,
  type StoredPushConfig,
} from '../../server/stores/pushStore.js';
import {
  DEFAULT_DEAD_LETTER_LIMIT,
  configJson,
  configPage,
  earliest,
  keyParams,
  optionalTime,
  parseConfig,
  rowLimit,
  toDeadLetter,
  toDelivery,
  type DeadLetterRow,
  type DeliveryRow,
  type PushStatementName,
  type SqlTime,
} from './pushSql.js';

/** What an engine supplies to the outbox. */
export interface OutboxEngine {
  /** Runs one statement of the push half with its `@name` parameters; its rows (none for a write). */
  run<R>(name: PushStatementName, params: Record<string, unknown>): Promise<R[]>;
  /** Locks due head-of-line deliveries until `until`, at most `limit`, oldest next attempt first. */
  claim(options: { now: string; until: string; limit: number }): Promise<DeliveryRow[]>;
  /** Deletes a config and its pending deliveries in one transaction; whether the config existed. */
  deleteConfig(params: { tenant: string; taskId: string; id: string }): Promise<boolean>;
  /**
   * Runs `putConfigIfRoom` so that no other put of the same task counts or writes in between;
   * whether it wrote (false: the task has `@max` other configs).
   */
  putConfigIfRoom(params: { tenant: string; taskId: string; id: string; json: string; max: number }): Promise<boolean>;
}

export class SqlOutbox implements PushStore {
  constructor(private readonly engine: OutboxEngine) {}

  async putPushConfig(tenant: string, config: StoredPushConfig, options: PutPushConfigOptions = {}): Promise<StoredPushConfig> {
    const json = configJson(config);
    const params = { tenant, taskId: config.taskId, id: config.id, json };
    const max = options.maxPerTask;
    if (max === undefined) await this.engine.run('putConfig', params);
    else if (!(await this.engine.putConfigIfRoom({ ...params, max }))) throw new PushConfigLimitError(max);
    return parseConfig(json);
  }

  async getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const row = (await this.engine.run<{ config_json: string }>('getConfig', { tenant, taskId, id }))[0];
    return row && parseConfig(row.config_json);
  }

  async listPushConfigs(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): Promise<PushConfigPage> {
    const limit = rowLimit(page.pageSize, 'pageSize') + 1;
    const rows =
      page.afterId === undefined
        ? await this.engine.run<{ config_json: string }>('listConfigs', { tenant, taskId, limit })
        : await this.engine.run<{ config_json: string }>('listConfigsAfter', { tenant, taskId, afterId: page.afterId, limit });
    return configPage(rows, page.pageSize);
  }

  async deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean> {
    return this.engine.deleteConfig({ tenant, taskId, id });
  }

  async claimDeliveries(options: ClaimOptions): Promise<PushDelivery[]> {
    const limit = rowLimit(options.limit, 'limit');
    if (limit === 0) return [];
    const until = new Date(options.now.getTime() + options.lockMs).toISOString();
    return (await this.engine.claim({ now: options.now.toISOString(), until, limit })).map(toDelivery);
  }

  async completeDelivery(key: DeliveryKey): Promise<void> {
    await this.engine.run('complete', keyParams(key));
  }

  async retryDelivery(key: DeliveryKey, retry: { nextAttemptAt: Date; error: string }): Promise<void> {
    await this.engine.run('retry', { ...keyParams(key), next: retry.nextAttemptAt.toISOString(), error: retry.error });
  }

  async deferDelivery(key: DeliveryKey, next: { nextAttemptAt: Date }): Promise<void> {
    await this.engine.run('defer', { ...keyParams(key), next: next.nextAttemptAt.toISOString() });
  }

  async deadLetterDelivery(key: DeliveryKey, failure: { error: string }): Promise<void> {
    await this.engine.run('dead', { ...keyParams(key), error: failure.error });
  }

  async nextDeliveryDue(): Promise<Date | undefined> {
    const row = (await this.engine.run<{ next_attempt: SqlTime | null; lock_expiry: SqlTime | null }>('nextDue', {}))[0];
    return earliest(optionalTime(row?.next_attempt), optionalTime(row?.lock_expiry));
  }

  async listDeadLetters(tenant: string, options: { taskId?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    const limit = rowLimit(options.limit ?? DEFAULT_DEAD_LETTER_LIMIT, 'limit');
    const rows =
      options.taskId === undefined
        ? await this.engine.run<DeadLetterRow>('listDead', { tenant, limit })
        : await this.engine.run<DeadLetterRow>('listDeadOfTask', { tenant, taskId: options.taskId, limit });
    return rows.map((r) => toDeadLetter(tenant, r));
  }
}
