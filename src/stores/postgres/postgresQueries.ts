/**
 * The SQL of the PostgreSQL store (postgresStore.ts), built once per schema: the task
 * statements (each write one statement, its CTEs doing the rest), the shared push and lease
 * statements compiled to `$n` placeholders with prepared-statement names, and the list
 * statements, once per filter shape.
 */
import { compilePg, pushStatements, type CompiledSql, type PushStatementName } from '../contract/pushSql.js';
import { POSTGRES_LEASE_DIALECT, leaseStatements } from '../contract/leaseSql.js';
import { TERMINAL_STATES, listWhere, type ListFilter } from '../contract/sqlShared.js';
import { POSTGRES_CONTEXT_DIALECT, contextStatements, keepContexts } from '../contract/contextSql.js';
import { chunkUpdateSql, lagEventsSql } from '../contract/snapshotLag.js';

/** A statement with its prepared-statement name. */
export type PushQuery = CompiledSql & { name: string };

export function statements(s: string, tag: string) {
  const terminal = TERMINAL_STATES.map((x) => `'${x}'`).join(', ');
  const create = `WITH t AS (
          INSERT INTO ${s}.tasks (tenant, id, owner, context_id, state, status_ts, version, seq, task_json)
          VALUES ($1, $2, $11, $3, $4, $5, 1, 1, $6) ON CONFLICT DO NOTHING RETURNING 1
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json) SELECT $1::text, $2::text, 1, $7::text FROM t
        ), pc AS (
          INSERT INTO ${s}.push_configs (tenant, task_id, id, config_json)
          SELECT $1::text, $2::text, $8::text, $9::text FROM t WHERE $8::text IS NOT NULL
          ON CONFLICT (tenant, task_id, id) DO UPDATE SET config_json = excluded.config_json
        ), pd AS (
          INSERT INTO ${s}.push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
          SELECT $1::text, $2::text, $8::text, 1, $10::timestamptz, $10::timestamptz FROM t WHERE $8::text IS NOT NULL
        )`;
  /** The placeholders of an append's parameters: positional (`$n`) or `@name` (compiled by compilePg). */
  type Params = { tenant: string; taskId: string; count: string; events: string; now: string; lease?: string };
  /**
   * `p.lease`: the parameter of AppendInput.leaseOwner (R3). The write then needs that owner's
   * unexpired lease, read with a share lock, so a takeover either waits for this write or is seen
   * by it (the lease row's new owner fails the check).
   */
  const leaseCte = (p: Params) =>
    p.lease
      ? `l AS (
          SELECT 1 FROM ${s}.leases WHERE tenant = ${p.tenant} AND task_id = ${p.taskId} AND owner = ${p.lease}::text AND expires_at >= now() FOR SHARE
        ), `
      : '';
  const leaseWhere = (p: Params) => (p.lease ? ' AND EXISTS (SELECT 1 FROM l)' : '');
  /** An append around its UPDATE `u` (the compare-and-set, RETURNING seq, owner): the events and their deliveries. */
  const appendAround = (u: string, p: Params) => `WITH ${leaseCte(p)}u AS (
          ${u}
        ), e AS (
          INSERT INTO ${s}.events (tenant, task_id, seq, event_json)
          SELECT ${p.tenant}::text, ${p.taskId}::text, u.seq - ${p.count}::bigint + x.ord, x.j
          FROM u, unnest(${p.events}::text[]) WITH ORDINALITY AS x(j, ord)
        ), c AS (
          -- The key-share lock makes a concurrent deletePushConfig either wait for this write or
          -- be seen by it (see there).
          SELECT id FROM ${s}.push_configs WHERE tenant = ${p.tenant}::text AND task_id = ${p.taskId}::text FOR KEY SHARE
        ), pd AS (
          -- R11: one delivery per (event, config).
          INSERT INTO ${s}.push_deliveries (tenant, task_id, config_id, seq, next_attempt_at, created_at)
          SELECT ${p.tenant}::text, ${p.taskId}::text, c.id, u.seq - ${p.count}::bigint + x.ord, ${p.now}::timestamptz, ${p.now}::timestamptz
          FROM c, u, generate_series(1, ${p.count}::bigint) AS x(ord)
        )`;
  /** A new snapshot ($7), which lags behind nothing, with its room ($11, snapshotLag.ts). */
  const append = (lease?: string) => {
    const p: Params = { tenant: '$1', taskId: '$2', count: '$8', events: '$9', now: '$10', ...(lease ? { lease } : {}) };
    return appendAround(
      `UPDATE ${s}.tasks
          SET context_id = $4, state = $5, status_ts = $6, task_json = $7, snapshot_lag = 0, snapshot_room = $11, updated_at = now(),
              version = version + 1, seq = seq + $8::bigint
          WHERE tenant = $1 AND id = $2 AND version = $3${leaseWhere(p)}
          RETURNING seq, owner`,
      p,
    );
  };
  /** Artifact chunks without the snapshot, while its room lasts (snapshotLag.ts), with `@name` parameters. */
  const appendChunk = (leased: boolean) => {
    const p: Params = { tenant: '@tenant', taskId: '@taskId', count: '@count', events: '@events', now: '@now', ...(leased ? { lease: '@leaseOwner' } : {}) };
    const update = chunkUpdateSql(`${s}.tasks`, { now: 'now()', lease: leaseWhere(p) });
    return compilePg(`${appendAround(update, p)} SELECT seq, owner FROM u`);
  };
  // IDEM-02: a message id is claimed for the task's owner (u.owner, immutable).
  const appendClaim = (write: string) => `${write}, m AS (
          INSERT INTO ${s}.messages (tenant, owner, message_id, task_id, fingerprint) SELECT $1::text, u.owner, $12::text, $2::text, $13::text FROM u
        ) SELECT seq, owner FROM u`;
  const contextDialect = { prefix: `${s}.`, ...POSTGRES_CONTEXT_DIALECT };
  const contexts = contextStatements(contextDialect);
  return {
    get: { name: `a2a_get_${tag}`, text: `SELECT t.owner, t.task_json, t.version, t.seq, ${lagEventsSql(`${s}.events`, 't')} FROM ${s}.tasks t WHERE t.tenant = $1 AND t.id = $2` },
    create: { name: `a2a_create_${tag}`, text: `${create} SELECT count(*)::int AS n FROM t` },
    // Without ON CONFLICT: a recorded message id raises unique_violation and undoes the whole write.
    createClaim: {
      name: `a2a_create_claim_${tag}`,
      text: `${create}, m AS (
          INSERT INTO ${s}.messages (tenant, owner, message_id, task_id, fingerprint) SELECT $1::text, $11::text, $12::text, $2::text, $13::text FROM t
        ) SELECT count(*)::int AS n FROM t`,
    },
    append: { name: `a2a_append_${tag}`, text: `${append()} SELECT seq, owner FROM u` },
    appendClaim: { name: `a2a_append_claim_${tag}`, text: appendClaim(append()) },
    appendLeased: { name: `a2a_append_leased_${tag}`, text: `${append('$12')} SELECT seq, owner FROM u` },
    appendClaimLeased: { name: `a2a_append_claim_leased_${tag}`, text: appendClaim(append('$14')) },
    appendChunk: { name: `a2a_append_chunk_${tag}`, ...appendChunk(false) },
    appendChunkLeased: { name: `a2a_append_chunk_leased_${tag}`, ...appendChunk(true) },
    findMessage: {
      name: `a2a_find_message_${tag}`,
      // IDEM-02: per tenant and owner; a purged task takes its messages with it.
      text: `SELECT task_id, fingerprint FROM ${s}.messages WHERE tenant = $1 AND owner = $2 AND message_id = $3`,
    },
    events: {
      name: `a2a_events_${tag}`,
      text: `SELECT seq, event_json FROM ${s}.events WHERE tenant = $1 AND task_id = $2 AND seq > $3 ORDER BY seq`,
    },
    active: {
      name: `a2a_active_${tag}`,
      text: `SELECT tenant, id FROM ${s}.tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`,
    },
    purge: {
      name: `a2a_purge_${tag}`,
      text: `WITH victims AS (
          SELECT tenant, id, context_id FROM ${s}.tasks WHERE state IN (${terminal}) AND status_ts < $1
          LIMIT $2 FOR UPDATE SKIP LOCKED
        ), ctx AS (
          -- TENANT-06: their contexts stay owned (contextSql.ts); the CTEs share one snapshot, so
          -- the oldest task is read before any is deleted.
          ${keepContexts(contextDialect, { tenant: 'v.tenant', contextId: 'v.context_id', from: '(SELECT DISTINCT tenant, context_id FROM victims) v WHERE' })}
        ), ev AS (
          DELETE FROM ${s}.events e USING victims v WHERE e.tenant = v.tenant AND e.task_id = v.id
        ), msg AS (
          DELETE FROM ${s}.messages m USING victims v WHERE m.tenant = v.tenant AND m.task_id = v.id
        ), pd AS (
          DELETE FROM ${s}.push_deliveries d USING victims v WHERE d.tenant = v.tenant AND d.task_id = v.id
        ), pc AS (
          DELETE FROM ${s}.push_configs c USING victims v WHERE c.tenant = v.tenant AND c.task_id = v.id
        ), le AS (
          DELETE FROM ${s}.leases l USING victims v WHERE l.tenant = v.tenant AND l.task_id = v.id
        ), t AS (
          DELETE FROM ${s}.tasks t USING victims v WHERE t.tenant = v.tenant AND t.id = v.id RETURNING 1
        )
        SELECT count(*)::int AS n FROM t`,
    },
    /**
     * TENANT-06: claims the context (contextSql.ts) and returns its owner. No row when a racing
     * claim won the primary key after this statement's snapshot: then `contextOwner` reads it.
     */
    claimContext: {
      name: `a2a_claim_context_${tag}`,
      ...compilePg(`WITH claimed AS (${contexts.claim} RETURNING owner)
        SELECT owner FROM claimed UNION ALL ${contexts.owner}`),
    },
    contextOwner: { name: `a2a_context_owner_${tag}`, ...compilePg(contexts.owner) },
    forgetContexts: { name: `a2a_forget_contexts_${tag}`, ...compilePg(contexts.forget) },
  };
}

