/**
 * Retention on the SQLite store (sqliteStore.ts): terminal tasks purged in small IMMEDIATE
 * transactions, yielding to the event loop between them. A batch does not wait on the event loop
 * for another process's write lock (sqliteNoWait.ts): while the lock is held it is tried again
 * every few milliseconds, asynchronously, up to busy_timeout in all; then StoreUnavailableError.
 */
import type { Database as Db } from 'better-sqlite3';
import { SQLITE_CONTEXT_DIALECT, contextStatements } from '../contract/contextSql.js';
import { TERMINAL_STATES, canonicalTime } from '../contract/sqlShared.js';
import type { PurgeOptions } from '../../server/stores/taskStore.js';
import { StoreUnavailableError } from '../../protocol/errors.js';
import { noWait, type NoWait } from './sqliteNoWait.js';

/** How long a batch that found the write lock held waits before it is tried again. */
const LOCKED_RETRY_MS = 25;

/**
 * Retention: deletes terminal tasks whose status timestamp is older than `before`, with their
 * events, message ids, push configs, deliveries and lease, and records their contexts' owners
 * (TENANT-06: a context stays its owner's after its tasks are gone); then forgets the contexts
 * with no task left whose row is older than `before`. Returns the number of tasks deleted.
 * Runs in small transactions.
 */
export async function purgeTerminal(db: Db, options: PurgeOptions): Promise<number> {
  const before = canonicalTime(typeof options.before === 'string' ? options.before : options.before.toISOString());
  const batch = Math.max(1, options.batchSize ?? 500);
  const states = TERMINAL_STATES.map((s) => `'${s}'`).join(', ');
  const pick = db.prepare<[string, number], { tenant: string; id: string }>(
    `SELECT tenant, id FROM tasks WHERE state IN (${states}) AND status_ts < ? LIMIT ?`,
  );
  const delEvents = db.prepare<[string, string]>('DELETE FROM events WHERE tenant = ? AND task_id = ?');
  const delMessages = db.prepare<[string, string]>('DELETE FROM messages WHERE tenant = ? AND task_id = ?');
  const delDeliveries = db.prepare<[string, string]>('DELETE FROM push_deliveries WHERE tenant = ? AND task_id = ?');
  const delConfigs = db.prepare<[string, string]>('DELETE FROM push_configs WHERE tenant = ? AND task_id = ?');
  const delLease = db.prepare<[string, string]>('DELETE FROM leases WHERE tenant = ? AND task_id = ?');
  const delTask = db.prepare<[string, string]>(`DELETE FROM tasks WHERE tenant = ? AND id = ? AND state IN (${states})`);
  const contexts = contextStatements({ prefix: '', ...SQLITE_CONTEXT_DIALECT });
  const keepContext = db.prepare<[{ tenant: string; taskId: string; now: string }]>(contexts.keep);
  const forget = db.prepare<[{ before: string; limit: number }]>(contexts.forget);
  const step = db.transaction(() => {
    const rows = pick.all(before, batch);
    const now = new Date().toISOString();
    for (const r of rows) {
      keepContext.run({ tenant: r.tenant, taskId: r.id, now });
      delEvents.run(r.tenant, r.id);
      delMessages.run(r.tenant, r.id);
      delDeliveries.run(r.tenant, r.id);
      delConfigs.run(r.tenant, r.id);
      delLease.run(r.tenant, r.id);
      delTask.run(r.tenant, r.id);
    }
    return rows.length;
  }).immediate;
  const forgetStep = db.transaction(() => forget.run({ before, limit: batch }).changes).immediate;
  const locked = { background: noWait(db), patienceMs: Number(db.pragma('busy_timeout', { simple: true })) };
  let total = 0;
  for (let n = batch; n === batch; ) {
    n = await whenUnlocked(locked, step);
    total += n;
    await yieldTurn();
  }
  for (let n = batch; n === batch; ) {
    n = await whenUnlocked(locked, forgetStep);
    await yieldTurn();
  }
  return total;
}

/** Runs `step` without blocking on another process's lock, trying again (asynchronously) while it is held, up to `patienceMs`. */
async function whenUnlocked(locked: { background: NoWait; patienceMs: number }, step: () => number): Promise<number> {
  const giveUpAt = Date.now() + locked.patienceMs;
  for (;;) {
    try {
      return locked.background(step);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS));
    }
  }
}

/** Lets other work (requests on this event loop) run between batches. */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
