/** An agent as a module can export it: the card (without interfaces, which the host fills) and the executor. */
import type { AgentCard } from '../protocol/types.js';
import type { AgentExecutor } from './agentExecutor.js';
import { agentCardProblems, requireCompleteCard } from './cardProblems.js';
import type { ExtendedCardSource } from './extendedCard.js';

export type AgentCardBase = Omit<AgentCard, 'supportedInterfaces'> & { supportedInterfaces?: AgentCard['supportedInterfaces'] };

export interface AgentDefinition {
  card: AgentCardBase;
  executor: AgentExecutor;
  /**
   * Served by GetExtendedAgentCard when the card declares capabilities.extendedAgentCard: a
   * complete card (XCARD-05; checked at start like `card`), or `(ctx) => card` (or a promise of
   * one), made per call for the authenticated caller (`ctx.principal`, XCARD-04) and checked then.
   * Either way the host writes its `supportedInterfaces` and signs it as it does `card`.
   */
  extendedCard?: ExtendedCardSource<AgentCardBase>;
  /**
   * Several instances: when the instance running a task dies, another may run the executor again
   * on the task (`ctx.task` set, same last user message). Default false: the task becomes FAILED.
   */
  resumable?: boolean;
}

/** Identity helper that gives agent modules type checking: `export default defineAgent({...})`. */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  return definition;
}

/**
 * What is wrong with `value` as an AgentDefinition, one phrase per problem (none: it is one):
 * `executor.execute is not a function`, or the violations of its card, and of its extended card
 * when that is a card, as the request decoder finds them (`card.description is required`,
 * `extendedCard.skills is required`), their `supportedInterfaces` excepted (the host adds them)
 * and empty lists tolerated (a card without skills is served as it is).
 */
export function agentDefinitionProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return ['it is not an object'];
  const { card, executor, extendedCard } = value as { card?: unknown; executor?: unknown; extendedCard?: unknown };
  const problems: string[] = [];
  if (card === undefined) problems.push('card is missing');
  else problems.push(...agentCardProblems(card, { path: 'card', interfaces: 'added' }));
  if (extendedCard !== undefined && typeof extendedCard !== 'function') problems.push(...agentCardProblems(extendedCard, { path: 'extendedCard', interfaces: 'added' }));
  if (executor === undefined) problems.push('executor is missing');
  else if (typeof (executor as { execute?: unknown } | null)?.execute !== 'function') problems.push('executor.execute is not a function');
  return problems;
}

/**
 * Throws when the agent's extendedCard is a card, but not a complete one (XCARD-05, CARD-03);
 * `whose` leads the message (`tenant "acme": `). A function is checked per call.
 */
export function checkExtendedCard(agent: Pick<AgentDefinition, 'extendedCard'>, whose = ''): void {
  const source = agent.extendedCard;
  if (source === undefined || typeof source === 'function') return;
  requireCompleteCard(source, { path: 'extendedCard', interfaces: 'added', what: `${whose}extendedCard` });
}

export interface InterfaceUrls {
  /** Absolute base URL of the HTTP listener, e.g. http://localhost:8080. */
  httpBaseUrl: string;
  jsonRpcPath: string | null;
  restPath: string | null;
  /** host:port of the gRPC listener, when there is one. */
  grpcAddress?: string;
  /** Multi-tenancy: every interface carries this tenant, which clients copy into each request (TENANT-02). */
  tenant?: string;
}

/**
 * OPS-02 / CARD-04: every binding served, absolute URLs, preference order JSON-RPC, REST, gRPC;
 * with `urls.tenant`, each interface carries it (the REST URL stays the base: clients add the
 * `/{tenant}` prefix, TENANT-04).
 */
export function withInterfaces(card: AgentCardBase, urls: InterfaceUrls): AgentCard {
  const base = urls.httpBaseUrl.replace(/\/$/, '');
  const interfaces: AgentCard['supportedInterfaces'] = [];
  const tenant = urls.tenant ? { tenant: urls.tenant } : {};
  if (urls.jsonRpcPath !== null) interfaces.push({ url: base + urls.jsonRpcPath, protocolBinding: 'JSONRPC', protocolVersion: '1.0', ...tenant });
  if (urls.restPath !== null) interfaces.push({ url: base + urls.restPath, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', ...tenant });
  if (urls.grpcAddress) interfaces.push({ url: urls.grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', ...tenant });
  return { ...card, supportedInterfaces: interfaces };
}

/** The agent offers an extended Agent Card: declared on its card and given (§13.3: only for authenticated callers). */
export function servesExtendedCard(agent: Pick<AgentDefinition, 'card' | 'extendedCard'>): boolean {
  return agent.card.capabilities?.extendedAgentCard === true && agent.extendedCard !== undefined;
}
