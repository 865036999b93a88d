/**
 * Execution ownership across instances (issue 7, R2 for several instances). While this instance
 * runs a task's agent it holds the task's lease and renews all its leases every ttl/3; a sweep
 * every ttl/2 looks for leases that expired on tasks still SUBMITTED or WORKING — their instance
 * died — takes them over (compare-and-set, so one instance wins) and hands them to `takeOver`.
 * On shutdown renewal stops and leases still held are expired at once, so another instance takes
 * their tasks over without waiting for the TTL (R24).
 *
 * R3 (one executor per task at a time): a held lease that a renewal did not extend (another
 * instance took it over: this one was paused, say) or whose last successful renewal is a TTL
 * old (the database unreachable) is lost — `hooks.lost` aborts its run, and `holds()` turns
 * false, which the run's writes check before each write (RunUpdater.fence).
 */
import { LeaseLostError, type Lease, type LeaseStore } from './stores/leaseStore.js';

export { LeaseLostError };
import { splitTaskKey, taskKey as key } from './taskKey.js';

/** The lease lifetime without renewal when none is configured. */
export const DEFAULT_LEASE_TTL_MS = 15_000;

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
  /** A lease this instance held is gone (not renewed in time, or taken over): stop its run. */
  lost?: ((tenant: string, taskId: string, error: LeaseLostError) => void) | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

/** What this instance knows of a lease it holds (times from Date.now()). */
interface Held {
  /** Expiry as far as this instance can tell: when the last successful take or renewal was sent, plus the TTL. */
  validUntil: number;
  /** When the store confirmed it: a renewal sent before then may not include it. */
  confirmedAt: number;
}

export class LeaseHeldError extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} is being processed by another instance`);
  }
}

export class LeaseKeeper {
  readonly owner: string;
  readonly ttlMs: number;
  private readonly held = new Map<string, Held>();
  private renewTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private renewing = false;
  private stopped = false;

  constructor(
    private readonly options: LeaseOptions,
    private readonly hooks: LeaseHooks,
  ) {
    this.owner = options.owner ?? crypto.randomUUID();
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
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
      const sentAt = Date.now();
      if (await this.options.store.acquireLease({ tenant, taskId, owner: this.owner, ttlMs: this.ttlMs })) {
        this.hold(key(tenant, taskId), sentAt);
        return;
      }
      if (Date.now() + delay > deadline) throw new LeaseHeldError(taskId);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Marks a lease won by takeover (the takeover sent at `sentAt`) as held (renewed from now on). */
  adopt(tenant: string, taskId: string, sentAt = Date.now()): void {
    this.hold(key(tenant, taskId), sentAt);
  }

  private hold(k: string, sentAt: number): void {
    this.held.set(k, { validUntil: sentAt + this.ttlMs, confirmedAt: Date.now() });
  }

  /** Whether this instance still holds the task's lease: taken or renewed less than a TTL ago, and not lost. */
  holds(tenant: string, taskId: string): boolean {
    const held = this.held.get(key(tenant, taskId));
    return held !== undefined && Date.now() < held.validUntil;
  }

  /**
   * Until when this instance may act on the task's lease (Date.now() ms; 0 when it holds none):
   * the last successful take or renewal plus the TTL. A write of its run may be retried until
   * then (storePatience.ts), not after: by then another instance may have taken the task over.
   */
  deadline(tenant: string, taskId: string): number {
    return this.held.get(key(tenant, taskId))?.validUntil ?? 0;
  }

  /**
   * Gives the lease back. A lease that was lost is left alone: it is another instance's now, or
   * expired and waiting for a sweep to take its task over (deleting it would hide the task from
   * the sweeps).
   */
  async release(tenant: string, taskId: string): Promise<void> {
    if (!this.held.delete(key(tenant, taskId))) return;
    await this.options.store.releaseLease(tenant, taskId, this.owner);
  }

  /** Stops renewing and expires the leases still held, so other instances take their tasks over now. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    const held = [...this.held.keys()];
    this.held.clear();
    await Promise.allSettled(
      held.map((k) => {
        const { tenant, id: taskId } = splitTaskKey(k);
        return this.options.store.acquireLease({ tenant, taskId, owner: this.owner, ttlMs: 0 });
      }),
    );
  }

  /**
   * Extends the held leases. One the store did not extend is lost (it expired or another
   * instance has it); when the store cannot be reached, leases are lost once their last
   * renewal is a TTL old — by then another instance may have taken them over.
   */
  private async renew(): Promise<void> {
    this.loseOverdue();
    if (this.held.size === 0 || this.renewing) return;
    this.renewing = true;
    const sentAt = Date.now();
    try {
      const renewed = new Set((await this.options.store.renewLeases(this.owner, this.ttlMs)).map((l) => key(l.tenant, l.taskId)));
      for (const [k, held] of this.held) {
        if (renewed.has(k)) held.validUntil = Math.max(held.validUntil, sentAt + this.ttlMs);
        // Taken after the renewal was sent: it may not have seen it.
        else if (held.confirmedAt < sentAt) this.lose(k, 'the store no longer had it: it expired, and may have been taken over by another instance');
      }
    } catch (error) {
      this.hooks.onError?.(error);
    } finally {
      this.renewing = false;
    }
    this.loseOverdue();
  }

  private loseOverdue(): void {
    const now = Date.now();
    for (const [k, held] of this.held) if (now >= held.validUntil) this.lose(k, `no renewal succeeded for ${this.ttlMs} ms`);
  }

  private lose(k: string, why: string): void {
    if (!this.held.delete(k)) return;
    const { tenant, id: taskId } = splitTaskKey(k);
    this.hooks.lost?.(tenant, taskId, new LeaseLostError(taskId, why));
  }

  /**
   * Takes over tasks whose instance stopped renewing: batches of SWEEP_BATCH candidates, again
   * while a batch comes back full, within a time budget per tick (a quarter of the TTL), so a
   * dead instance's thousand tasks move on in one or two sweeps instead of 16 per sweep.
   */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    this.loseOverdue();
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
    // Our own lease expired (this process was paused, say): its run is over before anyone takes the task on.
    if (lease.owner === this.owner) this.lose(key(lease.tenant, lease.taskId), 'it expired before this instance renewed it');
    const sentAt = Date.now();
    const won = await this.options.store.takeOverLease({
      tenant: lease.tenant,
      taskId: lease.taskId,
      owner: this.owner,
      ttlMs: this.ttlMs,
      previousOwner: lease.owner,
    });
    if (!won) return;
    this.adopt(lease.tenant, lease.taskId, sentAt);
    void this.hooks.takeOver(lease).catch((error: unknown) => this.hooks.onError?.(error));
  }
}

