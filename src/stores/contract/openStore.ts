/**
 * `--store` for the command line and for embedders: one string picks the store.
 *   memory                    in-process, gone at exit
 *   sqlite | sqlite:PATH      one file (default ./.a2a/tasks.db), WAL — the default of `a2a serve`
 *   postgres://… | postgresql://…[?schema=NAME]   several instances on one database (schema default a2a)
 * The SQL drivers are optional dependencies, loaded only when their store is chosen.
 */
import type { TaskStore } from '../../server/stores/taskStore.js';
import type { EventBus } from '../../server/eventBus.js';
import { MemoryTaskStore } from '../../server/stores/memoryStore.js';
import { recoverInterrupted, type RecoverOptions, type RecoveredTask } from './recovery.js';
import { MASK, maskSecretParams } from '../../net/secretParams.js';

export const DEFAULT_SQLITE_PATH = '.a2a/tasks.db';

export type StoreSpec = { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema?: string };

export interface OpenedStore {
  store: TaskStore;
  spec: StoreSpec;
  /** Printable description (describeStore: password and credential-named query parameters masked). */
  label: string;
  /** Schema migration applied on open (SQL stores). */
  migration?: { from: number; to: number; applied: number[] };
  /**
   * R2 sweep: tasks left SUBMITTED/WORKING by a dead process become FAILED. On SQLite opened
   * with `serve` it always runs (this process is the file's one server); opened without, it is
   * skipped (with the reason) while a live server has the file. PostgreSQL callers decide
   * themselves, since other instances may be running those tasks (see docs/storage.md).
   */
  recover(options?: RecoverOptions): Promise<{ recovered: RecoveredTask[]; skipped?: string }>;
  /**
   * Retention: deletes terminal tasks older than `before`. Every store openStore opens has it
   * (the memory store too); optional for OpenedStore values built by hand.
   */
  purge?: (before: Date) => Promise<number>;
  /**
   * PostgreSQL: a bus that wakes this instance's streams when another instance writes to a task
   * they follow (LISTEN/NOTIFY). Undefined for single-process stores.
   */
  openBus?: (onError?: (error: unknown) => void) => Promise<EventBus & { close(): Promise<void> }>;
  close(): Promise<void>;
}

export class StoreSpecError extends Error {}

/** `serve` on a SQLite file another live server has: one server per file, several need PostgreSQL. */
export class StoreInUseError extends Error {
  constructor(
    readonly pid: number,
    readonly path: string,
  ) {
    super(`another a2a serve (pid ${pid}) serves ${path}; use PostgreSQL to run several instances`);
  }
}

export interface OpenStoreOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /**
   * Open as the server of the store (`a2a serve`): a SQLite file is checked (`PRAGMA
   * quick_check`, CorruptDatabaseError; see sqliteCheck.ts) and claimed for this process, and
   * refused (StoreInUseError) while another live server has it. Readers and maintenance
   * (`a2a db`) leave it out.
   */
  serve?: boolean;
  /** PostgreSQL: most connections in the store's pool (default 10; `a2a serve --pg-pool-size`). */
  poolSize?: number;
  /**
   * SQLite: create a missing file (default true). false refuses it (MissingDatabaseError,
   * sqliteFile.ts): `a2a db` maintains a file, it never makes one.
   */
  create?: boolean;
}

export function parseStoreSpec(text: string): StoreSpec {
  const value = text.trim();
  if (value === 'memory') return { kind: 'memory' };
  if (value === 'sqlite') return { kind: 'sqlite', path: DEFAULT_SQLITE_PATH };
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (!path) throw new StoreSpecError('--store sqlite:PATH needs a path');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new StoreSpecError('--store: not a valid postgres:// URL');
    }
    // `schema` is ours, not a PostgreSQL connection parameter: take it out of the URL.
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return { kind: 'postgres', url: url.toString(), ...(schema ? { schema } : {}) };
  }
  throw new StoreSpecError(`--store must be memory, sqlite, sqlite:PATH or postgres://…, got "${value}"`);
}

