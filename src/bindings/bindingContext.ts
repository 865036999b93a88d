/**
 * What the HTTP bindings share: the request handler, limits, how service parameters become a
 * CallContext (identical negotiation on every binding, R20), and error reporting.
 */
import type { Authenticator } from '../auth/authConfig.js';
import { A2AError, toA2AError } from '../protocol/errors.js';
import {
  EXTENSIONS_HEADER,
  VERSION_HEADER,
  activatedExtensions,
  negotiateVersion,
  parseExtensions,
} from '../protocol/serviceParams.js';
import type { AgentCard } from '../protocol/types.js';
import type { HttpRequest } from '../server/http/httpTypes.js';
import type { A2ARequestHandler, CallContext } from '../server/requestHandler.js';

export interface BindingLimits {
  maxBodyBytes: number;
  maxJsonDepth: number;
  heartbeatMs: number;
}

export class BindingContext {
  readonly handler: A2ARequestHandler;
  readonly limits: BindingLimits;
  private readonly supportedVersions: readonly string[];
  private readonly onError: ((error: unknown) => void) | undefined;
  /** Enforces the card's security requirements (issue 8); absent when nothing is enforced. */
  readonly authenticator: Authenticator | undefined;

  constructor(options: {
    handler: A2ARequestHandler;
    limits: BindingLimits;
    supportedVersions: readonly string[];
    onError?: ((error: unknown) => void) | undefined;
    authenticator?: Authenticator | undefined;
  }) {
    this.handler = options.handler;
    this.limits = options.limits;
    this.supportedVersions = options.supportedVersions;
    this.onError = options.onError;
    this.authenticator = options.authenticator;
  }

  get card(): AgentCard {
    return this.handler.agentCard;
  }

  callContext(req: HttpRequest): CallContext {
    const header = req.header('a2a-version');
    // The query string is parsed only when the header is absent (VER-03).
    const protocolVersion = negotiateVersion(header, header ? undefined : req.query.get(VERSION_HEADER), this.supportedVersions);
    const ctx: CallContext = {
      protocolVersion,
      requestedExtensions: parseExtensions(req.header('a2a-extensions')),
      // Lazy: only streams need it, and hosts create the signal on first use.
      get signal() {
        return req.signal;
      },
    };
    const lastEventId = req.header('last-event-id');
    if (lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim())) ctx.lastEventId = Number(lastEventId.trim());
    return ctx;
  }

  /**
   * SEC-02: checks the request's credentials (headers, query, TLS client certificate) against
   * the card's requirements for `operation` and puts the caller into `ctx.principal`. Throws
   * AuthError (401/403 with WWW-Authenticate) before the request handler sees the call.
   */
  async authenticate(req: HttpRequest, ctx: CallContext, operation: string): Promise<void> {
    if (!this.authenticator) return;
    const principal = await this.authenticator.authenticate({
      header: (name) => req.header(name),
      // Parsed only when an API key travels in the query.
      get query() {
        return req.query;
      },
      peerCertificate: req.peerCertificate,
      operation,
    });
    if (principal) ctx.principal = principal;
  }

  responseHeaders(ctx: CallContext): Record<string, string> {
    const headers: Record<string, string> = { 'a2a-version': ctx.protocolVersion };
    if (ctx.requestedExtensions.length === 0) return headers;
    const active = activatedExtensions(this.card, ctx.requestedExtensions);
    if (active.length > 0) headers[EXTENSIONS_HEADER.toLowerCase()] = active.join(', ');
    return headers;
  }

  /** Converts anything thrown to an A2AError, reporting unexpected failures once. */
  report(error: unknown): A2AError {
    if (!A2AError.is(error) || error.reason === 'INTERNAL') this.onError?.(error);
    return toA2AError(error);
  }
}
