/**
 * Group commit for SQLite: writes issued in the same turn of the event loop run in one IMMEDIATE
 * transaction, each inside its own savepoint (a nested better-sqlite3 transaction), so one write's
 * failure (a version conflict, a duplicate message) rolls back only that write. Every promise
 * settles after the shared COMMIT — nothing is acknowledged before it is durable — and a failed
 * COMMIT fails every write of the group (none of them happened), and so does a write failing
 * for lack of room or an I/O error (SQLite then rolls back the whole transaction, not only
 * the write's savepoint). Under concurrency this writes
 * the pages shared by many tasks (index leaves, the end of the event log) once per group instead
 * of once per write. A group that cannot take the write lock within busy_timeout (another
 * process holds it), or that the file cannot take (a full disk, an I/O error), fails with
 * StoreUnavailableError (sqliteFailures.ts): nothing was written, and the bindings answer a
 * retryable UNAVAILABLE (R19), which a run's writes retry (R2).
 */
import type { Database } from 'better-sqlite3';
import { storeFailure } from './sqliteFailures.js';

interface Job {
  run(): void;
  settle(): void;
  fail(error: unknown): void;
}

export class GroupCommit {
  private jobs: Job[] = [];
  private scheduled = false;
  private readonly commitGroup: (jobs: Job[]) => void;

  constructor(private readonly db: Database) {
    this.commitGroup = db
      .transaction((jobs: Job[]) => {
        for (const job of jobs) job.run();
      })
      .immediate.bind(null);
  }

  /** Runs `fn` (itself a better-sqlite3 transaction function) in the next group; resolves after COMMIT. */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
      this.jobs.push({
        run: () => {
          try {
            outcome = { ok: true, value: fn() };
          } catch (error) {
            outcome = { ok: false, error };
            // SQLite rolled the whole transaction back (SQLITE_FULL, an I/O error, ...): the group fails as one.
            if (storeFailure(this.db, error) !== error) throw error;
          }
        },
        settle: () => {
          if (outcome?.ok) resolve(outcome.value);
          else reject(outcome?.error ?? new Error('write did not run'));
        },
        fail: reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const jobs = this.jobs;
    this.jobs = [];
    try {
      this.commitGroup(jobs);
    } catch (error) {
      const failure = storeFailure(this.db, error);
      for (const job of jobs) job.fail(failure);
      return;
    }
    for (const job of jobs) job.settle();
  }
}
