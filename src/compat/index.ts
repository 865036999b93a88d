/**
 * The A2A 0.3 ↔ 1.0 compatibility layer: pure, runtime-neutral translations of requests,
 * results, stream events, errors and agent cards in all four directions, the 0.3 method and
 * REST route tables, and version detection. Published as `a2a-kit/compat`. See docs/compat.md.
 */
export type * from './v03Types.js';
export * from './objects.js';
export * from './events.js';
export * from './push.js';
export * from './requests.js';
export * from './results.js';
export * from './card.js';
export * from './errors.js';
export * from './methods.js';
export * from './detect.js';
export * from './card03.js';
export * from './protoJson03.js';
// The 1.0 decoder that validates what requestToV10 returns (docs/compat.md).
export { decodeRequest } from '../protocol/operations.js';
