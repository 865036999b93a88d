/**
 * EXT-05, client side: the caller learns which of the requested extensions the agent activated
 * (`onActivatedExtensions`, per call or client-wide; `call.activatedExtensions` for `after`
 * interceptors), on every transport — JSON-RPC, HTTP+JSON and gRPC, at A2A 1.0 and 0.3 — for
 * unary calls and for streams, where it is known once the stream is open, before its first
 * event. Our server over real sockets, with a card that declares one extension: a requested
 * and declared extension is reported, a requested unknown one is not.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createGrpcClient, grpc03Transport, type Grpc03TransportFactory } from '../../src/bindings/grpc/index.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { createClient, type A2AClient, type AgentCard, type ClientOptions, type Message } from '../../src/client/index.js';
import type { V03AgentCard } from '../../src/compat/v03Types.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';

const EXT = 'https://example.com/ext/audit/v1';
const UNKNOWN = 'https://example.com/ext/unknown/v1';

let counter = 0;
const user = (text: string): Message => ({ messageId: `ae-${process.pid}-${++counter}`, role: 'ROLE_USER', parts: [{ text }] });

let agent: RunningAgent;
let card03: V03AgentCard;
let grpc: Grpc03TransportFactory;

before(async () => {
  const base = demoCard();
  agent = await serveAgent({
    agent: { card: { ...base, capabilities: { ...base.capabilities, extensions: [{ uri: EXT, description: 'audit trail' }] } }, executor: createDemoAgent({ slowMs: 200, tickMs: 5 }) },
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    grpc: { port: 0 },
  });
  // What a 0.3 client reads: the 0.3 card, whose interfaces are the 0.3 endpoints.
  card03 = (await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).json()) as V03AgentCard;
  grpc = grpc03Transport();
});
after(async () => {
  grpc.close();
  await agent.close();
});

const CASES = [
  { binding: 'JSONRPC', version: '1.0' },
  { binding: 'HTTP+JSON', version: '1.0' },
  { binding: 'GRPC', version: '1.0' },
  { binding: 'JSONRPC', version: '0.3' },
  { binding: 'HTTP+JSON', version: '0.3' },
  { binding: 'GRPC', version: '0.3' },
] as const;

for (const { binding, version } of CASES) {
  describe(`EXT-05 over ${binding} at A2A ${version}`, () => {
    const connect = (options: ClientOptions = {}): Promise<A2AClient> => {
      const card: AgentCard | V03AgentCard = version === '0.3' ? card03 : agent.agentCard;
      return createClient(card, { bindings: [binding], versions: [version], transports: [grpc], ...options });
    };

    test('a unary call reports the requested extension the agent declares, not the unknown one', async () => {
      const client = await connect({ extensions: [EXT, UNKNOWN] });
      assert.equal(client.agentInterface.protocolVersion, version);
      const reports: string[][] = [];
      const result = await client.sendMessage({ message: user('hi') }, { onActivatedExtensions: (uris) => reports.push(uris) });
      assert.ok('task' in result);
      assert.deepEqual(reports, [[EXT]]);
      reports.length = 0;
      await client.getTask({ id: result.task.id }, { onActivatedExtensions: (uris) => reports.push(uris) });
      assert.deepEqual(reports, [[EXT]]);
    });

    test('a stream reports them once open, before its first event', async () => {
      const client = await connect({ extensions: [UNKNOWN, EXT] });
      const seen: string[] = [];
      for await (const event of client.sendStreamingMessage({ message: user('stream it') }, { onActivatedExtensions: (uris) => seen.push(`activated ${uris.join(' ')}`) })) {
        seen.push(Object.keys(event)[0] as string);
      }
      assert.equal(seen[0], `activated ${EXT}`);
      assert.equal(seen.filter((s) => s.startsWith('activated')).length, 1);
      assert.ok(seen.length > 2, seen.join(', '));
    });

    test('only unknown extensions requested, or none: [] is reported; the client-wide callback and after interceptors see it too', async () => {
      const reports: string[][] = [];
      const fromInterceptor: (string[] | undefined)[] = [];
      const client = await connect({
        extensions: [UNKNOWN],
        onActivatedExtensions: (uris) => reports.push(uris),
        interceptors: [{ after: (call) => void fromInterceptor.push(call.activatedExtensions) }],
      });
      await client.sendText('hi');
      assert.deepEqual(reports, [[]]);
      const plain = await connect();
      const none: string[][] = [];
      await plain.sendText('hi', { onActivatedExtensions: (uris) => none.push(uris) });
      assert.deepEqual(none, [[]]);
      // The per-call callback replaces the client-wide one.
      const own: string[][] = [];
      await client.sendText('hi', { headers: { 'A2A-Extensions': EXT }, onActivatedExtensions: (uris) => own.push(uris) });
      assert.deepEqual(own, [[EXT]]);
      assert.deepEqual(reports, [[]]);
      assert.deepEqual(fromInterceptor, [[], [EXT]]);
    });
  });
}

test('EXT-05 createGrpcClient: onActivatedExtensions on unary calls and streams', async () => {
  const client = createGrpcClient(`127.0.0.1:${agent.grpc?.port}`);
  try {
    const reports: string[][] = [];
    const onActivatedExtensions = (uris: string[]) => reports.push(uris);
    await client.sendMessage({ message: user('hi') }, { extensions: [EXT, UNKNOWN], onActivatedExtensions });
    const order: string[] = [];
    for await (const event of client.sendStreamingMessage({ message: user('stream it') }, { extensions: [EXT], onActivatedExtensions: (uris) => order.push(uris.join()) })) {
      order.push(Object.keys(event)[0] as string);
    }
    assert.deepEqual(reports, [[EXT]]);
    assert.equal(order[0], EXT);
  } finally {
    client.close();
  }
});
