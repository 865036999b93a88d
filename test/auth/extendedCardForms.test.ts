/**
 * XCARD-05 / CARD-03 / XCARD-04: an agent's extended card, given as a card or as
 * `(ctx) => card`. A card must be complete (checked at start, as `card` is); a function is called
 * per call with the caller's context, and its card gets the interfaces and the signature the
 * static form gets, on every binding and in the 0.3 forms (JSON-RPC
 * `agent/getAuthenticatedExtendedCard`, REST `GET /v1/card`, 0.3 gRPC GetAgentCard), all through
 * the request handler's one resolution. A function that throws or returns an incomplete card
 * answers InternalError in the binding's format (never a partial card) and reports to onError.
 * serveAgent used to spread the function into `{"supportedInterfaces":[...]}` and serve that.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as GrpcClient, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { exportJWK, generateKeyPair } from 'jose';
import { decodeResponse } from '../../src/bindings/grpc/client.js';
import { GRPC03_METHOD_BY_V03, resultFromGrpc03, type Grpc03Method } from '../../src/bindings/grpc/v03Codec.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import { agentCardFromProto03 } from '../../src/compat/protoJson03Read.js';
import { serveAgent, type RunningAgent, type ServeAgentOptions } from '../../src/node/serveAgent.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { agentDefinitionProblems, withInterfaces, type AgentCardBase, type AgentDefinition } from '../../src/server/agentDefinition.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import type { CallContext } from '../../src/server/requestHandler.js';
import { jwksOf, signAgentCard, type CardSigner } from '../../src/signing/cardSigner.js';
import type { TestBinding } from '../support/bindings.js';
import { grpcBinding } from '../grpc/grpcTestBinding.js';
import { restBinding } from '../support/bindings.js';
import { verifiersFor, type Card } from '../signing/fixtures/verifiers.js';
import { echoPrincipal, jsonRpcCaller } from './support.js';

const ALICE = 'xf-alice-8a1d42';
const BOB = 'xf-bob-77c0e9';
const URLS = { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' };

/** A public card declaring an extended card, for callers with an API key. */
function publicCard(): AgentCardBase {
  const base = demoCard() as AgentCardBase;
  return {
    ...base,
    capabilities: { ...base.capabilities, pushNotifications: false, extendedAgentCard: true },
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: { key: {} } }],
  };
}

/** The `(ctx) => card` of the audit: the whole card, its description naming the caller. */
const perCaller = (ctx: CallContext): AgentCardBase => ({ ...publicCard(), description: `extended for ${ctx.principal?.id}` });

/** A card missing most required members (CARD-03). */
const INCOMPLETE = { name: 'half a card', capabilities: {} } as unknown as AgentCardBase;

interface Served {
  agent: RunningAgent;
  bindings: TestBinding[];
  errors: unknown[];
}

async function serveWith(extendedCard: AgentDefinition['extendedCard'], extra: Partial<ServeAgentOptions> = {}): Promise<Served> {
  const errors: unknown[] = [];
  const agent = await serveAgent({
    agent: { card: publicCard(), executor: echoPrincipal, ...(extendedCard ? { extendedCard } : {}) },
    port: 0,
    host: '127.0.0.1',
    grpc: { port: 0 },
    onError: (e) => errors.push(e),
    handler: { auth: { schemes: { key: { keys: { [ALICE]: 'alice', [BOB]: 'bob' } } } } },
    ...extra,
  });
  const bindings = [jsonRpcCaller(`${agent.url}/a2a/jsonrpc`), restBinding(`${agent.url}/a2a/rest`), grpcBinding(agent.grpc?.address as string)];
  return { agent, bindings, errors };
}

