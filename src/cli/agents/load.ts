/** Resolves `--agent demo|conformance|<path>` to an AgentDefinition. */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { AgentDefinition } from '../../server/agentDefinition.js';
import { conformanceAgent, conformanceCard } from './conformance.js';
import { demoAgent, demoCard } from './demo.js';

export async function loadAgent(name: string): Promise<AgentDefinition> {
  if (name === 'demo') return { card: demoCard(), executor: demoAgent };
  if (name === 'conformance') return { card: conformanceCard(), executor: conformanceAgent };
  const mod = (await import(pathToFileURL(resolve(name)).href)) as Record<string, unknown>;
  const candidate = (mod.default ?? mod.agent ?? mod) as Partial<AgentDefinition>;
  if (!candidate || typeof candidate !== 'object' || !candidate.card || typeof candidate.executor?.execute !== 'function') {
    throw new Error(`${name} must export (default or "agent") an object { card, executor } — see docs/agents.md`);
  }
  return candidate as AgentDefinition;
}
