/** Our server: createA2AHandler + the node:http host, the demo agent, the default in-memory store. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { demoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import { serve } from '../../src/node/serve.js';
import { exitWithParent, reportReady } from './ipc.js';

/** A free loopback port, so the card (serialized once by the handler) can carry the real URLs. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const jsonrpc = `${base}/a2a/jsonrpc`;
const rest = `${base}/a2a/rest`;
const agentCard = {
  ...demoCard(),
  supportedInterfaces: [
    { url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
};
const server = await serve(createA2AHandler({ agentCard, executor: demoAgent }), { port, host: '127.0.0.1' });
reportReady({ name: 'ours', url: server.url, jsonrpc, rest });
exitWithParent(() => server.close());
