/** Our server: createA2AHandler + the node:http host, the demo agent, the default in-memory store. */
import { demoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import { serve } from '../../src/node/serve.js';
import { exitWithParent, reportReady } from './ipc.js';

// Bind first so the card can carry the real URLs.
const placeholder = { ...demoCard(), supportedInterfaces: [] };
const handler = createA2AHandler({ agentCard: placeholder, executor: demoAgent });
const server = await serve(handler, { port: 0, host: '127.0.0.1' });
const jsonrpc = `${server.url}/a2a/jsonrpc`;
const rest = `${server.url}/a2a/rest`;
handler.agentCard.supportedInterfaces.push(
  { url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
);
reportReady({ name: 'ours', url: server.url, jsonrpc, rest });
exitWithParent(() => server.close());
