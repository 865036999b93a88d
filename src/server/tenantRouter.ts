/**
 * Multi-tenancy (issue 8, TENANT rules): several agents behind one set of endpoints. Each tenant
 * has its own card, executor and A2ARequestHandler; all share one task store and event bus, whose
 * records are keyed by tenant (TENANT-06). The router offers the request handler's surface
 * (`unary`, `stream`, `agentCard`, `drain`), so every binding can use it unchanged, and picks the
 * tenant's handler from the request's `tenant` field — JSON-RPC `params.tenant`, the gRPC request
 * field, or the REST `/{tenant}/…` path prefix, which the REST binding copies into the request.
 *
 * A request without `tenant` goes to `defaultTenant` (and is stored under that tenant's name, so
 * the same task is reachable with and without the prefix); without a default it is refused. An
 * unknown tenant is InvalidParams on the `tenant` field (TENANT-07 allows -32602); the error never
 * lists the tenants this server hosts.
 */
import { invalidField } from '../protocol/errors.js';
import { RESERVED_TENANT_NAMES, RESERVED_TENANT_PROBLEM, isReservedTenantName } from '../protocol/tenantNames.js';
import type { AbuseLimits } from './abuseLimits.js';
import type { AgentCard, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import type { PushRuntime, PushRuntimeFactory } from '../push/pushOptions.js';
import { checkExtendedCard, withInterfaces, type AgentCardBase, type AgentDefinition, type InterfaceUrls } from './agentDefinition.js';
import { finishExtendedCard } from './extendedCard.js';
import { LocalEventBus, type EventBus } from './eventBus.js';
import { logError } from './errorHook.js';
import { warnLocalBusOnSharedStore } from './sharedStoreCheck.js';
import { A2ARequestHandler, type CallContext, type RequestHandlerOptions } from './requestHandler.js';
import { MemoryTaskStore } from './stores/memoryStore.js';
import { isLeaseStore, type LeaseStore } from './stores/leaseStore.js';
import type { TaskStore } from './stores/taskStore.js';
import type { StreamItem } from './taskStream.js';
import { CallObserver } from './callObserver.js';

/** What the bindings call: an A2ARequestHandler or a TenantRouter. */
export type RequestHandlerLike = Pick<A2ARequestHandler, 'unary' | 'stream' | 'agentCard' | 'drain'> & Partial<Pick<A2ARequestHandler, 'abuseLimits' | 'calls' | 'runsActive'>>;

export interface TenantRouterOptions extends Omit<RequestHandlerOptions, 'agentCard' | 'executor' | 'extendedAgentCard' | 'resumable'> {
  /**
   * Tenant name → agent. Names are URL path segments: letters, digits, `.`, `_`, `~`, `-` (at most
   * 64), never one of the REST literals (`tasks`, `message:send`, … TENANT-08).
   */
  tenants: Record<string, AgentDefinition>;
  /** Serves requests that carry no `tenant` (and the card at the root well-known path). */
  defaultTenant?: string;
  /**
   * Where the bindings listen: each tenant's card (and extended card) gets one interface per
   * binding, all carrying `tenant`. Without it the cards' own `supportedInterfaces` are used, with
   * `tenant` added to interfaces that lack one.
   */
  interfaces?: Omit<InterfaceUrls, 'tenant'>;
}

const TENANT_NAME = /^[A-Za-z0-9._~-]{1,64}$/;

/** Throws when `name` cannot be a tenant (not a plain path segment, or a reserved literal). */
export function checkTenantName(name: string): void {
  if (!TENANT_NAME.test(name) || isReservedTenantName(name)) {
    throw new Error(
      `Tenant ${JSON.stringify(name)}: use 1-64 letters, digits, ".", "_", "~" or "-", other than "." and "..", and none of ${RESERVED_TENANT_NAMES.map((r) => JSON.stringify(r)).join(', ')}`,
    );
  }
}

/** The card with interfaces for `tenant` (TENANT-02: clients copy it into every request). */
export function tenantCard(card: AgentCardBase, target: { tenant: string; interfaces?: Omit<InterfaceUrls, 'tenant'> | undefined }): AgentCard {
  if (target.interfaces) return withInterfaces(card, { ...target.interfaces, tenant: target.tenant });
  const interfaces = (card.supportedInterfaces ?? []).map((i) => (i.tenant ? i : { ...i, tenant: target.tenant }));
  return { ...card, supportedInterfaces: interfaces };
}

export class TenantRouter {
  readonly store: TaskStore;
  readonly bus: EventBus;
  readonly defaultTenant: string | undefined;
  /** Each tenant's public card, as served at `/{tenant}/.well-known/agent-card.json`. */
  readonly cards: ReadonlyMap<string, AgentCard>;
  private readonly handlers: ReadonlyMap<string, A2ARequestHandler>;
  private readonly fallback: A2ARequestHandler;
  /**
   * Observes every call for options.onCall (a request for an unknown tenant too): the tenants'
   * handlers get no hook of their own, their decoded requests add to this observation.
   */
  readonly calls: CallObserver | undefined;

  constructor(options: TenantRouterOptions) {
    const names = Object.keys(options.tenants);
    if (names.length === 0) throw new Error('tenants: at least one tenant is needed');
    for (const name of names) checkTenantName(name);
    if (options.defaultTenant !== undefined && !Object.hasOwn(options.tenants, options.defaultTenant)) {
      throw new Error(`defaultTenant ${JSON.stringify(options.defaultTenant)} is not one of the tenants`);
    }
    this.defaultTenant = options.defaultTenant;
    this.store = options.store ?? new MemoryTaskStore();
    this.bus = options.bus ?? new LocalEventBus();
    warnLocalBusOnSharedStore({ store: this.store, busGiven: options.bus !== undefined, onError: options.onError ?? logError });
    const { tenants: _tenants, defaultTenant: _default, interfaces, onCall, ...shared } = options;
    this.calls = onCall ? new CallObserver(onCall, options.onError ?? logError) : undefined;
    const push = options.push?.runtime ? { ...options.push, runtime: sharedRuntime(options.push.runtime) } : options.push;
    const leaseStore = options.leases ? (options.leases.store ?? this.store) : undefined;
    if (leaseStore && !isLeaseStore(leaseStore)) throw new Error('leases: the task store cannot keep execution leases');
    const handlers = new Map<string, A2ARequestHandler>();
    const cards = new Map<string, AgentCard>();
    for (const name of names) {
      const agent = options.tenants[name] as AgentDefinition;
      checkExtendedCard(agent, `tenant ${JSON.stringify(name)}: `);
      const card = tenantCard(agent.card, { tenant: name, interfaces });
      cards.set(name, card);
      handlers.set(
        name,
        new A2ARequestHandler({
          ...shared,
          store: this.store,
          bus: this.bus,
          ...(push ? { push } : {}),
          // Each tenant's lease keeper takes over only its own tenant's tasks (its executor's).
          ...(options.leases && leaseStore ? { leases: { ...options.leases, store: tenantLeases(leaseStore as LeaseStore, name) } } : {}),
          agentCard: card,
          executor: agent.executor,
          ...(agent.extendedCard ? { extendedAgentCard: finishExtendedCard(agent.extendedCard, (c) => tenantCard(c, { tenant: name, interfaces })) } : {}),
          ...(agent.resumable ? { resumable: true } : {}),
        }),
      );
    }
    this.cards = cards;
    this.handlers = handlers;
    this.fallback = handlers.get(options.defaultTenant ?? (names[0] as string)) as A2ARequestHandler;
  }

  /**
   * The default tenant's card (else the first tenant's). Bindings read it for the A2A-Extensions
   * response header and, with one authenticator for all tenants, the security requirements.
   */
  get agentCard(): AgentCard {
    return this.fallback.agentCard;
  }

  /**
   * The abuse limits failed authentications are charged to (SEC-06): the default (else first)
   * tenant's, as authentication runs before the tenant is known. Every tenant has the same settings.
   */
  get abuseLimits(): AbuseLimits | undefined {
    return this.fallback.abuseLimits;
  }

  /** Some tenant serves an extended Agent Card (see A2ARequestHandler.servesExtendedCard). */
  get servesExtendedCard(): boolean {
    return [...this.handlers.values()].some((h) => h.servesExtendedCard);
  }

  get tenantNames(): string[] {
    return [...this.handlers.keys()];
  }

  /** The tenant's request handler, or undefined. */
  handler(tenant: string): A2ARequestHandler | undefined {
    return this.handlers.get(tenant);
  }

  async unary<K extends UnaryOperationName>(op: K, params: unknown, ctx: CallContext): Promise<OperationResponses[K]> {
    if (this.calls === undefined) return this.routeUnary(op, params, ctx);
    return this.calls.unary(op, ctx, () => this.routeUnary(op, params, ctx));
  }

  async stream(op: StreamingOperationName, params: unknown, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    if (this.calls === undefined) return this.routeStream(op, params, ctx);
    return (await this.calls.stream(op, ctx, () => this.routeStream(op, params, ctx))).abortWhen(ctx);
  }

  /** Agent runs in progress, over all tenants. */
  get runsActive(): number {
    let runs = 0;
    for (const handler of this.handlers.values()) runs += handler.runsActive;
    return runs;
  }

  private async routeUnary<K extends UnaryOperationName>(op: K, params: unknown, ctx: CallContext): Promise<OperationResponses[K]> {
    const target = this.route(params);
    return target.handler.unary(op, target.params, ctx);
  }

  private async routeStream(op: StreamingOperationName, params: unknown, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
    const target = this.route(params);
    return target.handler.stream(op, target.params, ctx);
  }

  /** Drains every tenant's handler (graceful shutdown). */
  async drain(timeoutMs: number): Promise<void> {
    await Promise.all([...this.handlers.values()].map((h) => h.drain(timeoutMs)));
  }

  /** The handler of the request's tenant, and the parameters with the tenant made explicit. */
  private route(params: unknown): { handler: A2ARequestHandler; params: unknown } {
    // Not an object: the handler's decoder answers with the usual error.
    if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) return { handler: this.fallback, params };
    const fields = (params ?? {}) as Record<string, unknown>;
    const given = Object.hasOwn(fields, 'tenant') ? fields.tenant : undefined;
    if (given !== undefined && typeof given !== 'string') throw invalidField('tenant', 'must be a string');
    const name = given || this.defaultTenant;
    if (!name) throw invalidField('tenant', 'is required: this server hosts several agents');
    const handler = this.handlers.get(name);
    if (!handler) throw invalidField('tenant', isReservedTenantName(name) ? RESERVED_TENANT_PROBLEM : 'names no agent on this server');
    return { handler, params: given === name ? params : { ...fields, tenant: name } };
  }
}

