/**
 * Execution leases (issue 7, R2 for several instances): while an instance runs a task's agent it
 * holds the task's lease and renews it; when the instance dies the lease expires and another
 * instance takes the task over (re-runs a resumable agent, or fails the task with a reason).
 * Expiry is judged by the store's clock (PostgreSQL: `now()` of the database), so instances with
 * skewed clocks agree. A lease may exist before its task does (it is taken before the task is
 * created); such leases are simply released or expire.
 */

export interface Lease {
  tenant: string;
  taskId: string;
  owner: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** Which task a lease is for. */
export interface LeaseKey {
  tenant: string;
  taskId: string;
}

export interface AcquireLease {
  tenant: string;
  taskId: string;
  /** The instance taking it (a stable id per process). */
  owner: string;
  ttlMs: number;
}

/** The abort reason of a run whose lease was lost, and the error of its writes after that. */
export class LeaseLostError extends Error {
  constructor(
    readonly taskId: string,
    why: string,
  ) {
    super(`the execution lease of task ${taskId} was lost (${why}); this instance stopped running it and writes nothing more to it`);
  }
}

/** What a store throws for a write whose AppendInput.leaseOwner no longer holds the lease (R3). */
export function leaseFenceError(taskId: string): LeaseLostError {
  return new LeaseLostError(taskId, 'the store refused the write: the lease expired or another instance holds it');
}

export interface LeaseStore {
  /** Takes the lease when there is none, it expired, or `owner` already holds it; false when another owner holds a live one. */
  acquireLease(input: AcquireLease): Promise<boolean>;
  /**
   * Extends every live (unexpired) lease of `owner` by ttlMs from now; returns the leases it
   * extended. Expired ones are not revived: a held lease missing from the answer is lost.
   */
  renewLeases(owner: string, ttlMs: number): Promise<LeaseKey[]>;
  /** Drops the lease if `owner` holds it (expired or not). */
  releaseLease(tenant: string, taskId: string, owner: string): Promise<void>;
  /**
   * Expired leases whose task exists and is SUBMITTED or WORKING (the takeover candidates),
   * oldest expiry first. Expired leases of missing or settled tasks are deleted on the way.
   */
  expiredLeases(limit: number): Promise<Lease[]>;
  /** Compare-and-set takeover: succeeds only if the lease is still held by `previousOwner` and expired. */
  takeOverLease(input: AcquireLease & { previousOwner: string }): Promise<boolean>;
}

export function isLeaseStore(store: object): store is LeaseStore {
  return typeof (store as Partial<LeaseStore>).acquireLease === 'function';
}
