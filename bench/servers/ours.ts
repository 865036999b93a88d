/** Our server: serveAgent (createA2AHandler + the node:http host), the demo agent, the in-memory store. */
import { demoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent } from '../../src/node/serveAgent.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { exitWithParent, reportReady } from './ipc.js';

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