export function createTenantRouter(options: TenantRouterOptions): TenantRouter {
  return new TenantRouter(options);
}

export function isTenantRouter(handler: unknown): handler is TenantRouter {
  return handler instanceof TenantRouter;
}

/**
 * One push runtime (config service and delivery worker) for all tenants: the outbox is shared, so
 * one worker delivers every tenant's notifications.
 */
function sharedRuntime(factory: PushRuntimeFactory): PushRuntimeFactory {
  let runtime: PushRuntime | undefined;
  return (input) => (runtime ??= factory(input));
}

/**
 * The lease store as one tenant's keeper sees it: takeover candidates of this tenant only, so a
 * dead instance's task is re-run (or failed) by its own tenant's executor.
 */
function tenantLeases(store: LeaseStore, tenant: string): LeaseStore {
  return {
    acquireLease: (input) => store.acquireLease(input),
    renewLeases: (owner, ttlMs) => store.renewLeases(owner, ttlMs),
    releaseLease: (t, taskId, owner) => store.releaseLease(t, taskId, owner),
    // Other tenants' keepers take theirs, so a page full of them is drained by the next sweeps.
    expiredLeases: async (limit) => (await store.expiredLeases(limit * 4)).filter((l) => l.tenant === tenant).slice(0, limit),
    takeOverLease: (input) => store.takeOverLease(input),
  };
}

/** Security must be the same on every tenant's card while one authenticator serves them all. */
export function checkSameSecurity(cards: Iterable<[string, Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>]>): void {
  let first: { name: string; security: string } | undefined;
  for (const [name, card] of cards) {
    const security = JSON.stringify([card.securitySchemes ?? {}, card.securityRequirements ?? []]);
    if (!first) first = { name, security };
    else if (security !== first.security) {
      throw new Error(`Tenants ${JSON.stringify(first.name)} and ${JSON.stringify(name)} declare different securitySchemes/securityRequirements; one server enforces one set for all tenants`);
    }
  }
}
