/** Resolves `--agent demo|conformance|<path>` to an AgentDefinition, and `--tenants FILE` to several. */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import type { AgentDefinition } from '../../server/agentDefinition.js';
import { checkTenantName } from '../../server/tenantRouter.js';
import { conformanceAgent, conformanceCard } from './conformance.js';
import { demoAgent, demoCard } from './demo.js';

const BUILTIN = new Set(['demo', 'conformance']);

export async function loadAgent(name: string): Promise<AgentDefinition> {
  if (name === 'demo') return { card: demoCard(), executor: demoAgent };
  if (name === 'conformance') return { card: conformanceCard(), executor: conformanceAgent };
  const mod = (await import(pathToFileURL(resolve(name)).href)) as Record<string, unknown>;
  const candidate = (mod.default ?? mod.agent ?? mod) as Partial<AgentDefinition>;
  if (!isAgent(candidate)) {
    throw new Error(`${name} must export (default or "agent") an object { card, executor } — see docs/agents.md`);
  }
  return candidate;
}

function isAgent(value: unknown): value is AgentDefinition {
  const candidate = value as Partial<AgentDefinition> | null;
  return !!candidate && typeof candidate === 'object' && !!candidate.card && typeof candidate.executor?.execute === 'function';
}

export interface LoadedTenants {
  tenants: Record<string, AgentDefinition>;
  defaultTenant?: string;
}

/**
 * `--tenants FILE`: a JSON file or a module mapping tenant → agent, either flat
 * (`{"acme": "./acme.ts", "demo": "demo"}`) or as `{"tenants": {...}, "defaultTenant": "acme"}`.
 * An agent is `demo`, `conformance` or a module path relative to FILE; a module may also give
 * agent objects ({ card, executor }) directly. See docs/tenants.md.
 */
export async function loadTenants(file: string): Promise<LoadedTenants> {
  const path = resolve(file);
  let raw: unknown;
  if (/\.json$/i.test(path)) {
    try {
      raw = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new Error(`${file}: ${error instanceof Error ? error.message : 'unreadable'}`);
    }
  } else {
    const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    raw = mod.default ?? mod;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(raw)) throw new Error(`${file}: expected an object of tenant names`);
  const nested = isObject(raw.tenants);
  const entries = nested ? (raw.tenants as Record<string, unknown>) : raw;
  const defaultTenant = nested ? raw.defaultTenant : undefined;
  if (defaultTenant !== undefined && typeof defaultTenant !== 'string') throw new Error(`${file}: "defaultTenant" must be a tenant name`);
  const tenants: Record<string, AgentDefinition> = {};
  for (const [name, spec] of Object.entries(entries)) {
    try {
      checkTenantName(name);
    } catch (error) {
      throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof spec === 'string') tenants[name] = await loadAgent(BUILTIN.has(spec) ? spec : resolve(dirname(path), spec));
    else if (isAgent(spec)) tenants[name] = spec;
    else throw new Error(`${file}: tenant "${name}" must name an agent (demo, conformance or a module path) or be { card, executor }`);
  }
  if (Object.keys(tenants).length === 0) throw new Error(`${file}: no tenants`);
  if (defaultTenant !== undefined && !Object.hasOwn(tenants, defaultTenant)) throw new Error(`${file}: defaultTenant "${defaultTenant}" is not one of the tenants`);
  return { tenants, ...(defaultTenant !== undefined ? { defaultTenant } : {}) };
}
