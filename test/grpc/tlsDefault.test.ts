/**
 * GRPC-01 TLS or plaintext when the caller does not say (defaultTls, src/bindings/grpc/client.ts):
 * TLS, except plaintext for a loopback gRPC address of an agent not known to serve TLS. A card
 * read over https (createClient with an https URL, or a card resolveCard / fetchCard read, as
 * the CLI does) means TLS for its loopback gRPC interface too, as does a `grpcs://` interface
 * url; a card read over http, or given as an object, leaves loopback in plaintext; `tls: false`
 * overrides. The server here speaks plaintext, so TLS shows as "over TLS: … does not speak TLS".
 * The TLS success with a real `a2a serve --tls-cert` is in cliServe.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultTls, grpcTransport, type GrpcTransportOptions } from '../../src/bindings/grpc/client.js';
import { grpc03Transport } from '../../src/bindings/grpc/v03Client.js';
import { resolveCard } from '../../src/client/cardResolver.js';
import { createClient, type ClientOptions } from '../../src/client/client.js';
import { A2AClientError } from '../../src/client/errors.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { cardAt } from '../client/fakeAgent.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

let server: GrpcTestServer;
let card: AgentCard;
before(async () => {
  server = await startGrpcServer();
  card = cardAt(`localhost:${server.address.split(':').pop()}`, { binding: 'GRPC' });
});
after(() => server.close());

/** A fetch serving `served` as the card at any URL (no TLS needed for an https card URL). */
const cardFetch = (served: AgentCard) => async () => new Response(JSON.stringify(served), { headers: { 'content-type': 'application/json' } });

const closers: Array<() => void> = [];
after(() => closers.forEach((close) => close()));

/** createClient over gRPC only with a fresh transport; its listTasks' outcome: 'ok', or the NETWORK message. */
async function outcome(agent: string | AgentCard, options: { served?: AgentCard; grpc?: GrpcTransportOptions; v03?: boolean } = {}): Promise<string> {
  const transport = options.v03 ? grpc03Transport(options.grpc) : grpcTransport(options.grpc);
  closers.push(() => transport.close());
  const clientOptions: ClientOptions = { transports: [transport], bindings: ['GRPC'], fetch: cardFetch(options.served ?? card), cardCache: false };
  const client = await createClient(agent, clientOptions);
  try {
    await client.getTask({ id: 'no-such-task' });
    return 'ok';
  } catch (error) {
    if (A2AClientError.is(error, 'NETWORK')) return error.message;
    // The call reached the server: TaskNotFound.
    return 'ok';
  }
}

const OVER_TLS = /^Could not reach gRPC localhost:\d+ over TLS: the TLS handshake failed: the server does not speak TLS/;

describe('GRPC-01 the gRPC client chooses TLS as the agent serves its card', () => {
  test('a card read over https → TLS for its loopback gRPC interface (createClient with the URL, grpcTransport and grpc03Transport)', async () => {
    assert.match(await outcome('https://agent.test'), OVER_TLS);
    assert.match(await outcome('https://agent.test', { v03: true }), OVER_TLS);
    // A 0.3 interface: grpc03Transport's 0.3 transport follows the same rule.
    assert.match(await outcome('https://agent.test', { v03: true, served: cardAt(card.supportedInterfaces[0]?.url ?? '', { binding: 'GRPC', version: '0.3' }) }), /over TLS: /);
  });

  test('a card resolveCard read over https, then given to createClient (what the CLI does without --binding) → TLS', async () => {
    const read = await resolveCard('https://agent.test', { fetch: cardFetch(card), cache: false });
    assert.match(await outcome(read), OVER_TLS);
  });

  test('a card read over http, a card given as an object → plaintext on loopback; tls: false overrides an https card', async () => {
    assert.equal(await outcome('http://agent.test'), 'ok');
    assert.equal(await outcome(structuredClone(card)), 'ok');
    assert.equal(await outcome('https://agent.test', { grpc: { tls: false } }), 'ok');
  });

  test('defaultTls: grpcs:// and https:// interface urls mean TLS; other hosts TLS whatever the card', () => {
    assert.equal(defaultTls('localhost:50051'), false);
    assert.equal(defaultTls('localhost:50051', 'http://localhost:8080/.well-known/agent-card.json'), false);
    assert.equal(defaultTls('localhost:50051', 'https://localhost:8443/.well-known/agent-card.json'), true);
    assert.equal(defaultTls('grpcs://127.0.0.1:50051'), true);
    assert.equal(defaultTls('agent.example.com:443', 'http://agent.example.com/'), true);
  });
});