/**
 * The store for people (banner, `--json` lines, errors; R23): a PostgreSQL URL's password shows
 * as `***`, and so do the values of its query parameters named like a credential (`password`,
 * `sslpassword`, …; ../../net/secretParams.ts), which libpq and `pg` accept as well.
 */
export function describeStore(spec: StoreSpec): string {
  if (spec.kind === 'memory') return 'memory';
  if (spec.kind === 'sqlite') return `sqlite:${spec.path}`;
  const url = new URL(spec.url);
  if (url.password) url.password = MASK;
  return `${maskSecretParams(url.toString())}${spec.schema ? ` (schema ${spec.schema})` : ''}`;
}

export async function openStore(spec: StoreSpec | string, options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const s = typeof spec === 'string' ? parseStoreSpec(spec) : spec;
  const label = describeStore(s);
  if (s.kind === 'memory') {
    const store = new MemoryTaskStore();
    return { store, spec: s, label, recover: async () => ({ recovered: [] }), purge: (before) => store.purgeTerminal({ before }), close: async () => {} };
  }
  if (s.kind === 'sqlite') {
    const { SqliteTaskStore } = await optional('better-sqlite3', () => import('../sqlite/sqliteStore.js'));
    const store = new SqliteTaskStore({ path: s.path, ...(options.migrate === false ? { migrate: false } : {}), ...(options.create === false ? { create: false } : {}) });
    const server = options.serve === true;
    if (server) {
      const { checkAtStart } = await import('../sqlite/sqliteCheck.js');
      try {
        checkAtStart(store, s.path);
      } catch (error) {
        await store.close().catch(() => undefined);
        throw error;
      }
      const [other] = store.registerInstance();
      if (other) {
        await store.close();
        throw new StoreInUseError(other.pid, s.path);
      }
    }
    return {
      store,
      spec: s,
      label,
      migration: store.migration,
      recover: async (o) => {
        const others = server ? [] : store.liveServers();
        if (others.length > 0) {
          return { recovered: [], skipped: `a2a serve (pid ${others.map((x) => x.pid).join(', ')}) serves ${s.path}` };
        }
        return { recovered: await recoverInterrupted(store, o) };
      },
      purge: (before) => store.purgeTerminal({ before }),
      close: () => store.close(),
    };
  }
  const { PostgresTaskStore } = await optional('pg', () => import('../postgres/postgresStore.js'));
  const store = await PostgresTaskStore.open({
    connectionString: s.url,
    ...(s.schema ? { schema: s.schema } : {}),
    ...(options.migrate === false ? { migrate: false } : {}),
    ...(options.poolSize !== undefined ? { poolConfig: { max: options.poolSize } } : {}),
  });
  return {
    store,
    spec: s,
    label,
    migration: store.migration,
    recover: async (o) => ({ recovered: await recoverInterrupted(store, o) }),
    purge: (before) => store.purgeTerminal({ before }),
    openBus: async (onError) => {
      const { PostgresEventBus } = await import('../postgres/postgresEventBus.js');
      const bus = new PostgresEventBus({ connectionString: s.url, store, channel: `a2a_events_${store.schema}`, ...(onError ? { onError } : {}) });
      await bus.start();
      return bus;
    },
    close: () => store.close(),
  };
}

/** `a2a db migrate`: applies pending migrations and reports them (`create`: as for openStore). */
export async function migrateStore(spec: StoreSpec | string, options: Pick<OpenStoreOptions, 'create'> = {}): Promise<{ label: string; from: number; to: number; applied: number[] }> {
  const opened = await openStore(spec, options);
  try {
    const m = opened.migration ?? { from: 0, to: 0, applied: [] };
    return { label: opened.label, ...m };
  } finally {
    await opened.close();
  }
}

async function optional<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(pkg)) {
      const hint = pkg === 'better-sqlite3' ? 'better-sqlite3@12' : pkg;
      throw new StoreSpecError(`this store needs the optional dependency ${pkg}: npm install ${hint}`);
    }
    throw error;
  }
}
