/** Resolves `--agent demo|conformance|<path>` to an AgentDefinition, and `--tenants FILE` to several. */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';
import { agentDefinitionProblems, type AgentDefinition } from '../../server/agentDefinition.js';
import { checkTenantName } from '../../server/tenantRouter.js';
import { conformanceAgent, conformanceCard } from './conformance.js';
import { demoAgent, demoCard } from './demo.js';
import { CliError, EXIT } from '../errors.js';
import { readOptionFile } from '../optionFile.js';
import { moduleFormatHint } from './moduleFormatHint.js';
import { missingLoaderMessage, needsTypeScriptLoader, registerTypeScriptLoader } from './typescriptLoader.js';

const BUILTIN = new Set(['demo', 'conformance']);

/** A setup mistake in --agent or --tenants: one line, exit 2. */
const setupError = (message: string) => new CliError(message, EXIT.USAGE);

/** `--agent NAME`; `what` names it in errors (`--agent ./x.ts`, or a tenant of --tenants). */
export async function loadAgent(name: string, what = `--agent ${name}`): Promise<AgentDefinition> {
  if (name === 'demo') return { card: demoCard(), executor: demoAgent };
  if (name === 'conformance') return { card: conformanceCard(), executor: conformanceAgent };
  const mod = await importModule(resolve(name), what);
  return checkedAgent(mod.default ?? mod.agent ?? mod, what, `${what} must export (default or "agent") ${SHAPE}`);
}

const SHAPE = 'an object { card, executor } — see docs/agents.md';

/**
 * `value` as an agent, or a one-line setup error: the generic one when nothing of an agent is
 * there, else what is wrong (`executor.execute is not a function`, `card.version is required`).
 */
function checkedAgent(value: unknown, what: string, generic: string): AgentDefinition {
  const problems = agentDefinitionProblems(value);
  if (problems.length === 0) return value as AgentDefinition;
  const partial = typeof value === 'object' && value !== null && ('card' in value || 'executor' in value);
  if (!partial) throw setupError(generic);
  throw setupError(`${what}: ${problems.join('; ')} (expected ${SHAPE})`);
}

/** Imports a user module; a missing file or one that fails to load is a setup error. */
async function importModule(path: string, what: string): Promise<Record<string, unknown>> {
  if (needsTypeScriptLoader(path)) await registerTypeScriptLoader(path);
  try {
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    if (!existsSync(path)) throw setupError(`${what}: no such file (${path})`);
    const missingLoader = missingLoaderMessage(path, error);
    if (missingLoader) throw setupError(`${what}: ${missingLoader}`);
    const hint = moduleFormatHint(path, error);
    throw setupError(`${what}: the module failed to load: ${error instanceof Error ? error.message : String(error)}${hint ? ` (${hint})` : ''}`);
  }
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
  const what = `--tenants ${file}`;
  let raw: unknown;
  if (/\.json$/i.test(path)) {
    const text = readOptionFile('--tenants', file).toString('utf8');
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw setupError(`${what}: not JSON (${error instanceof Error ? error.message : 'unreadable'})`);
    }
  } else {
    const mod = await importModule(path, what);
    raw = mod.default ?? mod;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(raw)) throw setupError(`${what}: expected an object of tenant names`);
  const nested = isObject(raw.tenants);
  const entries = nested ? (raw.tenants as Record<string, unknown>) : raw;
  const defaultTenant = nested ? raw.defaultTenant : undefined;
  if (defaultTenant !== undefined && typeof defaultTenant !== 'string') throw setupError(`${what}: "defaultTenant" must be a tenant name`);
  const tenants: Record<string, AgentDefinition> = {};
  for (const [name, spec] of Object.entries(entries)) {
    try {
      checkTenantName(name);
    } catch (error) {
      throw setupError(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof spec === 'string') tenants[name] = await loadAgent(BUILTIN.has(spec) ? spec : resolve(dirname(path), spec), `${what}: tenant "${name}" (${spec})`);
    else tenants[name] = checkedAgent(spec, `${what}: tenant "${name}"`, `${what}: tenant "${name}" must name an agent (demo, conformance or a module path) or be { card, executor }`);
  }
  if (Object.keys(tenants).length === 0) throw setupError(`${what}: no tenants`);
  if (defaultTenant !== undefined && !Object.hasOwn(tenants, defaultTenant)) throw setupError(`${what}: defaultTenant "${defaultTenant}" is not one of the tenants`);
  return { tenants, ...(defaultTenant !== undefined ? { defaultTenant } : {}) };
}
