/**
 * R19: serveAgent listens before its handler exists (the card lists the bound ports), and an
 * instance gets traffic as soon as its port accepts connections (a rolling deploy, autoscaling).
 * Requests in that window wait for the handler instead of failing with HTTP 500 / gRPC INTERNAL,
 * and on an agent that needs credentials a gRPC call in the window is still authenticated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAgent } from '../../src/node/serveAgent.js';
import { GetTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { jsonToBinary } from '../../src/bindings/grpc/codec.js';
import type { AgentCard } from '../../src/protocol/types.js';
import type { CardSigner } from '../../src/signing/cardSigner.js';
import { demoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { rawCall, type RawOutcome } from '../grpc/wire.js';

const NOT_FOUND = 5;
const UNAUTHENTICATED = 16;

interface EarlyCalls {
  card: Promise<Response>;
  jsonRpc: Promise<Response>;
  grpc: Promise<RawOutcome>;
}

/**
 * A card signer that, while the server is half-started, calls every binding, then takes its time.
 * It is called with each card served (the 1.0 card first, then the 0.3 and hybrid ones): the
 * first call makes the calls, the others return the card.
 */
function earlyCaller(into: { calls?: EarlyCalls }): CardSigner {
  return async (served) => {
    if (into.calls) return served;
    const card = served as unknown as AgentCard;
    const http = new URL(card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')!.url);
    const grpcAddress = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!.url;
    into.calls = {
      card: fetch(new URL('/.well-known/agent-card.json', http)),
      jsonRpc: fetch(http, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-early', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      }),
      grpc: rawCall(grpcAddress, 'GetTask', { body: jsonToBinary(GetTaskRequestSchema, { id: 'no-such-task' }) }),
    };
    // The calls reach the listeners while the handler is still being made.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return served;
  };
}

test('R19 requests that arrive before serveAgent has installed its handler wait for it instead of failing (card, JSON-RPC, gRPC)', async () => {
  const seen: { calls?: EarlyCalls } = {};
  const errors: unknown[] = [];
  const running = await serveAgent({
    agent: { card: demoCard(), executor: demoAgent },
    port: 0,
    grpc: { port: 0 },
    signCard: earlyCaller(seen),
    onError: (error) => errors.push(error),
  });
  try {
    const calls = seen.calls as EarlyCalls;
    const card = await calls.card;
    assert.equal(card.status, 200);
    assert.equal(((await card.json()) as AgentCard).name, demoCard().name);
    const sent = await calls.jsonRpc;
    assert.equal(sent.status, 200);
    const body = (await sent.json()) as { result?: { task?: { status: { state: string } } }; error?: unknown };
    assert.equal(body.error, undefined, JSON.stringify(body.error));
    assert.equal(body.result?.task?.status.state, 'TASK_STATE_COMPLETED');
    const got = await calls.grpc;
    assert.equal(got.code, NOT_FOUND, got.details);
    assert.deepEqual(errors, []);
  } finally {
    await running.close();
  }
});

test('R19 a gRPC call that arrives before the handler is installed is authenticated like any other (SEC-02)', async () => {
  const seen: { calls?: EarlyCalls } = {};
  const card = demoCard();
  const secured = {
    ...card,
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
  };
  const running = await serveAgent({
    agent: { card: secured, executor: demoAgent },
    port: 0,
    grpc: { port: 0 },
    signCard: earlyCaller(seen),
    handler: { auth: { schemes: { key: { keys: { 'k-1': 'alice' } } } } },
    onError: () => undefined,
  });
  try {
    const calls = seen.calls as EarlyCalls;
    const got = await calls.grpc;
    assert.equal(got.code, UNAUTHENTICATED, got.details);
    assert.equal((await calls.jsonRpc).status, 401);
    await (await calls.card).body?.cancel();
  } finally {
    await running.close();
  }
});
