/** Issue 9: which Agent Card a card request gets (`cardForRequest`), and the 0.3 card's interfaces. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentCardForV03, cardForRequest, cardVariantFor, withV03Interfaces } from '../../src/compat/card03.js';
import type { AgentCard } from '../../src/protocol/types.js';

const card: AgentCard = {
  name: 'a',
  description: 'd',
  version: '1',
  supportedInterfaces: [
    { url: 'https://a.example/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://a.example/t/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't' },
  ],
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [{ protected: 'p', signature: 's' }],
};

const headers = (h: Record<string, string>) => ({ header: (name: string) => h[name] });

describe('cardForRequest', () => {
  test('variants by A2A-Version: 1.x → 1.0 card, 0.3 → 0.3 card, none → hybrid', () => {
    assert.equal(cardVariantFor(headers({ 'a2a-version': '1.0' })), '1.0');
    assert.equal(cardVariantFor(headers({ 'a2a-version': '1.1.2' })), '1.0');
    assert.equal(cardVariantFor(headers({ 'a2a-version': '0.3.0' })), '0.3');
    assert.equal(cardVariantFor(headers({})), 'hybrid');
    assert.equal(cardVariantFor({ header: () => undefined, query: new URLSearchParams('A2A-Version=0.3') }), '0.3');
    assert.equal(cardVariantFor(headers({}), { absent: '1.0' }), '1.0');
    assert.equal(cardForRequest(card, headers({ 'a2a-version': '1.0' })).body, card, 'the 1.0 card is served unchanged (signatures intact)');
  });

  test('the 0.3 card: JSON-RPC first, HTTP+JSON next, no gRPC (0.3 gRPC not served), no tenant interfaces, no signatures', () => {
    const v03 = agentCardForV03(card);
    assert.equal(v03.protocolVersion, '0.3.0');
    assert.equal(v03.url, 'https://a.example/rpc');
    assert.equal(v03.preferredTransport, 'JSONRPC');
    assert.deepEqual(v03.additionalInterfaces, [
      { url: 'https://a.example/rpc', transport: 'JSONRPC' },
      { url: 'https://a.example/rest', transport: 'HTTP+JSON' },
    ]);
    assert.equal(v03.supportsAuthenticatedExtendedCard, true);
    assert.equal(v03.signatures, undefined);
  });

  test('the hybrid card: every 1.0 member but signatures (SIGN-09: they cannot cover the 0.3 members) plus the 0.3-only ones', () => {
    const { body, variant } = cardForRequest(card, headers({}));
    assert.equal(variant, 'hybrid');
    const hybrid = body as unknown as Record<string, unknown>;
    assert.deepEqual(hybrid.supportedInterfaces, card.supportedInterfaces);
    assert.deepEqual(hybrid.capabilities, card.capabilities);
    assert.equal(hybrid.url, 'https://a.example/rpc');
    assert.equal(hybrid.protocolVersion, '0.3.0');
    assert.equal(hybrid.signatures, undefined, 'the 1.0 signatures would verify with url/additionalInterfaces/security changed');
    assert.deepEqual(card.signatures, [{ protected: 'p', signature: 's' }], 'the 1.0 card keeps them');
  });

  test('withV03Interfaces appends one 0.3 interface per served 1.0 endpoint, once', () => {
    const both = withV03Interfaces(card);
    assert.deepEqual(
      both.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
      [
        { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
        { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    );
    assert.equal(withV03Interfaces(both), both);
    assert.equal(agentCardForV03(both).url, 'https://a.example/rest', 'listed 0.3 interfaces are used in their order');
  });
});
