/**
 * The servers of a SQLite file (sqliteStore.ts): each process serving it has a row in the
 * `instances` table while it is open, so a starting server can tell whether another one may be
 * executing tasks.
 */
import { hostname } from 'node:os';
import type { Database as Db } from 'better-sqlite3';

/**
 * Records this process as a server of the file and returns the other live ones on this host
 * (rows of processes that died, by kill -9 say, and rows of other hosts are removed). The R2 sweep must not run while
 * another server may be executing tasks: `openStore().recover()` skips it then.
 */
export function registerInstance(db: Db): Array<{ host: string; pid: number; startedAt: string }> {
  const host = hostname();
  return db.transaction(() => {
    const rows = db.prepare<[], { host: string; pid: number; started_at: string }>('SELECT host, pid, started_at FROM instances').all();
    const live: Array<{ host: string; pid: number; startedAt: string }> = [];
    for (const r of rows) {
      if (r.host === host && r.pid === process.pid) continue;
      // A file is served from one host (SQLite over a network filesystem is unsupported), so a
      // row from another host is a previous life of this one — a container restarted under a
      // new hostname, say — as is a row whose process is gone.
      if (r.host !== host || !processAlive(r.pid)) {
        db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(r.host, r.pid);
        continue;
      }
      live.push({ host: r.host, pid: r.pid, startedAt: r.started_at });
    }
    db.prepare('INSERT OR REPLACE INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run(host, process.pid, new Date().toISOString());
    return live;
  }).immediate();
}

/** Removes this process's row (on close). */
export function unregisterInstance(db: Db): void {
  db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(hostname(), process.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
