/**
 * Hooks around every call. `before` runs once per call, before the first attempt: it may read
 * the operation and request, add headers or query parameters, or replace the request. `after`
 * runs once the call settled — for unary operations with the response, for streaming ones when
 * the stream ended, with the last event — or with the error.
 */
import type { AgentCard, AgentInterface, OperationName } from '../protocol/types.js';
import type { TransportCall } from './transport.js';

export interface ClientCall<K extends OperationName = OperationName> extends TransportCall<K> {
  readonly card: AgentCard;
  readonly agentInterface: AgentInterface;
}

export type CallResult = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface Interceptor {
  before?(call: ClientCall): void | Promise<void>;
  after?(call: ClientCall, result: CallResult): void | Promise<void>;
}

/**
 * Credentials for outgoing calls. `apply` runs before every attempt; after an HTTP 401,
 * `refresh` is asked for a fresh credential and the call is repeated once if it returns true.
 */
export interface AuthProvider {
  apply(call: ClientCall): void | Promise<void>;
  refresh?(call: ClientCall): boolean | Promise<boolean>;
}