export type PgPushQueryName = PushStatementName | 'claim' | 'lockTask';

/**
 * The shared push statements, compiled to `$n`, plus the claim: the head-of-line rows are locked
 * with SKIP LOCKED, so instances claiming at once each take different rows (one never waits
 * for another), and stamped with the lock expiry in the same statement. `lockTask` serializes
 * the limited config puts of one task (putConfigIfRoom runs after it, in the same transaction).
 */
export function pushQueries(s: string, tag: string): Record<PgPushQueryName, PushQuery> {
  const sql: Record<PgPushQueryName, string> = {
    ...pushStatements(`${s}.`),
    claim: `WITH picked AS (
        ${pushStatements(`${s}.`).claimable} FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE ${s}.push_deliveries d SET locked_until = @until FROM picked p
        WHERE d.tenant = p.tenant AND d.task_id = p.task_id AND d.config_id = p.config_id AND d.seq = p.seq
        RETURNING p.*
      )
      SELECT * FROM claimed`,
    lockTask: `SELECT 1 FROM ${s}.tasks WHERE tenant = @tenant AND id = @taskId FOR NO KEY UPDATE`,
  };
  const out = {} as Record<PgPushQueryName, PushQuery>;
  for (const [name, text] of Object.entries(sql) as Array<[PgPushQueryName, string]>) {
    out[name] = { ...compilePg(text), name: `a2a_push_${name}_${tag}` };
  }
  return out;
}

