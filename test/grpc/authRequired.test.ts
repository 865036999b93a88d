/**
 * SEC-02 / XCARD-03 on a gRPC service built by hand (createGrpcService / serveGrpc without
 * `auth`): as createA2AHandler, a card that declares security requirements, or a handler that
 * serves an extended card, is refused when nothing says how callers are authenticated — at
 * construction, or (handler installed later) on every call until it is fixed. `auth: 'external'`
 * says a gateway does. Before, such a service answered everyone, extended card included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { credentials, Metadata, makeGenericClientConstructor, status, type ServiceError } from '@grpc/grpc-js';
import { createGrpcService } from '../../src/bindings/grpc/server.js';
import { serveGrpc } from '../../src/bindings/grpc/listener.js';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { testCard } from '../server/support.js';

const executor: AgentExecutor = { execute: async (_c, task) => task.complete('ok') };
const extended = (): A2ARequestHandler => {
  const card = testCard('extended', { extendedAgentCard: true });
  return new A2ARequestHandler({ agentCard: card, executor, extendedAgentCard: { ...card, name: 'secret skills' } });
};
const secured = (): A2ARequestHandler => {
  const card: AgentCard = {
    ...testCard('secured'),
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } } },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
  };
  return new A2ARequestHandler({ agentCard: card, executor });
};

test('XCARD-03 SEC-02 createGrpcService without auth refuses a handler serving an extended card, or whose card requires a scheme', () => {
  assert.throws(() => createGrpcService(extended()), /extended Agent Card .* only authenticated callers/);
  assert.throws(() => createGrpcService(secured()), /declares securityRequirements/);
  // Said explicitly: a gateway authenticates.
  assert.doesNotThrow(() => createGrpcService(extended(), { auth: 'external' }));
  assert.doesNotThrow(() => createGrpcService(secured(), { auth: 'external' }));
  // A plain agent needs nothing.
  assert.doesNotThrow(() => createGrpcService(new A2ARequestHandler({ agentCard: testCard('plain'), executor })));
});

test('XCARD-03 a handler installed after serveGrpc (no auth) answers no call, the extended card included, and says why to onError', async () => {
  const errors: unknown[] = [];
  const handler = extended();
  const running = await serveGrpc(() => handler, { port: 0, host: '127.0.0.1', onError: (e) => errors.push(e) });
  const Client = makeGenericClientConstructor({}, 'A2AService');
  const client = new Client(`127.0.0.1:${running.port}`, credentials.createInsecure());
  const call = (method: string) =>
    new Promise<ServiceError | undefined>((resolve) => {
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      client.makeUnaryRequest(`/lf.a2a.v1.A2AService/${method}`, (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), metadata, (error: ServiceError | null) => resolve(error ?? undefined));
    });
  try {
    for (const method of ['GetExtendedAgentCard', 'GetExtendedAgentCard', 'ListTasks']) {
      const error = await call(method);
      assert.equal(error?.code, status.INTERNAL, `${method}: refused`);
    }
    assert.ok(errors.length >= 3, 'each refusal was reported');
    assert.match(String((errors[0] as Error).message), /extended Agent Card/);
  } finally {
    client.close();
    await running.close();
  }
});
