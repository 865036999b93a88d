/**
 * The one readiness decision of a server (docs/deploy.md, "Health probes"), shared by the HTTP
 * probes (http/healthRoutes.ts) and the gRPC health service (grpc.health.v1.Health): SERVING
 * while the task store answers a trivial check (TaskStore.ping) within a short bound and the
 * server is not draining; NOT_SERVING with the reason otherwise. Liveness needs no decision:
 * a process that can answer is alive.
 *
 * One store check at a time, whoever asks: concurrent callers (probes, gRPC Check, the start of
 * each Watch, the watch timer) share the check under way, and its answer is reused for
 * `checkCacheMs` (default 500 ms), so a flood of probes costs the store one check per half
 * second, not one per probe (each check would hold one of the pool's connections). A drain is
 * told at once: the cached answer never hides it.
 */
import type { TaskStore } from './stores/taskStore.js';

export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** Why a server is not ready. */
export type NotServingReason = 'draining' | 'store unreachable';

export type Readiness = { status: 'SERVING' } | { status: 'NOT_SERVING'; reason: NotServingReason };

export interface ServerHealthOptions {
  /** The task store checked (absent, or without `ping`: counts as answering). */
  store?: Pick<TaskStore, 'ping'> | undefined;
  /** How long the store may take to answer (default 1000 ms). */
  storeTimeoutMs?: number;
  /** While someone watches (gRPC Watch), readiness is checked again this often (default 5000 ms), by one timer for all watchers. */
  watchIntervalMs?: number;
  /** How long a store check's answer is reused (default 500 ms; 0: only concurrent callers share a check). */
  checkCacheMs?: number;
  /** Milliseconds clock (default performance.now); tests pass a fake one. */
  now?: () => number;
}

export const DEFAULT_STORE_CHECK_MS = 1000;
const DEFAULT_WATCH_INTERVAL_MS = 5000;
export const DEFAULT_CHECK_CACHE_MS = 500;

const SERVING: Readiness = { status: 'SERVING' };
const DRAINING: Readiness = { status: 'NOT_SERVING', reason: 'draining' };
const UNREACHABLE: Readiness = { status: 'NOT_SERVING', reason: 'store unreachable' };

export class ServerHealth {
  private isDraining = false;
  private readonly watchers = new Set<(readiness: Readiness) => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly storeTimeoutMs: number;
  private readonly now: () => number;
  /** The store check under way, which every caller meanwhile shares. */
  private checking: Promise<boolean> | undefined;
  /** The last check's answer and when it came. */
  private checked: { answered: boolean; at: number } | undefined;

  constructor(private readonly options: ServerHealthOptions = {}) {
    this.storeTimeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_CHECK_MS;
    this.now = options.now ?? (() => performance.now());
  }

  get draining(): boolean {
    return this.isDraining;
  }

  /** Graceful shutdown began: NOT_SERVING ("draining") from now on, told to watchers at once. */
  drain(): void {
    if (this.isDraining) return;
    this.isDraining = true;
    this.publish(DRAINING);
    this.stopPolling();
  }

  /** The readiness now: the drain state, then the store's answer within the bound (shared, briefly reused). */
  async readiness(): Promise<Readiness> {
    if (this.isDraining) return DRAINING;
    const answered = await this.storeCheck();
    if (this.isDraining) return DRAINING;
    return answered ? SERVING : UNREACHABLE;
  }

  /** The cached answer while fresh, else the check under way, else a new one. */
  private storeCheck(): boolean | Promise<boolean> {
    const cached = this.checked;
    if (cached && this.now() - cached.at < (this.options.checkCacheMs ?? DEFAULT_CHECK_CACHE_MS)) return cached.answered;
    this.checking ??= storeAnswers(this.options.store, this.storeTimeoutMs).then((answered) => {
      this.checked = { answered, at: this.now() };
      this.checking = undefined;
      return answered;
    });
    return this.checking;
  }

  /**
   * Calls `listener` with the readiness from now on: at once when draining starts, and after
   * each check of the store, one every watch interval (unchanged results included: the
   * listener keeps what it last told); returns the function that stops it.
   */
  watch(listener: (readiness: Readiness) => void): () => void {
    this.watchers.add(listener);
    if (!this.timer && !this.isDraining) {
      this.timer = setInterval(() => void this.poll(), this.options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS);
      this.timer.unref();
    }
    return () => {
      this.watchers.delete(listener);
      if (this.watchers.size === 0) this.stopPolling();
    };
  }

  private async poll(): Promise<void> {
    this.publish(await this.readiness());
  }

  private publish(readiness: Readiness): void {
    for (const watcher of [...this.watchers]) watcher(readiness);
  }

  private stopPolling(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * Whether the store answered its check within `timeoutMs`. Every failure counts as out of
 * reach (its details are never shown to a probe); the check is told to stop at the deadline.
 */
async function storeAnswers(store: Pick<TaskStore, 'ping'> | undefined, timeoutMs: number): Promise<boolean> {
  if (!store?.ping) return true;
  const deadline = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort(new DOMException('The store check timed out', 'TimeoutError'));
      resolve(false);
    }, timeoutMs);
  });
  const checked = Promise.resolve()
    .then(() => store.ping?.(deadline.signal))
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([checked, expired]);
  } finally {
    clearTimeout(timer);
  }
}