export type LeaseQueryName = 'acquire' | 'renew' | 'release' | 'expired' | 'takeOver' | 'holds';

/**
 * The shared lease statements on the database clock, compiled to `$n`. `expired` carries the
 * clean-up of stale leases as a CTE: one round trip.
 */
export function leaseQueries(s: string, tag: string): Record<LeaseQueryName, PushQuery> {
  const sql = leaseStatements({ prefix: `${s}.`, ...POSTGRES_LEASE_DIALECT });
  const texts: Record<LeaseQueryName, string> = {
    acquire: sql.acquire,
    renew: sql.renew,
    release: sql.release,
    expired: `WITH stale AS (${sql.dropStale}) ${sql.expired}`,
    takeOver: sql.takeOver,
    holds: sql.holds,
  };
  const out = {} as Record<LeaseQueryName, PushQuery>;
  for (const [name, text] of Object.entries(texts) as Array<[LeaseQueryName, string]>) {
    out[name] = { ...compilePg(text), name: `a2a_lease_${name}_${tag}` };
  }
  return out;
}

/**
 * The list statements of one schema, built once per WHERE shape: the page and totalSize in one
 * statement (so from the same snapshot), a page-less row still carrying the total.
 */
export class ListQueries {
  private readonly texts = new Map<string, string>();

  /** `s`: the quoted schema. */
  constructor(private readonly s: string) {}

  build(tenant: string, filter: ListFilter, limit: number): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const { base, cursor } = listWhere(tenant, filter, (value) => `$${values.push(value)}`);
    const l = values.push(limit + 1);
    const key = `${base}|${cursor}|${l}`;
    let text = this.texts.get(key);
    if (!text) {
      const s = this.s;
      text = `WITH page AS (
          SELECT tenant, id, owner, status_ts, task_json, version, seq, snapshot_lag FROM ${s}.tasks
          WHERE ${base}${cursor} ORDER BY status_ts DESC, id DESC LIMIT $${l}
        )
        SELECT (SELECT count(*) FROM ${s}.tasks WHERE ${base}) AS total, page.tenant, page.owner, page.task_json, page.version, page.seq,
          ${lagEventsSql(`${s}.events`, 'page')}
        FROM (SELECT 1) AS one LEFT JOIN page ON true
        ORDER BY page.status_ts DESC, page.id DESC`;
      this.texts.set(key, text);
    }
    return { text, values };
  }
}

/** Prepared statement names are per connection: one set per schema, in 63 bytes. */
export function nameTag(schema: string): string {
  let h = 0x811c9dc5;
  for (const ch of schema) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}
