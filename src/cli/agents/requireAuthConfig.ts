/** `a2a serve` without --auth-config: an agent whose card requires authentication is a setup mistake (exit 2). */
import type { AgentDefinition } from '../../server/agentDefinition.js';
import { declaresSecurity } from '../../server/createA2AHandler.js';
import { CliError, EXIT } from '../errors.js';

/** Throws when one of `agents` (by tenant name, or `agent`) has securityRequirements. */
export function requireAuthConfig(agents: Record<string, AgentDefinition>): void {
  for (const [name, agent] of Object.entries(agents)) {
    if (!declaresSecurity(agent.card)) continue;
    const whose = name === '' ? "The agent's card" : `The card of tenant "${name}"`;
    throw new CliError(`${whose} requires authentication (securityRequirements): give --auth-config FILE saying how to verify each scheme (see docs/security.md)`, EXIT.USAGE);
  }
}
