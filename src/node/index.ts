export { serve } from './serve.js';
export type { ServeOptions, RunningServer } from './serve.js';
export { serveAgent } from './serveAgent.js';
export type { ServeAgentOptions, RunningAgent } from './serveAgent.js';
export type { MetricsOptions } from './serveMetrics.js';
export { createPushRuntime as nodePushRuntime } from '../push/pushOptions.js';
export type { PushOptions } from '../push/pushOptions.js';
export { nodeJsonFetcher } from '../auth/nodeJsonFetcher.js';
// What `a2a serve --store` does, for code: parse a spec, open the store (drivers loaded on demand).
export { openStore, parseStoreSpec, describeStore, StoreSpecError, StoreInUseError, DEFAULT_SQLITE_PATH } from '../stores/contract/openStore.js';
export type { OpenedStore, OpenStoreOptions, StoreSpec } from '../stores/contract/openStore.js';
// …and hands the opened store to the handler as it does (PostgreSQL: the event bus and leases).
export { wireStore } from '../stores/contract/wireStore.js';
export type { WiredStore, WireStoreOptions } from '../stores/contract/wireStore.js';
export type { ServeTenantsOptions, RunningTenants } from './serveAgent.js';
// The readiness the probes answer from (RunningAgent.health), for serveGrpc's `health` option.
export { ServerHealth } from '../server/serverHealth.js';
// Card signing from key files and the SSRF-guarded JWKS fetcher are Node-only (node:fs,
// node:crypto, the guard's sockets), so they are exported here, not from the runtime-neutral a2a-kit/signing.
export { signCardWith, loadSigningKey, generateSigningKeys, guardedJwksFetcher } from '../signing/node.js';
export type { SigningKey, GeneratedKeys } from '../signing/node.js';
