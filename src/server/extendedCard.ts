/**
 * The extended Agent Card (XCARD rules) as an agent gives it: a card, or a function of the call's
 * context that makes it per caller (XCARD-04). Both forms take one path: a host finishes the card
 * (interfaces, tenant, signature) with `finishExtendedCard` — once for a card, per call for a
 * function — and the request handler resolves it with `resolveExtendedCard` for every binding
 * and both protocol versions (GetExtendedAgentCard; 0.3 `agent/getAuthenticatedExtendedCard`,
 * REST `/v1/card`, gRPC GetAgentCard).
 */
import { A2AError } from '../protocol/errors.js';
import type { AgentCard } from '../protocol/types.js';
import type { AgentCardBase } from './agentDefinition.js';
import { requireCompleteCard, type CardCheck } from './cardProblems.js';
import type { CallContext } from './requestHandler.js';

/** A card, or a function making it from the caller's context (`ctx.principal`). */
export type ExtendedCardSource<C> = C | ((ctx: CallContext) => C | Promise<C>);

/**
 * The card a function source makes for this call, checked (XCARD-05: a complete AgentCard, never
 * a partial one). Its failure is the server's, not the caller's: an incomplete card, or an error
 * it throws — an A2AError too (a downstream agent's UNAUTHENTICATED, say), turned into a plain
 * Error — reaches the bindings as a server fault, which they report to onError and answer with
 * the binding's InternalError (no message of the agent's, no stack).
 */
async function cardFromFunction<C>(make: (ctx: CallContext) => C | Promise<C>, call: { ctx: CallContext; check: CardCheck }): Promise<C> {
  let card: C;
  try {
    card = await make(call.ctx);
  } catch (error) {
    if (!A2AError.is(error)) throw error;
    throw new Error(`${call.check.path}(ctx) failed: ${error.message}`, { cause: error });
  }
  requireCompleteCard(card, { ...call.check, what: `The card ${call.check.path}(ctx) returned` });
  return card;
}

/** The extended card of this call: the card, or the function's card for this caller (checked, see cardFromFunction). */
export function resolveExtendedCard(source: ExtendedCardSource<AgentCard>, ctx: CallContext): AgentCard | Promise<AgentCard> {
  return typeof source === 'function' ? cardFromFunction(source, { ctx, check: { path: 'extendedAgentCard', interfaces: 'given' } }) : source;
}

/**
 * An agent's extended card made final by `finish` (interfaces written, tenant, signature): a card
 * now, once; a function per call, on the card it returned once that is checked (the host's
 * `finish` never sees a partial card).
 */
export function finishExtendedCard<T>(source: ExtendedCardSource<AgentCardBase>, finish: (card: AgentCardBase) => T): T | ((ctx: CallContext) => Promise<Awaited<T>>) {
  if (typeof source !== 'function') return finish(source);
  return async (ctx): Promise<Awaited<T>> => await finish(await cardFromFunction(source, { ctx, check: { path: 'extendedCard', interfaces: 'added' } }));
}
