/** The store contract on the in-memory store. */
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { runStoreContract } from './contract.js';

runStoreContract('memory', async () => ({ store: new MemoryTaskStore(), cleanup: async () => {} }));
