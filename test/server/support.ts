/** Fixtures for in-process request-handler tests: a minimal card and call contexts. */
import type { Principal } from '../../src/auth/principal.js';
import type { AgentCard, AgentCapabilities } from '../../src/protocol/types.js';
import type { CallContext } from '../../src/server/requestHandler.js';

/** A minimal 1.0 card (one JSON-RPC interface) with the given name and capabilities. */
export function testCard(name: string, capabilities: AgentCapabilities = { streaming: true }): AgentCard {
  return {
    name,
    description: 'd',
    version: '1',
    supportedInterfaces: [{ url: 'http://localhost/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** A 1.0 call context, authenticated as `id` when given, from `remoteAddress` when given. */
export function callAs(id?: string, remoteAddress?: string): CallContext {
  const principal: Principal | undefined = id ? { id, scheme: 'test', scopes: [], claims: {} } : undefined;
  return { protocolVersion: '1.0', requestedExtensions: [], ...(principal ? { principal } : {}), ...(remoteAddress ? { remoteAddress } : {}) };
}
