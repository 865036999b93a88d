/**
 * The lease half of the SQL stores as LeaseStore methods, written once for SQLite and
 * PostgreSQL over the statements of leaseSql.ts. A store supplies how a write runs, the clock
 * parameters of its dialect, and the takeover candidates (two statements on SQLite, one with
 * the clean-up as a CTE on PostgreSQL).
 */
import type { AcquireLease, Lease, LeaseKey, LeaseStore } from '../../server/stores/leaseStore.js';
import { leaseTtl, toLease, type LeaseRow, type LeaseStatementName } from './leaseSql.js';
import { rowLimit } from './pushSql.js';

/** The lease statements that change rows. */
export type LeaseWriteName = Exclude<LeaseStatementName, 'dropStale' | 'expired' | 'renew' | 'holds'>;

/** What an engine supplies to the leases. */
export interface LeaseEngine {
  /** Runs one lease write with its `@name` parameters; the number of rows it changed. */
  run(name: LeaseWriteName, params: Record<string, unknown>): Promise<number>;
  /** Runs the renewal with its `@name` parameters; the keys of the leases it extended. */
  renew(params: Record<string, unknown>): Promise<Array<{ tenant: string; task_id: string }>>;
  /** The clock parameters of a lease taken or renewed now for `ttlMs` (already validated). */
  clock(ttlMs: number): Record<string, number>;
  /** Drops the stale leases and returns the takeover candidates, oldest expiry first, at most `limit`. */
  expired(limit: number): Promise<LeaseRow[]>;
}

export class SqlLeases implements LeaseStore {
  constructor(private readonly engine: LeaseEngine) {}

  async acquireLease(input: AcquireLease): Promise<boolean> {
    const { tenant, taskId, owner } = input;
    return (await this.engine.run('acquire', { tenant, taskId, owner, ...this.engine.clock(leaseTtl(input.ttlMs)) })) > 0;
  }

  async renewLeases(owner: string, ttlMs: number): Promise<LeaseKey[]> {
    const rows = await this.engine.renew({ owner, ...this.engine.clock(leaseTtl(ttlMs)) });
    return rows.map((r) => ({ tenant: r.tenant, taskId: r.task_id }));
  }

  async releaseLease(tenant: string, taskId: string, owner: string): Promise<void> {
    await this.engine.run('release', { tenant, taskId, owner });
  }

  async expiredLeases(limit: number): Promise<Lease[]> {
    return (await this.engine.expired(rowLimit(limit, 'limit'))).map(toLease);
  }

  async takeOverLease(input: AcquireLease & { previousOwner: string }): Promise<boolean> {
    const { tenant, taskId, owner, previousOwner } = input;
    return (await this.engine.run('takeOver', { tenant, taskId, owner, previousOwner, ...this.engine.clock(leaseTtl(input.ttlMs)) })) > 0;
  }
}
