/**
 * The request handler options `a2a serve --store` derives from an opened store (openStore.ts):
 * the store and, on a store several instances share (PostgreSQL), the event bus that wakes this
 * instance's streams on other instances' writes (LISTEN/NOTIFY) and execution leases. One
 * function for the CLI and for code that wants the same server (the benchmark, embedders).
 */
import type { EventBus } from '../../server/eventBus.js';
import type { LeaseOptions } from '../../server/leases.js';
import type { TaskStore } from '../../server/stores/taskStore.js';
import type { OpenedStore } from './openStore.js';

export interface WireStoreOptions {
  /** Lease time to live (`--lease-ttl-ms`; default: the lease keeper's, 15 s). */
  leaseTtlMs?: number | undefined;
  /** Failures of the bus's LISTEN connection. */
  onBusError?: (error: unknown) => void;
}

export interface WiredStore {
  /** Spread into the handler options: `handler: { ...wired.handler, … }`. */
  handler: { store: TaskStore; bus?: EventBus; leases?: Pick<LeaseOptions, 'ttlMs'> };
  /** Stops the bus (the store is closed by its opener: `opened.close()`). */
  close(): Promise<void>;
}

export async function wireStore(opened: OpenedStore, options: WireStoreOptions = {}): Promise<WiredStore> {
  if (!opened.openBus) return { handler: { store: opened.store }, close: async () => {} };
  const bus = await opened.openBus(options.onBusError);
  const leases = options.leaseTtlMs !== undefined ? { ttlMs: options.leaseTtlMs } : {};
  return { handler: { store: opened.store, bus, leases }, close: () => bus.close() };
}
