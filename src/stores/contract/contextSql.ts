/**
 * The context owners of the SQL stores (TaskStore.claimContext, TENANT-06), written once for
 * SQLite and PostgreSQL with `@name` parameters like pushSql.ts; only "now" differs (bound ISO
 * text on SQLite, `now()` on PostgreSQL). A `contexts` row records whose a context is; a context
 * without one is its oldest task's owner's (so the write path of tasks never touches the table,
 * and contexts older than the table need no backfill), and a context with neither is free.
 */

export interface ContextDialect {
  /** Table prefix: `"a2a".` on PostgreSQL, empty on SQLite. */
  prefix: string;
  /** SQL for the current instant, stored in `updated_at`. */
  now: string;
}

export const SQLITE_CONTEXT_DIALECT: Omit<ContextDialect, 'prefix'> = { now: '@now' };
export const POSTGRES_CONTEXT_DIALECT: Omit<ContextDialect, 'prefix'> = { now: 'now()' };

/** SQL for the owner of the oldest task of context (`tenant`, `contextId`), NULL without tasks (index tasks_by_context). */
export function oldestOwner(prefix: string, context: { tenant: string; contextId: string }): string {
  return `(SELECT t.owner FROM ${prefix}tasks t WHERE t.tenant = ${context.tenant} AND t.context_id = ${context.contextId}
    ORDER BY t.created_at, t.id LIMIT 1)`;
}

export function contextStatements(d: ContextDialect) {
  const contexts = `${d.prefix}contexts`;
  const here = { tenant: '@tenant', contextId: '@contextId' };
  return {
    /** The recorded owner of (@tenant, @contextId), if any. */
    owner: `SELECT owner FROM ${contexts} WHERE tenant = @tenant AND context_id = @contextId`,
    /**
     * Records the context's owner unless it has one: its oldest task's, else @owner. A racing
     * claim of the same id conflicts on the primary key and records nothing; it reads the winner.
     */
    claim: `INSERT INTO ${contexts} (tenant, context_id, owner, updated_at)
      SELECT @tenant, @contextId, COALESCE(${oldestOwner(d.prefix, here)}, @owner), ${d.now}
      WHERE NOT EXISTS (SELECT 1 FROM ${contexts} c WHERE c.tenant = @tenant AND c.context_id = @contextId)
      ON CONFLICT (tenant, context_id) DO NOTHING`,
    /** Retention, before the task (@tenant, @taskId) is deleted: see keepContexts. */
    keep: keepContexts(d, { tenant: 't0.tenant', contextId: 't0.context_id', from: `${d.prefix}tasks t0 WHERE t0.tenant = @tenant AND t0.id = @taskId AND` }),
    /**
     * Retention: contexts with no task left whose row is older than @before (it was recorded,
     * or its last tasks purged, before the cutoff), at most @limit of them.
     */
    forget: `DELETE FROM ${contexts} WHERE (tenant, context_id) IN (
        SELECT c.tenant, c.context_id FROM ${contexts} c
        WHERE c.updated_at < @before
          AND NOT EXISTS (SELECT 1 FROM ${d.prefix}tasks t WHERE t.tenant = c.tenant AND t.context_id = c.context_id)
        LIMIT @limit
      )`,
  };
}

/**
 * Retention: before tasks are deleted, their contexts are recorded (with their oldest task's
 * owner, unless recorded already) and stamped now, so a context outlives its purged tasks by a
 * retention period instead of becoming free with them. `source.from` is the FROM clause of the
 * tasks about to go, ending in WHERE or AND; each of their contexts must come once.
 */
export function keepContexts(d: ContextDialect, source: { tenant: string; contextId: string; from: string }): string {
  return `INSERT INTO ${d.prefix}contexts (tenant, context_id, owner, updated_at)
      SELECT ${source.tenant}, ${source.contextId}, ${oldestOwner(d.prefix, source)}, ${d.now}
      FROM ${source.from} ${source.contextId} IS NOT NULL
      ON CONFLICT (tenant, context_id) DO UPDATE SET updated_at = excluded.updated_at`;
}
