/**
 * Our server: serveAgent (createA2AHandler + the node:http host), the demo agent, the in-memory
 * store — compiled JavaScript from dist/ (`npm run build`, run by `npm run bench`), as a
 * deployment runs it and as the official SDK ships.
 */
import type * as Demo from '../../src/cli/agents/demo.js';
import type * as ServeAgent from '../../src/node/serveAgent.js';
import type * as Memory from '../../src/server/stores/memoryStore.js';
import { exitWithParent, reportReady } from './ipc.js';

// Loaded by URL so the typecheck (which runs before any build) sees the sources' types only.
const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;
const { demoAgent, demoCard } = (await import(dist('cli/agents/demo.js'))) as typeof Demo;
const { serveAgent } = (await import(dist('node/serveAgent.js'))) as typeof ServeAgent;
const { MemoryTaskStore } = (await import(dist('server/stores/memoryStore.js'))) as typeof Memory;


const server = await serveAgent({
  agent: { card: demoCard(), executor: demoAgent },
  port: 0,
  host: '127.0.0.1',
  publicUrl: 'http://127.0.0.1:0',
  handler: { store: new MemoryTaskStore() },
});
const base = server.url;
reportReady({ name: 'ours', url: base, jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest` });
exitWithParent(() => server.close());
