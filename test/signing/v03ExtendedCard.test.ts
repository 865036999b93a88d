/**
 * SIGN-09: the cards a 0.3 client receives from a call (not from the well-known URL) are signed
 * too when serveAgent signs its cards: the 0.3 extended card of JSON-RPC
 * `agent/getAuthenticatedExtendedCard` and REST `GET /v1/card`, and the card of the 0.3 gRPC
 * `GetAgentCard` (the extended card, else the public one) — each over its own 0.3 JSON, once at
 * start (never per request), per tenant too; they verify with our verifier and a 0.3 verifier
 * as the client reads them off the wire, and the official 0.3 SDK still reads them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as GrpcClient, credentials } from '@grpc/grpc-js';
import { JsonRpcTransport, RestTransport } from 'a2a-sdk-03/client';
import { GrpcTransport } from 'a2a-sdk-03/client/grpc';
import { exportJWK, generateKeyPair } from 'jose';
import { decodeResponse } from '../../src/bindings/grpc/client.js';
import { GRPC03_METHOD_BY_V03, resultFromGrpc03, type Grpc03Method } from '../../src/bindings/grpc/v03Codec.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { agentCardFromProto03 } from '../../src/compat/protoJson03Read.js';
import { serveAgent, type RunningAgent, type RunningTenants } from '../../src/node/serveAgent.js';
import type { AgentCard } from '../../src/protocol/types.js';
import type { AgentCardBase, AgentDefinition } from '../../src/server/agentDefinition.js';
import { jwksOf, signAgentCard, type CardSigner } from '../../src/signing/cardSigner.js';
import { realisticCard } from './fixtures/realisticCard.js';
import { verifiersFor, type Card } from './fixtures/verifiers.js';

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const jwk = await exportJWK(privateKey);
const KID = 'v03-extended';
const jwks = await jwksOf([{ key: jwk, kid: KID, alg: 'ES256' }]);
const { ours, v03Verifier } = verifiersFor(jwks);

/** Our signer, counting its calls (the cards are signed at start, never per request). */
function countingSigner(): { sign: CardSigner; calls: () => number } {
  let calls = 0;
  const sign: CardSigner = (card) => {
    calls++;
    return signAgentCard(card, { key: jwk, kid: KID });
  };
  return { sign, calls: () => calls };
}

/** An agent whose public card declares an extended card (`extended: false`: it has none). */
function agent(name: string, options: { extended?: boolean } = {}): AgentDefinition {
  const { supportedInterfaces: _interfaces, ...base } = realisticCard();
  // The card's extension is not required: the calls below activate none.
  const extensions = base.capabilities.extensions?.map((e) => ({ ...e, required: false }));
  const card: AgentCardBase = { ...base, name, capabilities: { ...base.capabilities, extensions, extendedAgentCard: options.extended !== false } };
  return { card, executor: createDemoAgent(), ...(options.extended === false ? {} : { extendedCard: { ...card, name: `${name} (extended)`, description: 'For callers we know.' } }) };
}

/** A signed 0.3 card: one signature per key, verified by our verifier and by a 0.3 verifier over the whole card. */
async function assertSigned03(card: Card, name: string): Promise<void> {
  assert.equal(card.name, name);
  assert.ok(typeof card.url === 'string' && !('supportedInterfaces' in card), 'the 0.3 shape');
  assert.equal(card.signatures?.length, 1, `${name}: one signature`);
  assert.equal(await ours(card), 'verified', name);
  assert.equal(v03Verifier(card), true, name);
}

type Served = Pick<RunningAgent, 'baseUrl' | 'grpc'>;

