/**
 * Where agent runs happen: one run per task at a time (a follow-up waits for the previous run),
 * cancel handles per task, graceful drain, and — when instances share the store — the execution
 * lease around each run, a cancel written by another instance aborting the run here, and takeover
 * of tasks whose instance died.
 *
 * R24, runs queued behind a task's running run when shutdown begins: one whose message is not
 * recorded yet (a blocking follow-up) is refused at once with UNAVAILABLE, so its caller sends it
 * again elsewhere; one already recorded and answered is owed, and runs when its turn comes while
 * the drain lasts. At the deadline no queued run is started any more (never with an aborted
 * signal): those left are handed to `onCutOff` with their task, and so are the runs aborted then,
 * whose callers `onCutOff` answers too (also those of runs that returned at once on the abort).
 */
import type { EventBus } from './eventBus.js';
import type { Execution } from './execution.js';
import type { LazyAbort } from './lazyAbort.js';
import { LeaseKeeper, LeaseLostError, type LeaseOptions } from './leases.js';
import { serverShuttingDown } from './shuttingDown.js';
import type { Lease } from './stores/leaseStore.js';
import { taskKey as keyOf } from './taskKey.js';

/** A run of the task's queue. */
interface Queued extends Scheduled {
  /** Its turn came and it was started. */
  started: boolean;
  /** Shutdown took it off the queue before its turn: it is never started. */
  withdrawn: boolean;
  /** Resolves what schedule() returned: called when it ran (or was skipped). */
  ran: () => void;
}

/** The runs of one task: the running one and those queued behind it. */
interface Running {
  tenant: string;
  taskId: string;
  /** The runs not finished yet, in queue order (the first is running, or about to). */
  runs: Queued[];
  /** Settles when the queue is empty (its last run has finished). */
  done: Promise<unknown>;
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
  /**
   * Its runs aborted at the deadline, whether they ended within the grace or not: their callers
   * still wait, to be answered with the task as shutdown leaves it (Execution.cutShort).
   */
  aborted: Execution[];
  /** Its queued runs whose turn had not come by the deadline: never started (their messages are recorded). */
  withdrawn: Execution[];
}

export interface DrainOptions {
  /** How long running executions may take before they are aborted. */
  timeoutMs: number;
  /** Then how long they get to end (default SHUTDOWN_GRACE_MS). */
  graceMs?: number;
  /** The tasks whose runs were aborted, before leases are handed over; it answers their callers. */
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

  /** Tasks with a run in progress here (each runs one at a time; queued runs wait behind it). */
  get activeRuns(): number {
    return this.running.size;
  }

  /**
   * Queues `execution` behind the task's current run; `abort` cancels it. Resolves when it ran.
   * A run whose message is already in the history (a follow-up answered at once) goes ahead of
   * the blocking follow-ups still waiting, whose messages join the history only when their turn
   * comes: so the agent takes the messages in the order the history has them.
   */
  schedule(target: Scheduled): Promise<void> {
    const key = keyOf(target.tenant, target.taskId);
    const entry = this.running.get(key);
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    const queued: Queued = { tenant: target.tenant, taskId: target.taskId, execution: target.execution, abort: target.abort, started: false, withdrawn: false, ran };
    if (!entry) {
      // Nothing runs on this task: start now.
      const fresh: Running = { tenant: target.tenant, taskId: target.taskId, runs: [queued], done: DONE };
      this.running.set(key, fresh);
      fresh.done = this.pump(fresh, key);
      return done;
    }
    // Shutting down: a message not recorded yet does not wait for a turn that may never come.
    if (this.shuttingDown && !target.execution.recorded) {
      target.execution.refuse(serverShuttingDown(target.taskId));
      return DONE as Promise<void>;
    }
    const behind = target.execution.recorded ? entry.runs.findIndex((q) => !q.started && !q.execution.recorded) : -1;
    if (behind < 0) entry.runs.push(queued);
    else entry.runs.splice(behind, 0, queued);
    return done;
  }

