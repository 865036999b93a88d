/**
 * A client whose HTTP+JSON interface URL is wrong reports MethodNotFoundError, never
 * TaskNotFoundError: under the REST base the server answers METHOD_NOT_FOUND with ErrorInfo (B11);
 * elsewhere a bare 404 NOT_FOUND Status, which fromRestError reads the same way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type AgentCard } from '../../src/client/index.js';
import { MethodNotFoundError } from '../../src/protocol/errors.js';
import { startServer, type TestServer } from '../support/server.js';

/** The card with its HTTP+JSON interface moved to `url`. */
function restAt(card: AgentCard, url: string): AgentCard {
  return { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'HTTP+JSON').map((i) => ({ ...i, url })) };
}

function methodNotFound(error: unknown): true {
  assert.ok(error instanceof MethodNotFoundError, `expected MethodNotFoundError, got ${String(error)}`);
  return true;
}

describe('a client pointed at a wrong HTTP+JSON URL', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('a path under the REST base that matches no route: MethodNotFoundError', async () => {
    const client = await createClient(restAt(server.card, `${server.restUrl}/v2/api`), { bindings: ['HTTP+JSON'] });
    await assert.rejects(client.getTask({ id: 'x' }), methodNotFound);
    await assert.rejects(client.cancelTask({ id: 'x' }), methodNotFound);
  });

  test('a path outside the bindings (a bare NOT_FOUND without ErrorInfo): MethodNotFoundError', async () => {
    const client = await createClient(restAt(server.card, server.url), { bindings: ['HTTP+JSON'] });
    await assert.rejects(client.getTask({ id: 'x' }), methodNotFound);
  });
});
