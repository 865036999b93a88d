/** Agents for the multi-tenancy tests. */
import { demoCard } from '../../src/cli/agents/demo.js';
import type { AgentDefinition } from '../../src/server/agentDefinition.js';

/** An agent that answers every message with a completed task whose artifact names it and the tenant. */
export function namedAgent(name: string, skill: string): AgentDefinition {
  const base = demoCard();
  return {
    card: { ...base, name, description: `${name} (test)`, skills: [{ id: skill, name: skill, description: skill, tags: [skill] }] },
    executor: {
      async execute(ctx, task) {
        await task.addArtifact(`${name}|${ctx.tenant}|${ctx.text}`);
        await task.complete();
      },
    },
  };
}
