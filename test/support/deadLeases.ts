import type { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { LeaseStore } from '../../src/server/stores/leaseStore.js';

/** The store as a dead instance uses it: it took its lease, then never renews nor sweeps again. */
export function deadAfterAcquire(store: MemoryTaskStore): LeaseStore {
  return {
    acquireLease: (i) => store.acquireLease(i),
    renewLeases: async () => [],
    releaseLease: async () => undefined,
    expiredLeases: async () => [],
    takeOverLease: async () => false,
  };
}
