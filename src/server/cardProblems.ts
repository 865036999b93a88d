/**
 * CARD-03 / XCARD-05: is a value a complete Agent Card? The checks an agent module's `card` and
 * `extendedCard` get at start, and an extended card made per call gets before it is served.
 */
import { AgentCardSchema } from '../gen/a2a_pb.js';
import { decodeMessage } from '../protocol/decode.js';
import { InvalidParamsError } from '../protocol/errors.js';
import type { AgentCard } from '../protocol/types.js';

export interface CardCheck {
  /** The card's name in the problems (`card`, `extendedCard`): `card.description is required`. */
  path: string;
  /**
   * 'added': the host writes `supportedInterfaces` (an agent module's cards), so they are not
   * asked for; 'given': the card is served as it is and must list them.
   */
  interfaces: 'added' | 'given';
}

const PLACEHOLDER: AgentCard['supportedInterfaces'] = [{ url: 'http://localhost/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];

/**
 * What keeps `card` from being a complete Agent Card, one phrase per problem as the request
 * decoder finds them (`extendedCard.description is required`); none: it is one. Empty lists are
 * tolerated (a card without skills is served as it is).
 */
export function agentCardProblems(card: unknown, check: CardCheck): string[] {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return [`${check.path} is not an object`];
  try {
    decodeMessage(AgentCardSchema, check.interfaces === 'added' ? { ...card, supportedInterfaces: PLACEHOLDER } : card, { path: check.path });
    return [];
  } catch (error) {
    if (!(error instanceof InvalidParamsError)) throw error;
    return error.fieldViolations.filter((v) => v.description !== 'must not be empty').map((v) => `${v.field} ${v.description}`);
  }
}

/**
 * Throws when `card` is not a complete Agent Card: `${what} is not a complete Agent Card
 * (CARD-03, XCARD-05): extendedCard.name is required; …`. `what` defaults to the path.
 */
export function requireCompleteCard(card: unknown, check: CardCheck & { what?: string }): void {
  const problems = agentCardProblems(card, check);
  if (problems.length > 0) throw new Error(`${check.what ?? check.path} is not a complete Agent Card (CARD-03, XCARD-05): ${problems.join('; ')}`);
}
