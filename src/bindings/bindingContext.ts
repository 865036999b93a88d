/**
 * What the HTTP bindings share: the request handler, limits, how service parameters become a
 * CallContext (identical negotiation on every binding, R20), and error reporting.
 */
import type { AuthInput, Authenticator } from '../auth/authConfig.js';
import { authenticateCall } from './authenticateCall.js';
import { V03CardForms } from '../compat/card03.js';
import { responseDialect, type Dialect } from '../compat/detect.js';
import { toA2AError, type A2AError } from '../protocol/errors.js';
import { VERSION_HEADER, activatedExtensions, extensionsHeaderFor, parseLastEventId, requestedExtensions } from '../protocol/serviceParams.js';
import { ServedVersions } from './servedVersions.js';
import type { AgentCard } from '../protocol/types.js';
import type { HttpRequest } from '../server/http/httpTypes.js';
import { isServerFault, type ErrorContext, type ErrorHook } from '../server/errorHook.js';
import type { A2ARequestHandler, CallContext } from '../server/requestHandler.js';
import type { Principal } from '../auth/principal.js';
import type { CallBinding, CallObservation } from '../server/callObserver.js';

/**
 * The A2A-Version a request asks for: the header, else the query parameter (B5), which is parsed
 * only when the header is absent (VER-03). The one reading of both HTTP bindings.
 */
export function versionSignals(req: HttpRequest): { header: string | null; query: string | null } {
  const header = req.header('a2a-version') ?? null;
  return { header, query: header ? null : req.query.get(VERSION_HEADER) };
}

/** Whether a request asks for A2A 0.3 by its version alone: none (VER-05), or one reading 0.3. */
export function asksForV03(req: HttpRequest): boolean {
  return responseDialect(versionSignals(req)) === '0.3';
}

export interface BindingLimits {
  maxBodyBytes: number;
  maxJsonDepth: number;
  heartbeatMs: number;
}

export class BindingContext {
  readonly handler: A2ARequestHandler;
  readonly limits: BindingLimits;
  private readonly versions: ServedVersions;
  private readonly onError: ErrorHook | undefined;
  /** Enforces the card's security requirements (issue 8); absent when nothing is enforced. */
  readonly authenticator: Authenticator | undefined;
  /**
   * Serve A2A 0.3 clients (issue 9) through the same request handler: 0.3 requests (no
   * A2A-Version, or `0.3`) are translated by src/compat. Default true; off, they get
   * VersionNotSupportedError as a 1.0-only server would answer.
   */
  readonly compat03: boolean;
  /** The 0.3 form of the extended card answered to 0.3 calls (default: derived per call, unsigned). */
  readonly v03Cards: V03CardForms;
  private readonly headerCache = new Map<Readonly<Record<string, string>>, Map<string, Readonly<Record<string, string>>>>();
  /**
   * CACHE-06 / §13.3: caching headers of a GetExtendedAgentCard answer. The card is per caller,
   * so only the caller's own cache may keep it, and it varies with the credentials.
   */
  readonly extendedCardHeaders: Readonly<Record<string, string>>;

  constructor(options: {
    handler: A2ARequestHandler;
    limits: BindingLimits;
    supportedVersions: readonly string[];
    onError?: ErrorHook | undefined;
    authenticator?: Authenticator | undefined;
    compat03?: boolean | undefined;
    v03Cards?: V03CardForms | undefined;
    /** Seconds a caller may keep its extended card (default 300). */
    cardMaxAgeSeconds?: number | undefined;
    /** Request headers besides Authorization that carry credentials (API keys): the extended card varies with them. */
    credentialHeaders?: readonly string[] | undefined;
  }) {
    this.handler = options.handler;
    this.limits = options.limits;
    this.onError = options.onError;
    this.authenticator = options.authenticator;
    this.compat03 = options.compat03 ?? true;
    this.versions = new ServedVersions(options.supportedVersions, this.compat03);
    this.v03Cards = options.v03Cards ?? new V03CardForms();
    this.extendedCardHeaders = Object.freeze({
      'cache-control': `private, max-age=${options.cardMaxAgeSeconds ?? 300}`,
      vary: ['Authorization', ...(options.credentialHeaders ?? [])].join(', '),
    });
  }

  /** Headers of a unary answer to `op`: `headersFor`, plus the caching headers of the extended card. */
  unaryHeaders(base: Readonly<Record<string, string>>, ctx: CallContext, op: string): Readonly<Record<string, string>> {
    const headers = this.headersFor(base, ctx);
    return op === 'getExtendedAgentCard' ? { ...headers, ...this.extendedCardHeaders } : headers;
  }

