/**
 * How a server verifies the credentials its Agent Card asks for (issue 8, SEC-02, CARD-09): one
 * verifier per `securitySchemes` name. The card says *what* a caller must present (and the
 * `securityRequirements` which combinations); this says *how the server checks it*.
 * Runtime-neutral: no Node imports.
 */
import type { Principal } from './principal.js';

/** What a verifier function returns for an accepted credential (the scheme name is filled in). */
export interface VerifiedIdentity {
  id: string;
  scopes?: readonly string[];
  claims?: Readonly<Record<string, unknown>>;
}

/** API key schemes (`apiKeySecurityScheme`): the key's location and name come from the card. */
export interface ApiKeyVerifierConfig {
  /**
   * Accepted keys → the principal id (or id and granted scopes). A key may be written in clear
   * or as `sha256:<hex of the key's SHA-256>` so the config holds no usable secret.
   */
  keys?: Readonly<Record<string, string | { id: string; scopes?: readonly string[] }>>;
  /** Custom check; `undefined` means the key is not accepted. Called when `keys` has no match. */
  verify?: (key: string) => VerifiedIdentity | undefined | Promise<VerifiedIdentity | undefined>;
}

/**
 * Bearer tokens: `httpAuthSecurityScheme` with scheme Bearer, `oauth2SecurityScheme` and
 * `openIdConnectSecurityScheme`. JWTs are verified against a JWKS (signature, issuer, audience,
 * exp/nbf with clock skew); OAuth2/OIDC requirements' scopes are checked against `scope`/`scp`.
 */
export interface JwtVerifierConfig {
  /**
   * JWKS URL (fetched and cached), or the key set itself. For OpenID Connect (and OAuth2 with
   * `oauth2MetadataUrl`) it may be left out: discovery supplies `jwks_uri` (and the issuer).
   */
  jwks?: string | { keys: readonly Record<string, unknown>[] };
  /** Accepted `iss` (required unless discovery supplies it). */
  issuer?: string | readonly string[];
  /** Accepted `aud` (required: a token minted for another service must not pass). */
  audience?: string | readonly string[];
  /** Accepted JWS algorithms (default: the asymmetric ones; `none` and HMAC never by default). */
  algorithms?: readonly string[];
  /** Tolerated clock difference for exp/nbf/iat, seconds (default: AuthConfig.clockSkewSeconds). */
  clockSkewSeconds?: number;
  /** Oldest accepted token by `iat`, seconds (default: no limit; exp is always required). */
  maxTokenAgeSeconds?: number;
  /** Opaque (non-JWT) tokens or custom checks: replaces JWT verification for this scheme. */
  verify?: (token: string) => VerifiedIdentity | undefined | Promise<VerifiedIdentity | undefined>;
}

/** HTTP schemes other than Bearer (e.g. Basic): only a custom check of the credentials part. */
export interface HttpVerifierConfig {
  verify: (credentials: string) => VerifiedIdentity | undefined | Promise<VerifiedIdentity | undefined>;
}

/**
 * Mutual TLS (`mtlsSecurityScheme`): the TLS listener requests client certificates and verifies
 * them against its trusted client CAs (`tls.ca` of serve()/serveGrpc(), `a2a serve --tls-ca`);
 * the authenticator accepts a verified certificate and names the principal after it.
 */
export interface MtlsVerifierConfig {
  /** Principal id: the subject DN (default) or the first subjectAltName (URI, DNS, email). */
  identity?: 'subject' | 'san';
}

export type SchemeVerifierConfig = ApiKeyVerifierConfig | JwtVerifierConfig | HttpVerifierConfig | MtlsVerifierConfig;

/** Fetches a JSON document (JWKS, OpenID / OAuth2 metadata). Rejects on non-2xx. */
export type JsonFetcher = (url: string) => Promise<unknown>;

/** One refused request, for audit logs (SEC-06/09): never a credential. */
export interface AuthFailure {
  /** 'UNAUTHENTICATED' (401) or 'PERMISSION_DENIED' (403). */
  reason: 'UNAUTHENTICATED' | 'PERMISSION_DENIED';
  /** The operation asked for. */
  operation: string;
  /** Per scheme tried: what was wrong ('missing', or a short description). */
  schemes: Readonly<Record<string, string>>;
}

export interface AuthConfig {
  /** Verifier settings per `securitySchemes` name of the card. */
  schemes: Readonly<Record<string, SchemeVerifierConfig>>;
  /** `realm` of WWW-Authenticate challenges (default "a2a"). */
  realm?: string;
  /** Tolerated clock difference for JWT exp/nbf/iat, seconds (default 60). */
  clockSkewSeconds?: number;
  /** How long a fetched JWKS / discovery document is used before it is fetched again (default 600 s). */
  jwksCacheSeconds?: number;
  /**
   * Least time between fetches when a token names a key the cached JWKS lacks, and how long a
   * failed fetch is remembered (answered without fetching again) while no key set is cached (default 30 s).
   */
  jwksCooldownSeconds?: number;
  /**
   * Fetches JWKS and discovery documents. Default: the runtime's fetch (10 s, no redirects, the
   * body streamed and aborted past 1 MiB; no SSRF guard: only operator-configured URLs). The Node
   * hosts (`serveAgent()`, `a2a serve`) supply `nodeJsonFetcher()`: through the SSRF guard.
   */
  fetchJson?: JsonFetcher;
  /** Node fetcher only: allow JWKS/discovery URLs on loopback and private addresses (development). */
  allowPrivateNetworks?: boolean;
  /** Every refused request (audit hook; no secrets in it). */
  onFailure?: (failure: AuthFailure) => void;
}

/**
 * The TLS client certificate of a connection, as a host reports it. `authorized` is the
 * listener's verdict on the chain against its trusted client CAs.
 */
export interface PeerCertificate {
  authorized: boolean;
  /** Subject DN, e.g. `CN=alice,O=Example`. */
  subject: string;
  issuer: string;
  /** As Node prints it: `DNS:a.example, URI:spiffe://example/alice`. */
  subjectAltName?: string;
  /** SHA-256 fingerprint, colon-separated hex. */
  fingerprint256?: string;
  serialNumber?: string;
}

/** What the authenticator looks at: one request's credentials, whatever the binding. */
export interface AuthInput {
  /** Header / gRPC metadata value by lowercase name. */
  header(name: string): string | undefined;
  /** HTTP query string (absent on gRPC). */
  query?: URLSearchParams;
  peerCertificate?: PeerCertificate | undefined;
  /** The operation (camelCase), e.g. getExtendedAgentCard. */
  operation: string;
}

export interface Authenticator {
  /**
   * The caller, or undefined when the card asks for no authentication (for this operation).
   * Throws AuthError (UNAUTHENTICATED / PERMISSION_DENIED) with challenges for WWW-Authenticate.
   */
  authenticate(input: AuthInput): Promise<Principal | undefined>;
  /** Query parameters that carry credentials (API keys in the query): never request fields. */
  readonly credentialQueryParams: ReadonlySet<string>;
}
