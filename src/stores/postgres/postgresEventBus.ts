/**
 * Cross-instance wake-up for task streams (issue 7, first slice): several `a2a serve` instances on
 * one PostgreSQL follow each other's tasks. Writers publish locally as before and send a NOTIFY
 * carrying only (tenant, task, seq range); an instance with local subscribers to that task reads
 * the events from the store — the log, not the notification, is the truth — and hands them to its
 * streams, which drop what they already have and fill any gap from the store.
 * NOTIFY is delivered after commit and never replayed; a missed wake-up is covered by the stream
 * reading the log on its next event.
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
}

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

  constructor(private readonly options: PostgresEventBusOptions) {
    this.channel = (options.channel ?? 'a2a_events').replace(/[^a-zA-Z0-9_]/g, '_').slice(0, 63);
  }

  /** Opens the listening connection. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString });
    client.on('error', (error) => this.options.onError?.(error));
    client.on('notification', (n) => {
      if (n.channel === this.channel && n.payload) void this.onAnnouncement(n.payload);
    });
    await client.connect();
    await client.query(`LISTEN "${this.channel}"`);
    this.client = client;
  }

  subscribe(tenant: string, taskId: string, listener: EventListener): () => void {
    return this.local.subscribe(tenant, taskId, listener);
  }

  publish(tenant: string, taskId: string, events: StoredEvent[]): void {
    this.local.publish(tenant, taskId, events);
    const first = events[0];
    const last = events[events.length - 1];
    if (!first || !last || !this.client) return;
    const payload = JSON.stringify({ i: this.instance, t: tenant, k: taskId, f: first.seq, l: last.seq } satisfies Announcement);
    if (payload.length > MAX_PAYLOAD) return;
    this.queued.push(payload);
    if (!this.sending) void this.flush();
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
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
