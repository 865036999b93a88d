/**
 * `a2a-kit/client/v03`, kept for compatibility. A2A 0.3 agents no longer need it: the built-in
 * JSONRPC and HTTP+JSON transports speak 0.3 themselves (dualVersion.ts), loading the
 * translation on first use, and `createClient` reads 0.3 cards. `v03Transport` is the built-in
 * JSON-RPC factory (1.0 and 0.3), with the 0.3 card reader it used to carry; passing it in
 * `transports` changes nothing.
 */
import { readV03Card } from './cardResolver.js';
import { jsonRpcTransport } from './jsonrpcTransport.js';
import type { TransportFactory } from './transport.js';

/** @deprecated The built-in transports speak A2A 0.3: `createClient(url)` is enough. */
export const v03Transport: TransportFactory = {
  ...jsonRpcTransport,
  readCard: (card) => readV03Card(card),
};

export { readV03Card };
