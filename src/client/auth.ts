/**
 * Authentication helpers (SEC-02: credentials travel in headers, never in A2A payloads):
 * API keys placed as the card's APIKeySecurityScheme says, bearer tokens (static or from a
 * function), and OAuth2 client credentials with a cached, refreshed token.
 */
import type { AgentCard, ClientCredentialsOAuthFlow, SecurityScheme } from '../protocol/types.js';
import { A2AClientError } from './errors.js';
import { isObject, readCappedText, send } from './http.js';
import type { AuthProvider, ClientCall } from './interceptors.js';
import { bytesToBase64 } from './messages.js';
import { isRedirect, redirectError } from './redirects.js';
import type { FetchLike } from './transport.js';

/** The named scheme, or the first one of the wanted kind, from the card's securitySchemes. */
function findScheme<K extends string>(card: AgentCard, kind: K, name?: string): Extract<SecurityScheme, Record<K, unknown>> | undefined {
  const schemes = card.securitySchemes ?? {};
  for (const [key, scheme] of Object.entries(schemes)) {
    if ((name === undefined || key === name) && kind in scheme) return scheme as Extract<SecurityScheme, Record<K, unknown>>;
  }
  return undefined;
}

export interface ApiKeyOptions {
  /** Where the key goes; default: from the card's APIKeySecurityScheme. */
  location?: 'header' | 'query' | 'cookie';
  /** Header, query parameter or cookie name; default: from the card. */
  name?: string;
  /** The card's securitySchemes entry to follow (default: the first API key scheme). */
  scheme?: string;
}

/** An API key, placed where the card's APIKeySecurityScheme (or `options`) says. */
export function apiKey(key: string, options: ApiKeyOptions = {}): AuthProvider {
  return {
    apply(call: ClientCall) {
      const declared = findScheme(call.card, 'apiKeySecurityScheme', options.scheme)?.apiKeySecurityScheme;
      const location = options.location ?? declared?.location;
      const name = options.name ?? declared?.name;
      if (!name || (location !== 'header' && location !== 'query' && location !== 'cookie')) {
        throw new A2AClientError('AUTH', 'No API key location: the card declares no APIKeySecurityScheme; pass { location, name }');
      }
      if (location === 'header') call.headers.set(name, key);
      else if (location === 'query') call.query.set(name, key);
      else {
        const cookie = `${name}=${encodeURIComponent(key)}`;
        const existing = call.headers.get('cookie');
        call.headers.set('cookie', existing ? `${existing}; ${cookie}` : cookie);
      }
    },
  };
}

export type TokenSource = string | ((context: { fresh: boolean }) => string | Promise<string>);

/**
 * `Authorization: Bearer <token>`. A function is called for every attempt (it may cache); after
 * a 401 it is called with `fresh: true` and the call is repeated once with what it returns.
 */
export function bearerToken(source: TokenSource): AuthProvider {
  let fresh = false;
  return {
    async apply(call) {
      const token = typeof source === 'string' ? source : await source({ fresh });
      fresh = false;
      call.headers.set('authorization', `Bearer ${token}`);
    },
    refresh() {
      fresh = typeof source !== 'string';
      return fresh;
    },
  };
}

export interface ClientCredentialsOptions {
  clientId: string;
  clientSecret: string;
  /** Default: the card's OAuth2 scheme with a clientCredentials flow. */
  tokenUrl?: string;
  scopes?: string[];
  /** The card's securitySchemes entry to follow (default: the first with clientCredentials). */
  scheme?: string;
  /** How the client authenticates to the token endpoint (RFC 6749 §2.3.1); default HTTP Basic. */
  clientAuthentication?: 'basic' | 'body';
  /** Renew this long before the token expires (default 30 s, at most half its lifetime). */
  skewMs?: number;
  /**
   * Time limit of one token request (default 30 s). The request is shared by every call waiting
   * for a token, so no one call's deadline ends it; each call still stops waiting at its own.
   */
  tokenTimeoutMs?: number;
  fetch?: FetchLike;
}

const DEFAULT_TOKEN_TIMEOUT_MS = 30_000;

/** The largest token response read: far above any token, far below what would strain the client. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** RFC 6749 §4.4: a token from the token endpoint, cached until (just before) it expires. */
export function oauth2ClientCredentials(options: ClientCredentialsOptions): AuthProvider {
  let token: { value: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function request(card: AgentCard): Promise<string> {
    const flows = findScheme(card, 'oauth2SecurityScheme', options.scheme)?.oauth2SecurityScheme.flows;
    const flow = flows && 'clientCredentials' in flows ? (flows.clientCredentials as ClientCredentialsOAuthFlow) : undefined;
    const tokenUrl = options.tokenUrl ?? flow?.tokenUrl;
    if (!tokenUrl) throw new A2AClientError('AUTH', 'No token URL: pass tokenUrl or use a card with an OAuth2 clientCredentials flow');
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (options.scopes?.length) form.set('scope', options.scopes.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.clientAuthentication === 'body') {
      form.set('client_id', options.clientId);
      form.set('client_secret', options.clientSecret);
    } else {
      const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
      headers.authorization = `Basic ${bytesToBase64(new TextEncoder().encode(pair))}`;
    }
    const timeoutMs = options.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    const timedOut = (cause: unknown) => new A2AClientError('AUTH', `The token endpoint did not answer within ${timeoutMs} ms`, { cause });
    let res: Response;
    try {
      res = await send(fetch, tokenUrl, { method: 'POST', headers, body: form.toString(), signal });
    } catch (error) {
      throw signal.aborted ? timedOut(error) : error;
    }
    // Never followed (http.ts send): the form carries the client secret with `clientAuthentication: 'body'`.
    if (isRedirect(res)) throw redirectError(res, { code: 'AUTH', what: 'The token endpoint', requestUrl: tokenUrl });
    let body: unknown;
    try {
      body = JSON.parse((await readCappedText(res, MAX_TOKEN_RESPONSE_BYTES)) ?? '');
    } catch (error) {
      if (signal.aborted) throw timedOut(error);
      body = undefined;
    }
    if (!res.ok || !isObject(body) || typeof body.access_token !== 'string') {
      const detail = isObject(body) && typeof body.error === 'string' ? `: ${body.error}` : '';
      throw new A2AClientError('AUTH', `The token endpoint refused (HTTP ${res.status}${detail})`, { status: res.status });
    }
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    const skew = Math.min(options.skewMs ?? 30_000, lifetimeMs / 2);
    token = { value: body.access_token, expiresAt: Date.now() + lifetimeMs - skew };
    return body.access_token;
  }

  function get(card: AgentCard, fresh: boolean): Promise<string> {
    if (!fresh && token && Date.now() < token.expiresAt) return Promise.resolve(token.value);
    // One request at a time: concurrent calls share it.
    pending ??= request(card).finally(() => (pending = undefined));
    return pending;
  }

  return {
    async apply(call) {
      call.headers.set('authorization', `Bearer ${await get(call.card, false)}`);
    },
    async refresh(call) {
      token = undefined;
      await get(call.card, true);
      return true;
    },
  };
}