  get card(): AgentCard {
    return this.handler.agentCard;
  }

  /**
   * The call's context, with the negotiated version (VER rules, ServedVersions.negotiate).
   * `compat` comes from a binding that can answer 0.3 requests, with the request's shape.
   */
  callContext(req: HttpRequest, compat: { structure?: Dialect | undefined } | undefined, binding: CallBinding): CallContext {
    const protocolVersion = this.versions.negotiate({ ...versionSignals(req), ...(compat?.structure ? { structure: compat.structure } : {}) }, compat !== undefined);
    const ctx = new HttpCallContext(req, protocolVersion, requestedExtensions(protocolVersion, (name) => req.header(name)));
    ctx.binding = binding;
    ctx.lastEventId = parseLastEventId(req.header('last-event-id'));
    return ctx;
  }

  /**
   * SEC-02: checks the request's credentials (headers, query, TLS client certificate) against
   * the card's requirements for `operation` and puts the caller into `ctx.principal`. Throws
   * AuthError (401/403 with WWW-Authenticate) before the request handler sees the call, or
   * RESOURCE_EXHAUSTED once failed authentications spent the address's budget (SEC-06).
   */
  async authenticate(req: HttpRequest, ctx: CallContext, operation: string): Promise<void> {
    if (!this.authenticator) {
      this.handler.calls?.open(operation, ctx);
      return;
    }
    const input: AuthInput = {
      header: (name) => req.header(name),
      // Parsed only when an API key travels in the query.
      get query() {
        return req.query;
      },
      peerCertificate: req.peerCertificate,
      operation,
    };
    await authenticateCall({ authenticator: this.authenticator, handler: this.handler, input, ctx });
  }

  /**
   * `base` (a binding's constant content-type headers) plus the response headers of the call.
   * Without extensions the answer is one shared, frozen object per (base, version): most
   * responses then build no header object at all. Callers never mutate it.
   */
  headersFor(base: Readonly<Record<string, string>>, ctx: CallContext): Readonly<Record<string, string>> {
    if (ctx.requestedExtensions.length > 0) return { ...base, ...this.responseHeaders(ctx) };
    let byVersion = this.headerCache.get(base);
    if (!byVersion) this.headerCache.set(base, (byVersion = new Map()));
    let headers = byVersion.get(ctx.protocolVersion);
    if (!headers) byVersion.set(ctx.protocolVersion, (headers = Object.freeze({ ...base, ...this.responseHeaders(ctx) })));
    return headers;
  }

  responseHeaders(ctx: CallContext): Record<string, string> {
    const headers: Record<string, string> = { 'a2a-version': ctx.protocolVersion };
    if (ctx.requestedExtensions.length === 0) return headers;
    const active = activatedExtensions(this.card, ctx.requestedExtensions);
    if (active.length > 0) headers[extensionsHeaderFor(ctx.protocolVersion).toLowerCase()] = active.join(', ');
    return headers;
  }

  /**
   * Converts anything thrown to an A2AError, reporting unexpected failures once (a client gone
   * away is none). With the call's `ctx`, a call whose observation no handler call claimed ends
   * here (CallObserver.fail): every error answer of a call passes through this.
   */
  report(error: unknown, context?: ErrorContext, ctx?: CallContext): A2AError {
    if (ctx) this.handler.calls?.fail(ctx, error);
    if (isServerFault(error)) this.onError?.(error, context);
    return toA2AError(error);
  }
}

/**
 * The CallContext of an HTTP request. A class: its lazy getters sit on the prototype, so every
 * context shares one hidden class (an object literal with getters got one of its own per
 * request, and every read of the context in the request handler missed V8's inline caches).
 */
class HttpCallContext implements CallContext {
  lastEventId: number | undefined = undefined;
  principal: Principal | undefined = undefined;
  authChecked = false;
  binding: CallBinding | undefined = undefined;
  observation: CallObservation | undefined = undefined;
  readonly #req: HttpRequest;

  constructor(
    req: HttpRequest,
    readonly protocolVersion: string,
    readonly requestedExtensions: readonly string[],
  ) {
    this.#req = req;
  }

  /** Lazy: only streams need it, and hosts create the signal on first use. */
  get signal(): AbortSignal {
    return this.#req.signal;
  }

  /** Lazy: only the abuse limits of anonymous callers read it. */
  get remoteAddress(): string | undefined {
    return this.#req.remoteAddress;
  }
}
