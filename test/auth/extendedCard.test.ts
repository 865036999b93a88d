/**
 * SEC-10 / XCARD-03 (spec §13.3): GetExtendedAgentCard MUST require authentication. A handler
 * that serves an extended card without any way to authenticate callers is refused when it is
 * built (it used to hand the card to anonymous callers); a card whose requirements allow
 * anonymous calls still never gives the extended card to an anonymous caller, on any binding;
 * and the answer carries per-caller caching headers (CACHE-06).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent } from '../../src/node/serveAgent.js';
import type { AgentCardBase } from '../../src/server/agentDefinition.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import { createTenantRouter } from '../../src/server/tenantRouter.js';
import { assertAuthFailure, echoPrincipal, startSecured } from './support.js';

const KEY = 'xk-51c3e0b7';
const URLS = { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' };

function extendedCardAgent(security: Partial<AgentCardBase> = {}): { card: AgentCardBase; extended: AgentCardBase } {
  const base = demoCard() as AgentCardBase;
  const card: AgentCardBase = { ...base, capabilities: { ...base.capabilities, pushNotifications: false, extendedAgentCard: true }, ...security };
  return { card, extended: { ...card, name: `${card.name} (extended)` } };
}

const NEEDS_AUTH = /extended Agent Card .*only authenticated callers may read \(A2A §13\.3\)/;

test('SEC-10 XCARD-03 createA2AHandler refuses an extended card that nobody could be authenticated for', () => {
  const { card, extended } = extendedCardAgent();
  const agentCard = withInterfaces(card, URLS);
  const extendedAgentCard = withInterfaces(extended, URLS);
  assert.throws(() => createA2AHandler({ agentCard, executor: echoPrincipal, extendedAgentCard }), NEEDS_AUTH);
  // A provider function is an extended card too.
  assert.throws(() => createA2AHandler({ agentCard, executor: echoPrincipal, extendedAgentCard: () => extendedAgentCard }), NEEDS_AUTH);
  // `auth` with no scheme to verify authenticates nobody.
  assert.throws(() => createA2AHandler({ agentCard, executor: echoPrincipal, extendedAgentCard, auth: { schemes: {} } }), NEEDS_AUTH);
  // Tenants: one tenant's extended card is enough to need authentication.
  assert.throws(
    () => createA2AHandler({ tenants: { a: { card, executor: echoPrincipal }, b: { card, executor: echoPrincipal, extendedCard: extended } }, interfaces: URLS }),
    NEEDS_AUTH,
  );
  // Allowed: a gateway in front authenticates; or no extended card configured (GetExtendedAgentCard answers NOT_CONFIGURED).
  createA2AHandler({ agentCard, executor: echoPrincipal, extendedAgentCard, auth: 'external' });
  createA2AHandler({ agentCard, executor: echoPrincipal });
  createTenantRouter({ tenants: { a: { card, executor: echoPrincipal, extendedCard: extended } }, interfaces: URLS });
});

test('SEC-10 serveAgent refuses it before listening', async () => {
  const { card, extended } = extendedCardAgent();
  await assert.rejects(serveAgent({ agent: { card, executor: echoPrincipal, extendedCard: extended }, port: 0, host: '127.0.0.1' }), NEEDS_AUTH);
});

test('XCARD-03 a card allowing anonymous calls: anonymous callers get UNAUTHENTICATED for the extended card on every binding', async () => {
  const server = await startSecured({
    extendedCard: true,
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    // The key, or nothing: every other operation is open to anonymous callers.
    securityRequirements: [{ schemes: { key: {} } }, { schemes: {} }],
    auth: { schemes: { key: { keys: { [KEY]: 'vip' } } } },
  });
  try {
    for (const b of server.bindings) {
      assert.ok((await b.call('getTask', { id: 'nope' })).ok === false, b.name);
      assertAuthFailure(b, await b.call('getExtendedAgentCard', {}), { reason: 'UNAUTHENTICATED', challenge: /APIKey/ });
      const r = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': KEY } });
      assert.ok(r.ok, b.name);
      assert.match(r.result.name, /\(extended\)$/);
    }
  } finally {
    await server.close();
  }
});

test('CACHE-06 the extended card is answered with private caching headers that vary with the credentials', async () => {
  const server = await startSecured({
    extendedCard: true,
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    auth: { schemes: { key: { keys: { [KEY]: 'vip' } } } },
    serve: { handler: { cardMaxAgeSeconds: 60, corsOrigins: ['https://app.example'] } },
  });
  try {
    const headers = { 'a2a-version': '1.0', 'x-api-key': KEY, origin: 'https://app.example' };
    const rest = await fetch(`${server.agent.url}/a2a/rest/extendedAgentCard`, { headers });
    assert.equal(rest.status, 200);
    assert.equal(rest.headers.get('cache-control'), 'private, max-age=60');
    assert.equal(rest.headers.get('vary'), 'Authorization, X-Api-Key, Origin');
    const rpc = await fetch(`${server.agent.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
    });
    assert.equal(rpc.status, 200);
    assert.match(((await rpc.json()) as { result: { name: string } }).result.name, /\(extended\)$/);
    assert.equal(rpc.headers.get('cache-control'), 'private, max-age=60');
    assert.match(rpc.headers.get('vary') ?? '', /^Authorization, X-Api-Key/);
    // Other answers are not touched.
    const list = await fetch(`${server.agent.url}/a2a/rest/tasks`, { headers });
    assert.equal(list.headers.get('cache-control'), null);
  } finally {
    await server.close();
  }
});
