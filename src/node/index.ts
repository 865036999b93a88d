export { serve } from './serve.js';
export type { ServeOptions, RunningServer } from './serve.js';
export { serveAgent } from './serveAgent.js';
export type { ServeAgentOptions, RunningAgent } from './serveAgent.js';
export { createPushRuntime as nodePushRuntime } from '../push/pushOptions.js';
export type { PushOptions } from '../push/pushOptions.js';
export { nodeJsonFetcher } from '../auth/nodeJsonFetcher.js';
export type { ServeTenantsOptions, RunningTenants } from './serveAgent.js';
