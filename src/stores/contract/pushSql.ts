/**
 * The push half of the SQL stores (PushStore), written once for SQLite and PostgreSQL.
 * Statements use `@name` parameters: SQLite binds them by name as they are, PostgreSQL gets
 * them rewritten to `$1…` (`compilePg`). Timestamps are bound as ISO-8601 UTC text: SQLite
 * stores that text (whose string order is time order), PostgreSQL casts it to timestamptz from
 * the column it is compared with or stored in. Only the claim itself differs per engine (an
 * IMMEDIATE transaction on SQLite, `FOR UPDATE SKIP LOCKED` on PostgreSQL), and the outbox
 * insert, which lives inside each store's own create/append write.
 */
import type { StreamResponse } from '../../protocol/types.js';
import type { DeadLetter, DeliveryKey, PushConfigPage, PushDelivery, StoredPushConfig } from '../../server/stores/pushStore.js';

/** Most dead letters listed when the caller gives no limit. */
export const DEFAULT_DEAD_LETTER_LIMIT = 100;

/** `@name` placeholders become `$1…` in order of first use; `bind` orders the values to match. */
export interface CompiledSql {
  text: string;
  bind(params: Record<string, unknown>): unknown[];
}

export function compilePg(sql: string): CompiledSql {
  const names: string[] = [];
  const text = sql.replace(/@([A-Za-z]\w*)/g, (_, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return {
    text,
    bind: (params) =>
      names.map((n) => {
        if (!(n in params)) throw new Error(`missing SQL parameter @${n}`);
        return params[n];
      }),
  };
}

/** The primary key of a delivery row as `@tenant … @seq` parameters. */
export function keyParams(key: DeliveryKey): { tenant: string; taskId: string; configId: string; seq: number } {
  return { tenant: key.tenant, taskId: key.taskId, configId: key.configId, seq: key.seq };
}

const KEY = 'tenant = @tenant AND task_id = @taskId AND config_id = @configId AND seq = @seq';

/** A pending row with a lower seq of the same (tenant, task, config): `d` is not head of line. */
function blocked(deliveries: string): string {
  return `EXISTS (SELECT 1 FROM ${deliveries} p
      WHERE p.tenant = d.tenant AND p.task_id = d.task_id AND p.config_id = d.config_id
        AND p.status = 'pending' AND p.seq < d.seq)`;
}

/**
 * Every statement of the push half. `prefix` qualifies the table names (`"a2a".` on
 * PostgreSQL, empty on SQLite).
 */
export function pushStatements(prefix: string) {
  const configs = `${prefix}push_configs`;
  const deliveries = `${prefix}push_deliveries`;
  const events = `${prefix}events`;
  return {
    putConfig: `INSERT INTO ${configs} (tenant, task_id, id, config_json) VALUES (@tenant, @taskId, @id, @json)
      ON CONFLICT (tenant, task_id, id) DO UPDATE SET config_json = excluded.config_json`,
    /** putConfig unless the task has `@max` configs besides this one (run under a per-task lock). */
    putConfigIfRoom: `INSERT INTO ${configs} (tenant, task_id, id, config_json)
      SELECT CAST(@tenant AS text), CAST(@taskId AS text), CAST(@id AS text), CAST(@json AS text)
      WHERE (SELECT count(*) FROM ${configs} WHERE tenant = @tenant AND task_id = @taskId AND id <> @id) < @max
      ON CONFLICT (tenant, task_id, id) DO UPDATE SET config_json = excluded.config_json`,
    getConfig: `SELECT config_json FROM ${configs} WHERE tenant = @tenant AND task_id = @taskId AND id = @id`,
    listConfigs: `SELECT config_json FROM ${configs} WHERE tenant = @tenant AND task_id = @taskId ORDER BY id LIMIT @limit`,
    listConfigsAfter: `SELECT config_json FROM ${configs} WHERE tenant = @tenant AND task_id = @taskId AND id > @afterId ORDER BY id LIMIT @limit`,
    deleteConfig: `DELETE FROM ${configs} WHERE tenant = @tenant AND task_id = @taskId AND id = @id`,
    /** PUSH-07: pending deliveries of a deleted config go with it; dead letters stay for inspection. */
    deleteConfigDeliveries: `DELETE FROM ${deliveries} WHERE tenant = @tenant AND task_id = @taskId AND config_id = @id AND status = 'pending'`,
    /**
     * Due, unlocked, head-of-line rows with their event and config, oldest next attempt first.
     * The order is the due index's own, so the scan stops after `@limit` rows.
     */
    claimable: `SELECT d.tenant, d.task_id, d.config_id, d.seq, d.attempts, d.created_at, d.next_attempt_at, e.event_json, c.config_json
      FROM ${deliveries} d
      JOIN ${events} e ON e.tenant = d.tenant AND e.task_id = d.task_id AND e.seq = d.seq
      JOIN ${configs} c ON c.tenant = d.tenant AND c.task_id = d.task_id AND c.id = d.config_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND (d.locked_until IS NULL OR d.locked_until < @now)
        AND NOT ${blocked(deliveries)}
      ORDER BY d.next_attempt_at
      LIMIT @limit`,
    lock: `UPDATE ${deliveries} SET locked_until = @until WHERE ${KEY}`,
    complete: `DELETE FROM ${deliveries} WHERE ${KEY}`,
    retry: `UPDATE ${deliveries} SET attempts = attempts + 1, next_attempt_at = @next, locked_until = NULL, last_error = @error
      WHERE ${KEY} AND status = 'pending'`,
    defer: `UPDATE ${deliveries} SET next_attempt_at = @next, locked_until = NULL WHERE ${KEY} AND status = 'pending'`,
    dead: `UPDATE ${deliveries} SET status = 'dead', attempts = attempts + 1, locked_until = NULL, last_error = @error
      WHERE ${KEY} AND status = 'pending'`,
    /**
     * The earliest unlocked head-of-line row (index order, so usually the first row read) and the
     * earliest lock expiry (a locked row is due again when its worker's lock runs out).
     */
    nextDue: `SELECT
        (SELECT d.next_attempt_at FROM ${deliveries} d WHERE d.status = 'pending' AND d.locked_until IS NULL AND NOT ${blocked(deliveries)}
         ORDER BY d.next_attempt_at LIMIT 1) AS next_attempt,
        (SELECT min(locked_until) FROM ${deliveries} WHERE status = 'pending' AND locked_until IS NOT NULL) AS lock_expiry`,
    /** Newest first; ties in key order, descending (the dead index's own order, read backwards). */
    listDead: `SELECT task_id, config_id, seq, attempts, last_error, created_at FROM ${deliveries}
      WHERE tenant = @tenant AND status = 'dead' ORDER BY created_at DESC, task_id DESC, config_id DESC, seq DESC LIMIT @limit`,
    listDeadOfTask: `SELECT task_id, config_id, seq, attempts, last_error, created_at FROM ${deliveries}
      WHERE tenant = @tenant AND task_id = @taskId AND status = 'dead' ORDER BY created_at DESC, config_id DESC, seq DESC LIMIT @limit`,
  };
}

export type PushStatementName = keyof ReturnType<typeof pushStatements>;

/** The config as stored: everything but the tenant, which is part of the key. */
export function configJson(config: StoredPushConfig): string {
  const { tenant: _tenant, ...stored } = config;
  return JSON.stringify(stored);
}

export function parseConfig(json: string): StoredPushConfig {
  return JSON.parse(json) as StoredPushConfig;
}

/** `rows` were read with LIMIT pageSize + 1: the extra row only says there is more. */
export function configPage(rows: Array<{ config_json: string }>, pageSize: number): PushConfigPage {
  return { configs: rows.slice(0, pageSize).map((r) => parseConfig(r.config_json)), hasMore: rows.length > pageSize };
}

/** SQLite hands back the stored text, PostgreSQL a Date (timestamptz). */
export type SqlTime = string | Date;

export function isoTime(value: SqlTime): string {
  return typeof value === 'string' ? value : value.toISOString();
}

export function optionalTime(value: SqlTime | null | undefined): Date | undefined {
  return value === null || value === undefined ? undefined : new Date(value);
}

/** The earlier of two optional instants. */
export function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

export interface DeliveryRow {
  tenant: string;
  task_id: string;
  config_id: string;
  seq: number | string;
  attempts: number | string;
  created_at: SqlTime;
  event_json: string;
  config_json: string;
}

export function toDelivery(row: DeliveryRow): PushDelivery {
  return {
    tenant: row.tenant,
    taskId: row.task_id,
    configId: row.config_id,
    seq: Number(row.seq),
    event: JSON.parse(row.event_json) as StreamResponse,
    config: parseConfig(row.config_json),
    attempts: Number(row.attempts),
    createdAt: isoTime(row.created_at),
  };
}

export interface DeadLetterRow {
  task_id: string;
  config_id: string;
  seq: number | string;
  attempts: number | string;
  last_error: string | null;
  created_at: SqlTime;
}

export function toDeadLetter(tenant: string, row: DeadLetterRow): DeadLetter {
  return {
    tenant,
    taskId: row.task_id,
    configId: row.config_id,
    seq: Number(row.seq),
    attempts: Number(row.attempts),
    error: row.last_error ?? '',
    createdAt: isoTime(row.created_at),
  };
}

/** Validates a page size or limit: callers bound it, the store only refuses nonsense. */
export function rowLimit(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
  return value;
}
