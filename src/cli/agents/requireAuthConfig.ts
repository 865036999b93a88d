/**
 * `a2a serve` without --auth-config: an agent whose card requires authentication, or that offers
 * an extended Agent Card (only for authenticated callers, A2A §13.3), is a setup mistake (exit 2).
 */
import { servesExtendedCard, type AgentDefinition } from '../../server/agentDefinition.js';
import { declaresSecurity } from '../../server/createA2AHandler.js';
import { CliError, EXIT } from '../errors.js';

/** Throws when one of `agents` (by tenant name, or `agent`) has securityRequirements or an extended card. */
export function requireAuthConfig(agents: Record<string, AgentDefinition>): void {
  for (const [name, agent] of Object.entries(agents)) {
    const whose = name === '' ? "The agent's card" : `The card of tenant "${name}"`;
    if (declaresSecurity(agent.card)) {
      throw new CliError(`${whose} requires authentication (securityRequirements): give --auth-config FILE saying how to verify each scheme (see docs/security.md)`, EXIT.USAGE);
    }
    if (servesExtendedCard(agent)) {
      throw new CliError(
        `${whose} offers an extended Agent Card, which only authenticated callers may read (A2A §13.3): declare securitySchemes on the card and give --auth-config FILE (see docs/security.md)`,
        EXIT.USAGE,
      );
    }
  }
}
