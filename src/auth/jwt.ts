/**
 * JWT bearer tokens: signature against a JWKS (fetched through an injectable fetcher, cached,
 * refetched when a token names an unknown key), issuer, audience, exp/nbf/iat with clock skew.
 * `jose` over WebCrypto: runtime-neutral. Rejections carry a short description that never
 * includes the token or its claims' values.
 */
import { createLocalJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { InternalError } from '../protocol/errors.js';
import { fetchCappedJson } from '../net/cappedBody.js';
import { redactUrl } from '../net/redactUrl.js';
import type { JsonFetcher, JwtVerifierConfig, VerifiedIdentity } from './authConfig.js';

/** A credential the server does not accept; `description` is safe to send (error_description). */
export class CredentialRejected extends Error {
  override readonly name = 'CredentialRejected';
}

export const DEFAULT_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * The runtime's fetch (any platform): 10 s, no redirects, the body streamed up to 1 MiB (aborted
 * beyond). No SSRF guard here (runtime-neutral): it only fetches URLs the operator configured —
 * `jwks`, the card's discovery URL, and the `jwks_uri` of that discovery document — never one a
 * caller chose. Node hosts use nodeJsonFetcher (the SSRF guard on top).
 */
export const runtimeJsonFetcher: JsonFetcher = (url) => fetchCappedJson(url, { maxBytes: MAX_DOCUMENT_BYTES, timeoutMs: 10_000, accept: 'application/json' });

interface KeySetOptions {
  /** The JWKS URL (may need discovery first). */
  url: () => Promise<string>;
  fetchJson: JsonFetcher;
  cacheMs: number;
  cooldownMs: number;
}

/**
 * A remote JWKS: cached, fetched once for concurrent callers, refetched for an unknown `kid`.
 * A failed fetch is remembered for `cooldownMs`: with no key set cached, the tokens arriving
 * meanwhile are answered "key set unavailable" without another fetch, so an identity provider
 * that is down is not asked once per request.
 */
export class RemoteKeySet {
  private keys: JWTVerifyGetKey | undefined;
  private fetchedAt = 0;
  private pending: Promise<void> | undefined;
  private failure: { cause: Error; at: number } | undefined;

  constructor(private readonly options: KeySetOptions) {}

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    await this.refresh(false);
    const keys = this.keys as JWTVerifyGetKey;
    try {
      return await keys(header, token);
    } catch (error) {
      // Key rotation: a token signed with a key published after our fetch.
      if (code(error) !== 'ERR_JWKS_NO_MATCHING_KEY' || Date.now() - this.fetchedAt < this.options.cooldownMs) throw error;
      await this.refresh(true);
      return (this.keys as JWTVerifyGetKey)(header, token);
    }
  };

  private async refresh(force: boolean): Promise<void> {
    if (this.keys && !force && Date.now() - this.fetchedAt < this.options.cacheMs) return;
    if (!this.keys && this.failure && Date.now() - this.failure.at < this.options.cooldownMs) throw unavailable(this.failure.cause);
    this.pending ??= this.load().finally(() => {
      this.pending = undefined;
    });
    await this.pending;
  }

  private async load(): Promise<void> {
    let url = '';
    try {
      url = await this.options.url();
      const doc = await this.options.fetchJson(url);
      this.keys = createLocalJWKSet(doc as Parameters<typeof createLocalJWKSet>[0]);
      this.fetchedAt = Date.now();
      this.failure = undefined;
    } catch (error) {
      // A stale key set beats none; retry after the cooldown.
      if (this.keys) {
        this.fetchedAt = Date.now() - this.options.cacheMs + this.options.cooldownMs;
        return;
      }
      const cause = new Error(`JWKS ${url ? redactUrl(url) : '(discovery)'}: ${error instanceof Error ? error.message : String(error)}`);
      this.failure = { cause, at: Date.now() };
      throw unavailable(cause);
    }
  }
}

function unavailable(cause: Error): InternalError {
  return new InternalError('The server cannot verify tokens right now (key set unavailable)', { cause });
}

/**
 * OpenID Connect discovery / RFC 8414 metadata: `issuer` and `jwks_uri`, fetched once. A failure
 * is the answer for `cooldownMs`, then the next call fetches again.
 */
