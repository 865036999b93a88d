/**
 * The push half of the SQLite store (sqliteStore.ts): the shared push statements prepared on the
 * database, and the shared outbox (contract/sqlOutbox.ts) running them, its claim and config
 * deletion and its limited config put each one IMMEDIATE transaction; SQLITE_BUSY (or a full
 * disk, …) is StoreUnavailableError (sqliteFailures.ts). The dispatcher's writes (the claim and the record
 * of each attempt) do not wait for another process's lock (sqliteNoWait.ts); config writes,
 * made for a request, wait busy_timeout as the task writes do.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { pushStatements, type DeliveryRow, type PushStatementName } from '../contract/pushSql.js';
import { SqlOutbox } from '../contract/sqlOutbox.js';
import { storeCalls } from './sqliteFailures.js';
import { noWait } from './sqliteNoWait.js';

export type PushStatements = Record<PushStatementName, Statement<unknown[]>>;

/** The statements only the push dispatcher runs, in the background. */
const DISPATCHER_WRITES: ReadonlySet<PushStatementName> = new Set(['complete', 'retry', 'defer', 'dead']);

/** Prepares the push statements on `db` (after its migrations ran). */
export function preparePushStatements(db: Db): PushStatements {
  return Object.fromEntries(Object.entries(pushStatements('')).map(([name, sql]) => [name, db.prepare(sql)])) as PushStatements;
}

/** The outbox of `db`, over its prepared `push` statements. */
export function sqliteOutbox(db: Db, push: PushStatements): SqlOutbox {
  // One IMMEDIATE transaction: claims of other processes wait for the write lock, then see the locks.
  const claim = db.transaction(({ now, until, limit }: { now: string; until: string; limit: number }): DeliveryRow[] => {
    const rows = push.claimable.all({ now, limit }) as DeliveryRow[];
    for (const r of rows) push.lock.run({ tenant: r.tenant, taskId: r.task_id, configId: r.config_id, seq: r.seq, until });
    return rows;
  }).immediate;
  const deleteConfig = db.transaction((params: { tenant: string; taskId: string; id: string }): boolean => {
    const { changes } = push.deleteConfig.run(params);
    push.deleteConfigDeliveries.run(params);
    return changes > 0;
  }).immediate;
  const putConfigIfRoom = db.transaction((params: { tenant: string; taskId: string; id: string; json: string; max: number }): boolean => {
    return push.putConfigIfRoom.run(params).changes > 0;
  }).immediate;
  const background = noWait(db);
  const direct = storeCalls(db);
  return new SqlOutbox({
    run: async <R>(name: PushStatementName, params: Record<string, unknown>): Promise<R[]> =>
      (DISPATCHER_WRITES.has(name) ? background : direct)(() => {
        const statement = push[name];
        if (statement.reader) return statement.all(params) as R[];
        statement.run(params);
        return [];
      }),
    claim: async (options) => background(() => claim(options)),
    deleteConfig: async (params) => direct(() => deleteConfig(params)),
    putConfigIfRoom: async (params) => direct(() => putConfigIfRoom(params)),
  });
}