/** JSON-RPC `agent/getAuthenticatedExtendedCard` without A2A-Version (a 0.3 request): its result. */
async function jsonRpcExtendedCard(a: Served): Promise<Card> {
  const res = await fetch(`${a.baseUrl}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
  });
  const body = (await res.json()) as { result?: Card; error?: unknown };
  assert.ok(body.result, JSON.stringify(body.error));
  return body.result;
}

/** REST `GET /v1/card` (0.3 proto JSON), read back as the 0.3 JSON card, as 0.3 REST clients read it. */
async function restExtendedCard(a: Served): Promise<Card> {
  const res = await fetch(`${a.baseUrl}/a2a/rest/v1/card`);
  assert.equal(res.status, 200);
  return agentCardFromProto03(await res.json()) as Card;
}

/** The 0.3 gRPC GetAgentCard answer off the wire (binary → proto JSON → the 0.3 JSON card), as our 0.3 gRPC client reads it. */
function grpcAgentCard(a: Served): Promise<Card> {
  const rpc = GRPC03_METHOD_BY_V03.get('agent/getAuthenticatedExtendedCard') as Grpc03Method;
  const raw = new GrpcClient(`127.0.0.1:${a.grpc?.port}`, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    raw.makeUnaryRequest(rpc.path, (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), (error, bytes) => {
      raw.close();
      if (error || !bytes) reject(error ?? new Error('no answer'));
      else resolve(resultFromGrpc03('agent/getAuthenticatedExtendedCard', decodeResponse<unknown>(rpc.output, bytes)) as Card);
    });
  });
}

async function serve(definition: AgentDefinition, sign: CardSigner): Promise<RunningAgent> {
  // An extended card needs authentication (§13.3): as if a gateway in front authenticated.
  return serveAgent({ agent: definition, port: 0, host: '127.0.0.1', grpc: { port: 0 }, signCard: sign, handler: { auth: 'external' } });
}

describe('one agent with an extended card, signing on', () => {
  const signer = countingSigner();
  let a: RunningAgent;
  let signedAtStart: number;
  before(async () => {
    a = await serve(agent('Travel agent'), signer.sign);
    signedAtStart = signer.calls();
  });
  after(() => a.close());

  test('SIGN-09: JSON-RPC agent/getAuthenticatedExtendedCard answers the 0.3 extended card signed over its 0.3 JSON', async () => {
    await assertSigned03(await jsonRpcExtendedCard(a), 'Travel agent (extended)');
  });

  test('SIGN-09: REST GET /v1/card answers the same signed card (proto JSON; it verifies as the 0.3 card read from it)', async () => {
    const rest = await restExtendedCard(a);
    await assertSigned03(rest, 'Travel agent (extended)');
    assert.deepEqual(rest.signatures, (await jsonRpcExtendedCard(a)).signatures, 'one signed form, served on both bindings');
  });

  test('SIGN-09: the 0.3 gRPC GetAgentCard answers the extended card signed over what the 0.3 proto carries, verified as read off the wire', async () => {
    const card = await grpcAgentCard(a);
    await assertSigned03(card, 'Travel agent (extended)');
    assert.ok((card.additionalInterfaces as { transport: string }[]).some((i) => i.transport === 'GRPC'), 'it lists the 0.3 gRPC interface, as the well-known 0.3 card does');
    // The 0.3 proto has no iconUrl and drops `false`: the JSON card's signature would not verify here.
    const json = await jsonRpcExtendedCard(a);
    assert.equal(typeof json.iconUrl, 'string');
    assert.equal(card.iconUrl, undefined);
    assert.equal(await ours({ ...card, signatures: json.signatures }), 'bad-signature');
  });

  test('SIGN-09: the cards are signed once, at start: the calls above signed nothing', async () => {
    await jsonRpcExtendedCard(a);
    await restExtendedCard(a);
    await grpcAgentCard(a);
    assert.equal(signer.calls(), signedAtStart);
  });

  test('SIGN-09: the official 0.3 SDK transports (JSON-RPC, REST, gRPC) still read the signed extended card', async () => {
    const grpc = new GrpcTransport({ endpoint: `127.0.0.1:${a.grpc?.port}` });
    try {
      for (const transport of [new JsonRpcTransport({ endpoint: `${a.baseUrl}/a2a/jsonrpc` }), new RestTransport({ endpoint: `${a.baseUrl}/a2a/rest` }), grpc]) {
        const card = await transport.getExtendedAgentCard();
        assert.equal(card.name, 'Travel agent (extended)', transport.constructor.name);
        assert.equal(card.signatures?.length, 1, transport.constructor.name);
      }
    } finally {
      grpc['grpcClient'].close();
    }
  });
});

test('SIGN-09: without an extended card, the 0.3 gRPC GetAgentCard answers the public 0.3 card, signed', async () => {
  const a = await serve(agent('Plain agent', { extended: false }), countingSigner().sign);
  try {
    const card = await grpcAgentCard(a);
    await assertSigned03(card, 'Plain agent');
    const wellKnown = (await (await fetch(`${a.baseUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as Card;
    assert.equal(card.url, wellKnown.url, 'the well-known 0.3 card (as the proto carries it)');
    assert.deepEqual(card.additionalInterfaces, wellKnown.additionalInterfaces);
  } finally {
    await a.close();
  }
});

test('SIGN-09: with tenants, each tenant\'s 0.3 cards are signed; 0.3 calls (no tenant) get the default tenant\'s', async () => {
  const signer = countingSigner();
  const a = (await serveAgent({
    tenants: { acme: agent('Acme agent'), beta: agent('Beta agent') },
    defaultTenant: 'acme',
    port: 0,
    host: '127.0.0.1',
    grpc: { port: 0 },
    signCard: signer.sign,
    handler: { auth: 'external' },
  })) as RunningTenants;
  try {
    const signedAtStart = signer.calls();
    await assertSigned03(await jsonRpcExtendedCard(a), 'Acme agent (extended)');
    await assertSigned03(await restExtendedCard(a), 'Acme agent (extended)');
    await assertSigned03(await grpcAgentCard(a), 'Acme agent (extended)');
    // The other tenant's 0.3 form was signed at start too (its 1.0 extended card, asked for with the tenant).
    const res = await fetch(`${a.baseUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: { tenant: 'beta' } }),
    });
    const beta = ((await res.json()) as { result: AgentCard }).result;
    assert.equal(beta.name, 'Beta agent (extended)');
    await assertSigned03((await a.handler.v03Cards.of(beta)) as unknown as Card, 'Beta agent (extended)');
    assert.equal(signer.calls(), signedAtStart, 'signed at start');
  } finally {
    await a.close();
  }
});
