/**
 * The integrity check `a2a serve` makes when it opens a SQLite file (openStore, { serve: true }),
 * so a corrupt file is refused at start with one clear line instead of failing requests one by
 * one with internal errors. `PRAGMA quick_check` reads the whole file: measured ~0.4 s for
 * 100,000 tasks (195 MB) on the development machine, so it runs on files up to 1 GiB (about
 * 2 s); a larger file is only refused when its first queries (migrations, registration) fail.
 */
import { statSync } from 'node:fs';

/** Files up to this size get a full `PRAGMA quick_check` at start. */
export const QUICK_CHECK_MAX_BYTES = 1024 ** 3;

export class CorruptDatabaseError extends Error {
  constructor(
    readonly path: string,
    readonly problems: string,
  ) {
    super(`the database file is corrupt (quick_check: ${problems.split('\n')[0] ?? problems}); restore it from a backup`);
  }
}

/** Runs `quickCheck` when the file is small enough (see above); throws CorruptDatabaseError unless it says ok. */
export function checkAtStart(store: { quickCheck(): string }, path: string): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    return; // ':memory:' or not created on disk yet
  }
  if (size > QUICK_CHECK_MAX_BYTES) return;
  let problems: string;
  try {
    problems = store.quickCheck();
  } catch (error) {
    problems = error instanceof Error ? error.message : String(error);
  }
  if (problems !== 'ok') throw new CorruptDatabaseError(path, problems);
}
