/**
 * Where agent runs happen: one run per task at a time (a follow-up waits for the previous run),
 * cancel handles per task, graceful drain, and — when instances share the store — the execution
 * lease around each run, a cancel written by another instance aborting the run here, and takeover
 * of tasks whose instance died.
 */
import type { EventBus } from './eventBus.js';
import type { Execution } from './execution.js';
import type { LazyAbort } from './lazyAbort.js';
import { LeaseKeeper, LeaseLostError, type LeaseOptions } from './leases.js';
import type { Lease } from './stores/leaseStore.js';
import { taskKey as keyOf } from './taskKey.js';

/** The runs of one task: the running one and those queued behind it. */
interface Running {
  tenant: string;
  taskId: string;
  /** The runs' executions, in queue order, and the handles that abort them. */
  executions: Execution[];
  aborts: LazyAbort[];
  /** Settles when the last queued run has finished. */
  done: Promise<unknown>;
  queued: number;
}

export interface TaskRunnerOptions {
  bus: EventBus;
  leases?: LeaseOptions | undefined;
  /** A task whose instance died, leased to this instance now. */
  takeOver: (lease: Lease) => Promise<void>;
  onError?: ((error: unknown) => void) | undefined;
}

/** A run to schedule: the execution on its task, and the handle that aborts it. */
interface Scheduled {
  tenant: string;
  taskId: string;
  execution: Execution;
  abort: LazyAbort;
}

const DONE: Promise<unknown> = Promise.resolve();

/**
 * How long shutdown waits, after aborting the runs still going at its deadline, for them to
 * notice ctx.signal and end; an agent that ignores it is given up on after this.
 */
export const SHUTDOWN_GRACE_MS = 1_000;

/** A task whose runs were aborted at the shutdown deadline. */
export interface CutOffTask {
  tenant: string;
  taskId: string;
  /** Its runs that had not ended by the grace deadline (their callers still wait). */
  hanging: Execution[];
}

export interface DrainOptions {
  /** How long running executions may take before they are aborted. */
  timeoutMs: number;
  /** Then how long they get to end (default SHUTDOWN_GRACE_MS). */
  graceMs?: number;
  /** The tasks whose runs were aborted, before leases are handed over. */
  onCutOff?: (tasks: CutOffTask[]) => Promise<void>;
}

export class TaskRunner {
  readonly leases: LeaseKeeper | undefined;
  private readonly running = new Map<string, Running>();
  /** The abort of the run holding each task's lease on this instance. */
  private readonly leased = new Map<string, LazyAbort>();
  private shuttingDown = false;

  constructor(private readonly options: TaskRunnerOptions) {
    this.leases = options.leases
      ? new LeaseKeeper(options.leases, {
          takeOver: options.takeOver,
          // R3: a run whose lease is lost stops, so that two instances never run one task at once.
          lost: (tenant, taskId, error) => {
            options.onError?.(error);
            this.leased.get(keyOf(tenant, taskId))?.abort(error);
          },
          onError: options.onError,
        })
      : undefined;
    this.leases?.start();
  }

  /** Queues `execution` behind the task's current run; `abort` cancels it. Resolves when it ran. */
  schedule(target: Scheduled): Promise<unknown> {
    const key = keyOf(target.tenant, target.taskId);
    const entry = this.running.get(key);
    if (!entry) {
      // Nothing runs on this task: start now (the common case, without a queue to chain on).
      const fresh: Running = { tenant: target.tenant, taskId: target.taskId, executions: [target.execution], aborts: [target.abort], done: DONE, queued: 1 };
      this.running.set(key, fresh);
      fresh.done = this.runQueued(target, fresh, key);
      return fresh.done;
    }
    entry.executions.push(target.execution);
    entry.aborts.push(target.abort);
    entry.queued++;
    const next = () => this.runQueued(target, entry, key);
    entry.done = entry.done.then(next, next);
    return entry.done;
  }

  /** One queued run; the task's entry goes when its last queued run has finished. */
  private async runQueued(target: Scheduled, entry: Running, key: string): Promise<void> {
    try {
      await this.run(target);
    } finally {
      const at = entry.aborts.indexOf(target.abort);
      if (at >= 0) {
        entry.aborts.splice(at, 1);
        entry.executions.splice(at, 1);
      }
      if (--entry.queued === 0) this.running.delete(key);
    }
  }

  /** Resolves when the task's queued runs have finished (immediately when none). */
  async idle(tenant: string, taskId: string): Promise<void> {
    await this.running.get(keyOf(tenant, taskId))?.done;
  }

  /** Stops the task's current and queued runs (their writes after a cancel are dropped anyway). */
  abort(tenant: string, taskId: string): void {
    for (const abort of this.running.get(keyOf(tenant, taskId))?.aborts ?? []) abort.abort();
  }

  /**
   * Waits for running executions; at `timeoutMs` aborts those still going and gives them
   * `graceMs` more to end, then stops waiting for them (an agent may ignore its signal) and hands
   * the aborted tasks to `onCutOff`; then expires the leases of runs cut short (R24).
   */
  async drain(options: DrainOptions): Promise<void> {
    this.shuttingDown = true;
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<Running[]>((resolve) => {
      timer = setTimeout(() => {
        const aborted = [...this.running.values()];
        for (const r of aborted) for (const abort of r.aborts) abort.abort();
        resolve(aborted);
      }, options.timeoutMs);
    });
    const aborted = await Promise.race([all.then(() => undefined), deadline]);
    clearTimeout(timer);
    if (aborted) {
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([all, new Promise((resolve) => (grace = setTimeout(resolve, options.graceMs ?? SHUTDOWN_GRACE_MS)))]);
      clearTimeout(grace);
      const cut = aborted.map((r) => ({ tenant: r.tenant, taskId: r.taskId, hanging: [...r.executions] }));
      await options.onCutOff?.(cut).catch((error: unknown) => this.options.onError?.(error));
    }
    // Leases of runs cut short expire now: another instance takes those tasks over.
    await this.leases?.stop();
  }

  /**
   * Runs the agent, holding the task's lease when instances share the store: it waits for a run
   * on another instance to finish, and a cancel written elsewhere aborts it here.
   */
  private async run(target: Scheduled): Promise<void> {
    const { tenant, taskId, execution } = target;
    const leases = this.leases;
    if (!leases) return execution.run();
    try {
      await leases.acquire(tenant, taskId);
    } catch (error) {
      execution.refuse(error);
      return;
    }
    const stop = this.options.bus.subscribe(tenant, taskId, (events) => {
      if (events.some((e) => 'statusUpdate' in e.event && e.event.statusUpdate.status.state === 'TASK_STATE_CANCELED')) target.abort.abort();
    });
    const key = keyOf(tenant, taskId);
    this.leased.set(key, target.abort);
    // Every write of the run first checks that the lease is still ours.
    execution.fence(() => {
      if (!leases.holds(tenant, taskId)) throw new LeaseLostError(taskId, 'this instance no longer holds it');
    }, leases.owner);
    try {
      await execution.run();
    } finally {
      stop();
      if (this.leased.get(key) === target.abort) this.leased.delete(key);
      // On shutdown the lease is kept, and expired by leases.stop(), so another instance takes over.
      if (!this.shuttingDown) await leases.release(tenant, taskId).catch((error: unknown) => this.options.onError?.(error));
    }
  }
}

