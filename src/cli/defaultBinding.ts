/**
 * The bindings the CLI may use for a card when no --binding was given: JSON-RPC and HTTP+JSON,
 * which the client speaks without loading anything, whenever the card offers one of them in a
 * version they speak; else gRPC when the card offers it (the CLI runs on Node, where the gRPC
 * transport is then loaded, lazily, from src/bindings/grpc). Shared by the commands that call
 * the agent (connect.ts) and by `a2a card`, which marks the interface they would use.
 */
import { BUILTIN_TRANSPORTS } from '../client/client.js';
import { selectInterface } from '../client/transport.js';
import type { AgentCard } from '../protocol/types.js';

export const HTTP_BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON'];
export const GRPC_BINDING = 'GRPC';

export function defaultBindings(card: AgentCard): readonly string[] {
  try {
    selectInterface(card, BUILTIN_TRANSPORTS, HTTP_BINDINGS);
    return HTTP_BINDINGS;
  } catch {
    return card.supportedInterfaces.some((i) => i.protocolBinding === GRPC_BINDING) ? [GRPC_BINDING] : HTTP_BINDINGS;
  }
}
