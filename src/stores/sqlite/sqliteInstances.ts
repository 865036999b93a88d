/**
 * The server of a SQLite file (sqliteStore.ts). A SQLite file is served by one `a2a serve` at a
 * time (several instances need PostgreSQL): the server has a row in the `instances` table while
 * it is open, and a second server finds it and is refused (openStore, { serve: true }).
 * Readers and maintenance commands (`a2a db`, `a2a get` …) open the file without a row.
 *
 * A row names a process by host, pid and start time. A pid alone is not proof of life: after a
 * kill -9 the pid may be an unreaped zombie for a while, or reused by another process. On Linux
 * the start is the one /proc/<pid>/stat gives (with the boot's id), and a row is live only if
 * that process exists, is not a zombie, and has the recorded start; where /proc is absent, the
 * start is the registration time and liveness is kill(pid, 0).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Database as Db } from 'better-sqlite3';

export interface InstanceRow {
  host: string;
  pid: number;
  startedAt: string;
}

let bootId: string | null | undefined;

/** This boot of the machine (/proc/sys/kernel/random/boot_id), or null without /proc. */
function currentBoot(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * A process as /proc/<pid>/stat shows it: its state letter and its start, as this boot's id and
 * the start time in clock ticks since boot (`linux:<boot id>:<ticks>`). Raw ticks, not an instant
 * computed from /proc/stat's btime: the kernel derives btime from the wall clock on every read,
 * so two processes could compute instants a second apart (after an NTP step) and judge a live
 * server dead. undefined: no such process; null: no /proc on this system.
 */
export function procStat(pid: number): { state: string; startedAt: string } | undefined | null {
  const boot = currentBoot();
  if (boot === null) return null;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19]; // field 22, starttime
  if (!fields[0] || !ticks || !/^\d+$/.test(ticks)) return undefined;
  return { state: fields[0], startedAt: `linux:${boot}:${ticks}` };
}

/** The start time recorded for this process. */
function ownStartTime(): string {
  return procStat(process.pid)?.startedAt ?? new Date().toISOString();
}

/** Whether the process a row names is still running (see the file comment). */
export function rowAlive(row: InstanceRow): boolean {
  if (row.host !== hostname()) return false;
  const stat = procStat(row.pid);
  if (stat === undefined) return false;
  if (stat !== null) return stat.state !== 'Z' && stat.state !== 'X' && stat.startedAt === row.startedAt;
  try {
    process.kill(row.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function rows(db: Db): InstanceRow[] {
  return db
    .prepare<[], { host: string; pid: number; started_at: string }>('SELECT host, pid, started_at FROM instances')
    .all()
    .map((r) => ({ host: r.host, pid: r.pid, startedAt: r.started_at }));
}

const isSelf = (r: InstanceRow) => r.host === hostname() && r.pid === process.pid;

/** The live servers of the file other than this process (nothing is written). */
export function liveServers(db: Db): InstanceRow[] {
  return rows(db).filter((r) => !isSelf(r) && rowAlive(r));
}

/**
 * Claims the file for this process as its server, in one IMMEDIATE transaction (two servers
 * starting together cannot both claim it): rows of processes that are gone — dead, a zombie, a
 * reused pid, another host (a file is served from one host; a row of another is a previous life
 * of this one, a container restarted under a new hostname say) — are removed; if another live
 * server remains it is returned and nothing is claimed, else this process's row is written and
 * the list is empty.
 */
export function registerInstance(db: Db): InstanceRow[] {
  return db.transaction(() => {
    const live: InstanceRow[] = [];
    for (const r of rows(db)) {
      if (isSelf(r)) continue;
      if (rowAlive(r)) live.push(r);
      else db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(r.host, r.pid);
    }
    if (live.length === 0) {
      db.prepare('INSERT OR REPLACE INTO instances (host, pid, started_at) VALUES (?, ?, ?)').run(hostname(), process.pid, ownStartTime());
    }
    return live;
  }).immediate();
}

/** Removes this process's row (on close). */
export function unregisterInstance(db: Db): void {
  db.prepare('DELETE FROM instances WHERE host = ? AND pid = ?').run(hostname(), process.pid);
}