export function discovery(url: string, fetchJson: JsonFetcher, cooldownMs: number): () => Promise<{ issuer?: string; jwksUri: string }> {
  let pending: Promise<{ issuer?: string; jwksUri: string }> | undefined;
  let failedAt: number | undefined;
  return () => {
    if (failedAt !== undefined && Date.now() - failedAt >= cooldownMs) {
      pending = undefined;
      failedAt = undefined;
    }
    pending ??= (async () => {
      const doc = (await fetchJson(url)) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (typeof doc?.jwks_uri !== 'string') throw new Error(`${redactUrl(url)} has no jwks_uri`);
      return { jwksUri: doc.jwks_uri, ...(typeof doc.issuer === 'string' ? { issuer: doc.issuer } : {}) };
    })();
    pending.catch(() => {
      failedAt ??= Date.now();
    });
    return pending;
  };
}

function code(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? ((error as { code?: unknown }).code as string | undefined) : undefined;
}

function list(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? [value] : [...value];
}

/** Granted scopes: `scope` (space-separated, RFC 8693/9068) or `scp` (array or string). */
export function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

export interface JwtVerifierInit {
  config: JwtVerifierConfig;
  fetchJson: JsonFetcher;
  clockSkewSeconds: number;
  cacheMs: number;
  cooldownMs: number;
  /** Discovery URL of the card's scheme (openIdConnectUrl / oauth2MetadataUrl). */
  discoveryUrl?: string | undefined;
  /** The scheme name, for configuration errors. */
  scheme: string;
}

/** A token → identity function for one scheme; throws CredentialRejected for a bad token. */
export function jwtVerifier(init: JwtVerifierInit): (token: string) => Promise<VerifiedIdentity> {
  const { config, scheme } = init;
  const discover = init.discoveryUrl && (config.jwks === undefined || config.issuer === undefined) ? discovery(init.discoveryUrl, init.fetchJson, init.cooldownMs) : undefined;
  if (config.jwks === undefined && !discover) throw new Error(`auth: scheme "${scheme}" needs "jwks" (a URL or a key set)`);
  if (config.issuer === undefined && !discover) throw new Error(`auth: scheme "${scheme}" needs "issuer"`);
  if (config.audience === undefined) throw new Error(`auth: scheme "${scheme}" needs "audience" (tokens minted for other services must not pass)`);
  const jwks = config.jwks;
  const getKey: JWTVerifyGetKey =
    jwks !== undefined && typeof jwks !== 'string'
      ? createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0])
      : new RemoteKeySet({
          url: async () => (typeof jwks === 'string' ? jwks : (await (discover as NonNullable<typeof discover>)()).jwksUri),
          fetchJson: init.fetchJson,
          cacheMs: init.cacheMs,
          cooldownMs: init.cooldownMs,
        }).getKey;
  const audience = list(config.audience) as string[];
  const algorithms = [...(config.algorithms ?? DEFAULT_ALGORITHMS)].filter((a) => a.toLowerCase() !== 'none');
  const clockTolerance = config.clockSkewSeconds ?? init.clockSkewSeconds;

  return async (token) => {
    let issuer = list(config.issuer);
    if (!issuer) {
      const found = (await (discover as NonNullable<typeof discover>)().catch((error: unknown) => {
        throw new InternalError('The server cannot verify tokens right now (discovery failed)', { cause: error });
      })).issuer;
      if (!found) throw new InternalError(`auth: scheme "${scheme}": discovery gave no issuer`);
      issuer = [found];
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer,
        audience,
        algorithms,
        clockTolerance,
        requiredClaims: ['exp'],
        ...(config.maxTokenAgeSeconds !== undefined ? { maxTokenAge: config.maxTokenAgeSeconds } : {}),
      }));
    } catch (error) {
      throw rejection(error);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new CredentialRejected('The token has no subject (sub)');
    return { id: `${payload.iss ?? ''}|${payload.sub}`, scopes: scopesOf(payload), claims: payload };
  };
}

/** jose's errors as short, secret-free descriptions; anything else is the server's problem. */
function rejection(error: unknown): Error {
  if (error instanceof InternalError) return error;
  const c = code(error);
  const claim = (error as { claim?: unknown }).claim;
  switch (c) {
    case 'ERR_JWT_EXPIRED':
      return new CredentialRejected('The token has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return new CredentialRejected(typeof claim === 'string' ? `The token's "${claim}" claim is not accepted` : 'The token is not accepted');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new CredentialRejected('The token signature is invalid');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new CredentialRejected('No key of the issuer matches the token');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new CredentialRejected('The token algorithm is not accepted');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JWKS_INVALID':
      return new CredentialRejected('The token is malformed');
    default:
      return new InternalError('The server cannot verify tokens right now', { cause: error });
  }
}
