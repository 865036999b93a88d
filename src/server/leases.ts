/**
 * Execution ownership across instances (issue 7, R2 for several instances). While this instance
 * runs a task's agent it holds the task's lease and renews all its leases every ttl/3; a sweep
 * every ttl/2 looks for leases that expired on tasks still SUBMITTED or WORKING — their instance
 * died — takes them over (compare-and-set, so one instance wins) and hands them to `takeOver`.
 * On shutdown renewal stops and leases still held are expired at once, so another instance takes
 * their tasks over without waiting for the TTL (R24).
 */
import type { Lease, LeaseStore } from './stores/leaseStore.js';
import { splitTaskKey, taskKey as key } from './taskKey.js';

/** Takeover candidates read per query; the sweep reads more batches while they come back full. */
export const SWEEP_BATCH = 16;

export interface LeaseOptions {
  store: LeaseStore;
  /** This instance's id (default: a random UUID per process). */
  owner?: string;
  /** Lease lifetime without renewal (default 15 s). A dead instance's tasks move on after about this long. */
  ttlMs?: number;
  /** How long a run waits for a lease another live instance holds (default 60 s). */
  acquireTimeoutMs?: number;
}

export interface LeaseHooks {
  /** A task whose instance died, now leased to this one. */
  takeOver: (lease: Lease) => Promise<void>;
  onError?: ((error: unknown) => void) | undefined;
}

export class LeaseHeldError extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} is being processed by another instance`);
  }
}

export class LeaseKeeper {
  readonly owner: string;
  readonly ttlMs: number;
  private readonly held = new Set<string>();
  private renewTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private stopped = false;

  constructor(
    private readonly options: LeaseOptions,
    private readonly hooks: LeaseHooks,
  ) {
    this.owner = options.owner ?? crypto.randomUUID();
    this.ttlMs = options.ttlMs ?? 15_000;
  }

  start(): void {
    this.renewTimer = setInterval(() => void this.renew(), Math.max(10, Math.floor(this.ttlMs / 3)));
    this.renewTimer.unref?.();
    this.sweepTimer = setInterval(() => void this.sweep(), Math.max(10, Math.floor(this.ttlMs / 2)));
    this.sweepTimer.unref?.();
  }

  /** Waits until this instance holds the task's lease (another live holder: polls until it is free or expired). */
  async acquire(tenant: string, taskId: string): Promise<void> {
    const deadline = Date.now() + (this.options.acquireTimeoutMs ?? 60_000);
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      if (await this.options.store.acquireLease({ tenant, taskId, owner: this.owner, ttlMs: this.ttlMs })) {
        this.held.add(key(tenant, taskId));
        return;
      }
      if (Date.now() + delay > deadline) throw new LeaseHeldError(taskId);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Marks a lease won by takeover as held (renewed from now on). */
  adopt(tenant: string, taskId: string): void {
    this.held.add(key(tenant, taskId));
  }

  async release(tenant: string, taskId: string): Promise<void> {
    this.held.delete(key(tenant, taskId));
    await this.options.store.releaseLease(tenant, taskId, this.owner);
  }

  /** Stops renewing and expires the leases still held, so other instances take their tasks over now. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    const held = [...this.held];
    this.held.clear();
    await Promise.allSettled(
      held.map((k) => {
        const { tenant, id: taskId } = splitTaskKey(k);
        return this.options.store.acquireLease({ tenant, taskId, owner: this.owner, ttlMs: 0 });
      }),
    );
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.options.store.renewLeases(this.owner, this.ttlMs);
    } catch (error) {
      this.hooks.onError?.(error);
    }
  }

  /**
   * Takes over tasks whose instance stopped renewing: batches of SWEEP_BATCH candidates, again
   * while a batch comes back full, within a time budget per tick (a quarter of the TTL), so a
   * dead instance's thousand tasks move on in one or two sweeps instead of 16 per sweep.
   */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    try {
      const budgetEnds = Date.now() + Math.max(50, this.ttlMs / 4);
      for (;;) {
        const batch = await this.options.store.expiredLeases(SWEEP_BATCH);
        for (const lease of batch) await this.takeOver(lease);
        if (batch.length < SWEEP_BATCH || this.stopped || Date.now() >= budgetEnds) break;
      }
    } catch (error) {
      this.hooks.onError?.(error);
    } finally {
      this.sweeping = false;
    }
  }

  private async takeOver(lease: Lease): Promise<void> {
    const won = await this.options.store.takeOverLease({
      tenant: lease.tenant,
      taskId: lease.taskId,
      owner: this.owner,
      ttlMs: this.ttlMs,
      previousOwner: lease.owner,
    });
    if (!won) return;
    this.adopt(lease.tenant, lease.taskId);
    void this.hooks.takeOver(lease).catch((error: unknown) => this.hooks.onError?.(error));
  }
}