  /** Runs the task's queue in order, skipping what shutdown withdrew; the entry goes when the queue is empty. */
  private async pump(entry: Running, key: string): Promise<void> {
    for (let queued = entry.runs[0]; queued; queued = entry.runs[0]) {
      if (!queued.withdrawn) {
        queued.started = true;
        await this.run(queued).catch((error: unknown) => this.options.onError?.(error));
      }
      entry.runs.shift();
      queued.ran();
    }
    this.running.delete(key);
  }

  /**
   * Takes the task's runs that have not started off its queue: those whose message is not
   * recorded (`all` false: only those) are refused with UNAVAILABLE; the others are returned.
   */
  private withdraw(entry: Running, all: boolean): Execution[] {
    const owed: Execution[] = [];
    for (const queued of entry.runs) {
      if (queued.started || queued.withdrawn || (!all && queued.execution.recorded)) continue;
      queued.withdrawn = true;
      if (queued.execution.recorded) owed.push(queued.execution);
      else queued.execution.refuse(serverShuttingDown(entry.taskId));
    }
    return owed;
  }

  /**
   * The shutdown deadline for the task: its queued runs are withdrawn and its started ones
   * aborted. MSG-01: an aborted run that returns at once does not answer its blocking caller with
   * the task unfinished (WORKING); `onCutOff` answers it with the task as shutdown leaves it.
   */
  private cutShort(entry: Running): CutOffTask {
    const withdrawn = this.withdraw(entry, true);
    const started = entry.runs.filter((q) => q.started);
    for (const queued of started) {
      queued.execution.cutShort();
      queued.abort.abort();
    }
    return { tenant: entry.tenant, taskId: entry.taskId, aborted: started.map((q) => q.execution), withdrawn };
  }

  /** Resolves when the task's queued runs have finished (immediately when none). */
  async idle(tenant: string, taskId: string): Promise<void> {
    await this.running.get(keyOf(tenant, taskId))?.done;
  }

  /** Stops the task's current and queued runs (their writes after a cancel are dropped anyway). */
  abort(tenant: string, taskId: string): void {
    for (const queued of this.running.get(keyOf(tenant, taskId))?.runs ?? []) queued.abort.abort();
  }

  /**
   * Waits for running executions (and the recorded runs queued behind them); at `timeoutMs`
   * aborts those still going, starts no queued run any more, and gives the aborted ones
   * `graceMs` more to end, then stops waiting for them (an agent may ignore its signal) and hands
   * the tasks cut short to `onCutOff`, which answers their callers; then expires the leases of runs cut short (R24). Queued
   * runs whose message is not recorded are refused at once (UNAVAILABLE).
   */
  async drain(options: DrainOptions): Promise<void> {
    this.shuttingDown = true;
    for (const r of this.running.values()) this.withdraw(r, false);
    const all = this.allIdle();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<CutOffTask[]>((resolve) => {
      timer = setTimeout(() => resolve([...this.running.values()].map((entry) => this.cutShort(entry))), options.timeoutMs);
    });
    const cut = await Promise.race([all.then(() => undefined), deadline]);
    clearTimeout(timer);
    if (cut) {
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([all, new Promise((resolve) => (grace = setTimeout(resolve, options.graceMs ?? SHUTDOWN_GRACE_MS)))]);
      clearTimeout(grace);
      await options.onCutOff?.(cut).catch((error: unknown) => this.options.onError?.(error));
    }
    // Leases of runs cut short expire now: another instance takes those tasks over.
    await this.leases?.stop();
  }

  /** Resolves when no run is left, counting the recorded follow-ups queued while it waits. */
  private async allIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((r) => r.done));
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
    execution.fence({
      check: () => {
        if (!leases.holds(tenant, taskId)) throw new LeaseLostError(taskId, 'this instance no longer holds it');
      },
      owner: leases.owner,
      deadline: () => leases.deadline(tenant, taskId),
    });
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

