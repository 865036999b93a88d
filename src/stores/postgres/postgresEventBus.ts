/**
 * Cross-instance wake-up for task streams (issue 7, first slice): several `a2a serve` instances on
 * one PostgreSQL follow each other's tasks. Writers publish locally as before and send a NOTIFY
 * carrying only (tenant, task, seq range); an instance with local subscribers to that task reads
 * the events from the store — the log, not the notification, is the truth — and hands them to its
 * streams, which drop what they already have and fill any gap from the store.
 * NOTIFY is delivered after commit and never replayed; a missed wake-up is covered by the stream
 * reading the log on its next event.
 *
 * The listening connection is kept: when it breaks (a PostgreSQL restart, a failover, an idle
 * connection cut by a proxy) it is reopened with backoff, and every task followed here is then
 * read from the store after the last seq this instance saw, so events written while nobody
 * listened still reach the streams.
 *
 * A writer that dies between its commit and its NOTIFY leaves no wake-up at all: every
 * `catchUpIntervalMs` (default 5 s) the tasks followed here that received nothing since the
 * previous round are read from the log after their last seq, so such events arrive within about
 * that long. `close()` sends the announcements still queued before it ends the connection.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LocalEventBus, type EventBus, type EventListener } from '../../server/eventBus.js';
import type { StoredEvent, TaskStore } from '../../server/stores/taskStore.js';

export interface PostgresEventBusOptions {
  connectionString: string;
  /** Where the events are read from when another instance announces them. */
  store: TaskStore;
  /** NOTIFY channel (default `a2a_events`, suffixed with the schema by `a2a serve`). */
  channel?: string;
  onError?: (error: unknown) => void;
  /** First delay before reopening a broken listening connection (default 100 ms; doubles up to 5 s). */
  reconnectDelayMs?: number;
  /** How often idle followed tasks are read from the log in case a wake-up never came (default 5000; 0: never). */
  catchUpIntervalMs?: number;
}

const MAX_RECONNECT_DELAY_MS = 5000;
/** Announcements kept while the connection is down. */
const MAX_QUEUED = 10_000;

interface Announcement {
  /** Sending instance (its own announcements are ignored). */
  i: string;
  t: string;
  k: string;
  /** First and last seq written. */
  f: number;
  l: number;
}

/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD = 7900;

export class PostgresEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private readonly instance = randomUUID();
  private readonly channel: string;
  private client: pg.Client | undefined;
  /** Announcements waiting for the NOTIFY in flight: sent together in the next one (one query at a time). */
  private queued: string[] = [];
  private sending = false;
  private closed = false;
  private started = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private catchUpTimer: ReturnType<typeof setInterval> | undefined;
  /** The last seq of each followed task at the previous catch-up round. */
  private seenAtLastRound = new Map<string, number>();
  private catchingUp = false;
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: PostgresEventBusOptions) {
    this.channel = (options.channel ?? 'a2a_events').replace(/[^a-zA-Z0-9_]/g, '_').slice(0, 63);
  }

  /** Opens the listening connection. */
  async start(): Promise<void> {
    this.client = await this.listen();
    this.started = true;
    const every = this.options.catchUpIntervalMs ?? 5000;
    if (every > 0) {
      this.catchUpTimer = setInterval(() => void this.catchUpIdle(), every);
      this.catchUpTimer.unref?.();
    }
  }

  /** Reads from the log the followed tasks that got nothing since the last round (a lost or never-sent NOTIFY). */
  private async catchUpIdle(): Promise<void> {
    if (this.catchingUp || this.closed) return;
    this.catchingUp = true;
    try {
      const previous = this.seenAtLastRound;
      const current = new Map<string, number>();
      for (const f of [...this.local.followed()]) {
        const k = JSON.stringify([f.tenant, f.taskId]);
        if (previous.get(k) === f.lastSeq) await this.catchUp(f.tenant, f.taskId, f.lastSeq);
        current.set(k, f.lastSeq);
      }
      this.seenAtLastRound = current;
    } finally {
      this.catchingUp = false;
    }
  }

  /** Unique per instance, so tests and operators can find the listening connection in pg_stat_activity. */
  get applicationName(): string {
    return `a2a-listen-${this.instance}`;
  }

  private async listen(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: this.applicationName });
    let broken = false;
    const onBroken = (error?: unknown) => {
      if (broken) return;
      broken = true;
      if (error) this.options.onError?.(error);
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (!this.closed) this.scheduleReconnect(this.options.reconnectDelayMs ?? 100);
    };
    client.on('notification', (n) => {
      if (n.channel === this.channel && n.payload) void this.onAnnouncement(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (error) {
      broken = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    client.on('error', onBroken);
    client.on('end', () => onBroken());
    return client;
  }

  private scheduleReconnect(delay: number): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.reconnect(delay);
    }, delay);
    this.reconnectTimer.unref?.();
  }

  private async reconnect(delay: number): Promise<void> {
    let client: pg.Client;
    try {
      client = await this.listen();
    } catch (error) {
      this.options.onError?.(error);
      this.scheduleReconnect(Math.min(delay * 2, MAX_RECONNECT_DELAY_MS));
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (this.queued.length > 0 && !this.sending) this.flushing = this.flush();
    // Whatever was written while nobody listened: read it from the log.
    for (const f of [...this.local.followed()]) void this.catchUp(f.tenant, f.taskId, f.lastSeq);
  }

  subscribe(tenant: string, taskId: string, listener: EventListener): () => void {
    return this.local.subscribe(tenant, taskId, listener);
  }

  private async catchUp(tenant: string, taskId: string, afterSeq: number): Promise<void> {
    try {
      const events = await this.options.store.events(tenant, taskId, afterSeq);
      if (events.length > 0) this.local.publish(tenant, taskId, events);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  publish(tenant: string, taskId: string, events: StoredEvent[]): void {
    this.local.publish(tenant, taskId, events);
    const first = events[0];
    const last = events[events.length - 1];
    if (!first || !last || !this.started || this.closed) return;
    const payload = JSON.stringify({ i: this.instance, t: tenant, k: taskId, f: first.seq, l: last.seq } satisfies Announcement);
    if (payload.length > MAX_PAYLOAD) return;
    this.queued.push(payload);
    // While the connection is being reopened announcements wait, within bounds: a stream that
    // misses one still reads the log on the task's next event.
    if (this.queued.length > MAX_QUEUED) this.queued.splice(0, this.queued.length - MAX_QUEUED);
    if (!this.sending && this.client) this.flushing = this.flush();
  }

  private async flush(): Promise<void> {
    this.sending = true;
    try {
      while (this.queued.length > 0 && this.client) {
        const batch = this.queued;
        this.queued = [];
        try {
          await this.client.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [this.channel, batch]);
        } catch (error) {
          this.options.onError?.(error);
          // Sent again by the next publish, or once the connection is reopened.
          this.queued = [...batch, ...this.queued].slice(-MAX_QUEUED);
          break;
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private async onAnnouncement(payload: string): Promise<void> {
    let a: Announcement;
    try {
      a = JSON.parse(payload) as Announcement;
    } catch {
      return;
    }
    if (a.i === this.instance || typeof a.t !== 'string' || typeof a.k !== 'string' || !this.local.has(a.t, a.k)) return;
    try {
      const events = (await this.options.store.events(a.t, a.k, a.f - 1)).filter((e) => e.seq <= a.l);
      this.local.publish(a.t, a.k, events);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.catchUpTimer);
    this.reconnectTimer = undefined;
    // Announcements of writes already committed: other instances' streams wait for them.
    await this.flushing;
    if (this.client && this.queued.length > 0) await this.flush();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