/** JSON-RPC `agent/getAuthenticatedExtendedCard` without A2A-Version (a 0.3 request): the body. */
async function jsonRpc03(agent: RunningAgent, key: string): Promise<{ result?: Card; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(`${agent.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
  });
  return (await res.json()) as { result?: Card; error?: { code: number; message: string } };
}

/** REST `GET /v1/card` (0.3): status, and the 0.3 JSON card read from the proto JSON when it is one. */
async function rest03(agent: RunningAgent, key: string): Promise<{ status: number; text: string; card?: Card }> {
  const res = await fetch(`${agent.url}/a2a/rest/v1/card`, { headers: { 'x-api-key': key } });
  const text = await res.text();
  return { status: res.status, text, ...(res.status === 200 ? { card: agentCardFromProto03(JSON.parse(text)) as Card } : {}) };
}

/** The 0.3 gRPC GetAgentCard, off the wire: the card, or the status. */
function grpc03(agent: RunningAgent, key: string): Promise<{ card?: Card; error?: ServiceError }> {
  const rpc = GRPC03_METHOD_BY_V03.get('agent/getAuthenticatedExtendedCard') as Grpc03Method;
  const raw = new GrpcClient(`127.0.0.1:${agent.grpc?.port}`, credentials.createInsecure());
  const md = new Metadata();
  md.set('x-api-key', key);
  return new Promise((resolve) => {
    raw.makeUnaryRequest(rpc.path, (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), md, (error, bytes) => {
      raw.close();
      if (error || !bytes) resolve({ error: error ?? undefined });
      else resolve({ card: resultFromGrpc03('agent/getAuthenticatedExtendedCard', decodeResponse<unknown>(rpc.output, bytes)) as Card });
    });
  });
}

test('XCARD-05 CARD-03 an extendedCard given as a card must be complete: a2a serve\'s check, serveAgent, createA2AHandler and tenants refuse it at start', async () => {
  const executor = echoPrincipal;
  const card = publicCard();
  const problems = agentDefinitionProblems({ card, executor, extendedCard: INCOMPLETE });
  for (const field of ['description', 'version', 'defaultInputModes', 'defaultOutputModes', 'skills']) assert.ok(problems.includes(`extendedCard.${field} is required`), `${field}: ${problems.join('; ')}`);
  assert.ok(!problems.some((p) => p.includes('supportedInterfaces')), 'the host writes the interfaces');
  assert.deepEqual(agentDefinitionProblems({ card, executor, extendedCard: 'a card' }), ['extendedCard is not an object']);
  // A function is checked per call; a complete card passes.
  assert.deepEqual(agentDefinitionProblems({ card, executor, extendedCard: perCaller }), []);
  assert.deepEqual(agentDefinitionProblems({ card, executor, extendedCard: card }), []);

  const auth = { schemes: { key: { keys: { [ALICE]: 'alice' } } } };
  const incomplete = /^Error: extendedCard is not a complete Agent Card \(CARD-03, XCARD-05\): extendedCard\.description is required; extendedCard\.version is required/;
  await assert.rejects(serveAgent({ agent: { card, executor, extendedCard: INCOMPLETE }, port: 0, host: '127.0.0.1', handler: { auth } }), (e) => incomplete.test(String(e)));
  await assert.rejects(
    serveAgent({ tenants: { acme: { card, executor, extendedCard: INCOMPLETE } }, port: 0, host: '127.0.0.1', handler: { auth } }),
    /tenant "acme": extendedCard is not a complete Agent Card \(CARD-03, XCARD-05\): extendedCard\.description is required/,
  );
  const agentCard = withInterfaces(card, URLS);
  assert.throws(
    () => createA2AHandler({ agentCard, executor, extendedAgentCard: withInterfaces(INCOMPLETE, URLS), auth: 'external' }),
    /extendedAgentCard is not a complete Agent Card \(CARD-03, XCARD-05\): extendedAgentCard\.description is required/,
  );
  // createA2AHandler serves the card as given: it must list its interfaces.
  assert.throws(() => createA2AHandler({ agentCard, executor, extendedAgentCard: card as AgentCard, auth: 'external' }), /extendedAgentCard\.supportedInterfaces is required/);
  assert.throws(
    () => createA2AHandler({ tenants: { a: { card, executor, extendedCard: INCOMPLETE } }, interfaces: URLS, auth: 'external' }),
    /tenant "a": extendedCard is not a complete Agent Card/,
  );
});

describe('XCARD-04 XCARD-05 serveAgent with extendedCard as (ctx) => card', () => {
  let s: Served;
  before(async () => {
    s = await serveWith(perCaller);
  });
  after(() => s.agent.close());

  test('XCARD-05 each caller gets its complete card with the served interfaces, on JSON-RPC, REST and gRPC', async () => {
    for (const b of s.bindings) {
      for (const [key, who] of [[ALICE, 'alice'], [BOB, 'bob']] as const) {
        const r = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': key } });
        assert.ok(r.ok, `${b.name}: ${JSON.stringify(r.ok ? '' : r.error.raw)}`);
        assert.equal(r.result.description, `extended for ${who}`, b.name);
        assert.equal(r.result.name, s.agent.agentCard.name, b.name);
        assert.equal(r.result.version, s.agent.agentCard.version, b.name);
        assert.deepEqual(r.result.skills, JSON.parse(JSON.stringify(s.agent.agentCard.skills)), b.name);
        assert.deepEqual(r.result.supportedInterfaces, s.agent.agentCard.supportedInterfaces, `${b.name}: the interfaces the public card lists`);
      }
    }
    assert.deepEqual(s.errors, []);
  });

  test('XCARD-05 the 0.3 forms take the same path: agent/getAuthenticatedExtendedCard, REST GET /v1/card and the 0.3 gRPC GetAgentCard', async () => {
    const rpc = await jsonRpc03(s.agent, ALICE);
    assert.equal(rpc.result?.description, 'extended for alice', JSON.stringify(rpc.error));
    assert.equal(rpc.result?.url, `${s.agent.baseUrl}/a2a/jsonrpc`, 'the 0.3 card of the served interfaces');
    const rest = await rest03(s.agent, BOB);
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.card?.description, 'extended for bob');
    assert.equal(rest.card?.url, `${s.agent.baseUrl}/a2a/jsonrpc`);
    const grpc = await grpc03(s.agent, ALICE);
    assert.equal(grpc.card?.description, 'extended for alice', String(grpc.error));
    assert.ok((grpc.card?.additionalInterfaces as { transport: string }[]).some((i) => i.transport === 'GRPC'), 'it lists the 0.3 gRPC interface');
  });
});

describe('XCARD-05 SIGN-09 serveAgent with signCard and extendedCard as (ctx) => card', () => {
  let s: Served;
  let calls = 0;
  let verify: ReturnType<typeof verifiersFor>;
  before(async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    verify = verifiersFor(await jwksOf([{ key: jwk, kid: 'xf', alg: 'ES256' }]));
    const sign: CardSigner = (card) => {
      calls++;
      return signAgentCard(card, { key: jwk, kid: 'xf' });
    };
    // Async, as a function reading a database would be.
    s = await serveWith(async (ctx) => perCaller(ctx), { signCard: sign });
  });
  after(() => s.agent.close());

  test('XCARD-05 SIGN-09 the card made for the caller is signed per call, as the static extended card is at start: 1.0 on every binding, and its 0.3 forms', async () => {
    for (const b of s.bindings) {
      const before = calls;
      const r = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': BOB } });
      assert.ok(r.ok, b.name);
      assert.equal(r.result.description, 'extended for bob', b.name);
      assert.equal(await verify.ours(r.result as Card), 'verified', b.name);
      assert.equal(calls, before + 1, `${b.name}: signed for this call`);
    }
    const rpc = (await jsonRpc03(s.agent, ALICE)).result as Card;
    assert.equal(rpc.description, 'extended for alice');
    assert.equal(await verify.ours(rpc), 'verified');
    assert.equal(verify.v03Verifier(rpc), true, 'the 0.3 form is signed over its own JSON');
    const rest = (await rest03(s.agent, ALICE)).card as Card;
    assert.equal(await verify.ours(rest), 'verified');
    const grpc = (await grpc03(s.agent, ALICE)).card as Card;
    assert.equal(grpc.description, 'extended for alice');
    assert.equal(await verify.ours(grpc), 'verified', 'signed over what the 0.3 proto carries');
    assert.deepEqual(s.errors, []);
  });
});

describe('XCARD-05 an extendedCard function that fails', () => {
  let s: Served;
  let fail: (ctx: CallContext) => unknown = () => undefined;
  before(async () => {
    s = await serveWith((ctx) => fail(ctx) as AgentCardBase);
  });
  after(() => s.agent.close());

  const cases: { name: string; make: (ctx: CallContext) => unknown; reported: RegExp }[] = [
    { name: 'throws', make: () => { throw new Error('card store down at /srv/secret/cards.db'); }, reported: /^card store down at \/srv\/secret\/cards\.db$/ },
    { name: 'rejects with an A2AError (a downstream one)', make: async () => { throw new TaskNotFoundError('downstream task gone'); }, reported: /^extendedCard\(ctx\) failed: downstream task gone$/ },
    { name: 'returns an incomplete card', make: (ctx) => ({ ...INCOMPLETE, description: `for ${ctx.principal?.id}` }), reported: /^The card extendedCard\(ctx\) returned is not a complete Agent Card \(CARD-03, XCARD-05\): extendedCard\.version is required/ },
    { name: 'returns nothing', make: () => undefined, reported: /^The card extendedCard\(ctx\) returned is not a complete Agent Card \(CARD-03, XCARD-05\): extendedCard is not an object$/ },
  ];

  for (const c of cases) {
    test(`XCARD-05 it ${c.name}: InternalError on JSON-RPC, REST and gRPC and in the 0.3 forms, never a partial card; onError is told`, async () => {
      fail = c.make;
      s.errors.length = 0;
      const leaks = (text: string) => /supportedInterfaces|half a card|secret|downstream|\n\s+at /.test(text);
      for (const b of s.bindings) {
        const r = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': ALICE } });
        assert.ok(!r.ok, `${b.name}: ${JSON.stringify(r.ok ? r.result : '')}`);
        assert.equal(r.error.reason, 'INTERNAL', b.name);
        if (b.name === 'JSONRPC') assert.equal(r.error.jsonRpcCode, -32603);
        if (b.name === 'HTTP+JSON') assert.equal(r.status, 500);
        if (b.name === 'GRPC') assert.equal(r.error.grpcStatus, 'INTERNAL');
        assert.ok(!leaks(JSON.stringify(r.error.raw)), `${b.name}: ${JSON.stringify(r.error.raw)}`);
      }
      const rpc = await jsonRpc03(s.agent, ALICE);
      assert.equal(rpc.result, undefined);
      assert.equal(rpc.error?.code, -32603);
      const rest = await rest03(s.agent, ALICE);
      assert.equal(rest.status, 500);
      assert.ok(!leaks(rest.text), rest.text);
      const grpc = await grpc03(s.agent, ALICE);
      assert.equal(grpc.card, undefined);
      assert.equal(grpc.error?.code, 13, 'INTERNAL');
      // One report per call (three 1.0 calls, three 0.3 calls), with the failure itself.
      assert.equal(s.errors.length, 6, s.errors.map(String).join('\n'));
      for (const e of s.errors) assert.match((e as Error).message, c.reported);
    });
  }
});

test('XCARD-05 createA2AHandler: a function returning a card without its interfaces is answered with InternalError, reported to onError', async () => {
  const errors: unknown[] = [];
  const agentCard = withInterfaces(publicCard(), URLS);
  const handler = createA2AHandler({ agentCard, executor: echoPrincipal, extendedAgentCard: () => publicCard() as AgentCard, auth: 'external', onError: (e) => errors.push(e) });
  const res = await handler.fetch(new Request('http://127.0.0.1/a2a/rest/extendedAgentCard', { headers: { 'a2a-version': '1.0' } }));
  assert.equal(res.status, 500);
  assert.doesNotMatch(await res.text(), /supportedInterfaces|skills/);
  assert.equal(errors.length, 1);
  assert.match((errors[0] as Error).message, /^The card extendedAgentCard\(ctx\) returned is not a complete Agent Card \(CARD-03, XCARD-05\): extendedAgentCard\.supportedInterfaces is required$/);
});

test('XCARD-04 XCARD-05 tenants: a tenant\'s extendedCard function answers its caller the tenant\'s complete card with the tenant\'s interfaces', async () => {
  const agent = await serveAgent({
    tenants: { acme: { card: publicCard(), executor: echoPrincipal, extendedCard: perCaller }, beta: { card: publicCard(), executor: echoPrincipal } },
    port: 0,
    host: '127.0.0.1',
    handler: { auth: { schemes: { key: { keys: { [ALICE]: 'alice' } } } } },
  });
  try {
    const rpc = jsonRpcCaller(`${agent.url}/a2a/jsonrpc`);
    const r = await rpc.call('getExtendedAgentCard', { tenant: 'acme' }, { headers: { 'x-api-key': ALICE } });
    assert.ok(r.ok, JSON.stringify(r.ok ? '' : r.error.raw));
    assert.equal(r.result.description, 'extended for alice');
    assert.deepEqual(r.result.supportedInterfaces, agent.cards.get('acme')?.supportedInterfaces);
    assert.ok((r.result.supportedInterfaces as { tenant: string }[]).every((i) => i.tenant === 'acme'));
  } finally {
    await agent.close();
  }
});
