/**
 * Retention on the memory store (memoryStore.ts), with the semantics of the SQL stores'
 * purgeTerminal (sqliteRetention.ts): terminal tasks whose status timestamp is before the cutoff
 * go with their events, message ids, push configs, deliveries, dead letters and lease; their
 * contexts are recorded with their owner and stamped now (TENANT-06: a context stays its owner's
 * for one retention period after its last task goes), and contexts with no task left whose
 * record is older than the cutoff are forgotten. Nothing is done on the write path: a purge
 * scans, and deletes in batches with a turn of the event loop between them.
 */
import { isTerminalState } from '../../protocol/taskStates.js';
import { splitTaskKey, taskKey as key } from '../taskKey.js';
import type { MemoryOutbox } from './memoryOutbox.js';
import { statusTime, type PurgeOptions, type TaskRecord } from './taskStore.js';

/** TENANT-06: a context's recorded owner, and when it was recorded or last had tasks purged (epoch ms). */
export interface ContextOwner {
  owner: string;
  at: number;
}

/** The maps of the memory store that retention clears. */
export interface MemoryTables {
  /** Task key → entry, in creation order. */
  entries: Map<string, { record: TaskRecord }>;
  /** Key of (tenant, message id) → the task it was recorded with. */
  messages: Map<string, { readonly taskId: string }>;
  /** Key of (tenant, context id) → its owner. */
  contexts: Map<string, ContextOwner>;
  push: MemoryOutbox;
  leases: Map<string, unknown>;
}

/** Deletes terminal tasks last changed before `options.before`; returns how many. */
export async function purgeMemory(tables: MemoryTables, options: PurgeOptions): Promise<number> {
  const before = (typeof options.before === 'string' ? new Date(options.before) : options.before).getTime();
  const batch = Math.max(1, options.batchSize ?? 500);
  const expired = (record: TaskRecord) => isTerminalState(record.task.status.state) && Date.parse(statusTime(record.task)) < before;
  const candidates: Array<[string, { record: TaskRecord }]> = [];
  for (const pair of tables.entries) if (expired(pair[1].record)) candidates.push(pair);
  keepContexts(tables, candidates.map(([, e]) => e.record));
  const gone = new Set<string>();
  for (let i = 0; i < candidates.length; i += batch) {
    if (i > 0) await yieldTurn();
    for (const [k, entry] of candidates.slice(i, i + batch)) {
      // Replaced or changed since the scan: not this purge's to delete.
      if (tables.entries.get(k) !== entry || !expired(entry.record)) continue;
      tables.entries.delete(k);
      tables.leases.delete(k);
      tables.push.forgetTask(entry.record.tenant, entry.record.task.id);
      gone.add(k);
    }
  }
  // A task of the same key created since has its own message ids and dead letters.
  const purged = (k: string) => gone.has(k) && !tables.entries.has(k);
  for (const [k, claimed] of tables.messages) if (purged(key(splitTaskKey(k).tenant, claimed.taskId))) tables.messages.delete(k);
  tables.push.forgetDeadLetters((d) => purged(key(d.tenant, d.taskId)));
  forgetContexts(tables, before);
  return gone.size;
}

/**
 * Before tasks go: their contexts are recorded (with their oldest task's owner, unless recorded
 * already) and stamped now, so a context outlives its purged tasks by a retention period.
 */
function keepContexts(tables: MemoryTables, records: TaskRecord[]): void {
  const now = Date.now();
  const unrecorded = new Set<string>();
  for (const r of records) {
    if (r.task.contextId === undefined) continue;
    const k = key(r.tenant, r.task.contextId);
    const held = tables.contexts.get(k);
    if (held) held.at = now;
    else unrecorded.add(k);
  }
  if (unrecorded.size === 0) return;
  // Entries are in creation order: the first task found of a context is its oldest.
  for (const { record } of tables.entries.values()) {
    if (record.task.contextId === undefined) continue;
    const k = key(record.tenant, record.task.contextId);
    if (!unrecorded.delete(k)) continue;
    tables.contexts.set(k, { owner: record.owner, at: now });
    if (unrecorded.size === 0) return;
  }
}

/** Contexts with no task left whose record is older than the cutoff. */
function forgetContexts(tables: MemoryTables, before: number): void {
  const old = new Set<string>();
  for (const [k, c] of tables.contexts) if (c.at < before) old.add(k);
  if (old.size === 0) return;
  for (const { record } of tables.entries.values()) {
    if (record.task.contextId !== undefined) old.delete(key(record.tenant, record.task.contextId));
  }
  for (const k of old) tables.contexts.delete(k);
}

/** Lets other work (requests on this event loop) run between batches; setTimeout runs on every runtime. */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
