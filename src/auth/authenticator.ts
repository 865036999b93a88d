/**
 * The server's side of the card's security (SEC-02, CARD-09, XCARD-03): `securityRequirements`
 * are OR-ed, the schemes inside one requirement AND-ed, each requirement's `list` holds the
 * scopes the scheme's credential must grant. Every binding calls `authenticate()` with the
 * request's headers / metadata, query and TLS client certificate before the request handler
 * runs; the principal goes into the CallContext (and from there to the agent).
 *
 * Outcomes: no requirement on the card → no authentication (principal undefined), except
 * GetExtendedAgentCard, which always needs an authenticated caller (XCARD-03): one satisfying a
 * requirement that names a scheme, else one known by any configured scheme, else nobody;
 * ListTasks, which on a card that also names schemes needs one of those (LIST-01: anonymous
 * callers all share one owner, '', so a list for them would show every anonymous caller's tasks);
 * a satisfied requirement → its first scheme's principal; presented credentials that are not
 * accepted, or none → UNAUTHENTICATED (401 + challenges); accepted credentials lacking a
 * required scope → PERMISSION_DENIED (403, `error="insufficient_scope"`). Runtime-neutral.
 */
import type { AgentCard, SecurityScheme } from '../protocol/types.js';
import type {
  ApiKeyVerifierConfig,
  AuthConfig,
  AuthInput,
  Authenticator,
  HttpVerifierConfig,
  JwtVerifierConfig,
  MtlsVerifierConfig,
  PeerCertificate,
  SchemeVerifierConfig,
  VerifiedIdentity,
} from './authConfig.js';
import { AuthError, quoted } from './authErrors.js';
import { CredentialRejected, jwtVerifier, runtimeJsonFetcher } from './jwt.js';
import type { Principal } from './principal.js';

type Outcome = { kind: 'ok'; identity: VerifiedIdentity } | { kind: 'missing' } | { kind: 'invalid'; description: string };

interface SchemeCheck {
  check(input: AuthInput): Promise<Outcome>;
  /** WWW-Authenticate challenge, with RFC 6750 error parameters when given. */
  challenge(params?: { error?: string; description?: string; scope?: readonly string[] }): string;
  /** Whether the challenge is a Bearer one (only those carry `error="insufficient_scope"`). */
  bearer: boolean;
  queryParam?: string;
}

/** One requirement: scheme name → required scopes. */
type Requirement = readonly (readonly [string, readonly string[]])[];

export const EXTENDED_CARD_OPERATION = 'getExtendedAgentCard';
export const LIST_TASKS_OPERATION = 'listTasks';

export function createAuthenticator(card: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>, config: AuthConfig): Authenticator {
  const schemes = card.securitySchemes ?? {};
  const requirements: Requirement[] = (card.securityRequirements ?? []).map((r) =>
    Object.entries(r.schemes ?? {}).map(([name, scopes]) => [name, scopes?.list ?? []] as const),
  );
  for (const name of Object.keys(config.schemes)) {
    if (!schemes[name]) throw new Error(`auth: "${name}" is not one of the card's securitySchemes (${Object.keys(schemes).join(', ') || 'none declared'})`);
  }
  const realm = config.realm ?? 'a2a';
  const checks = new Map<string, SchemeCheck>();
  const needed = new Set([...requirements.flatMap((r) => r.map(([name]) => name)), ...Object.keys(config.schemes)]);
  for (const name of needed) {
    const scheme = schemes[name];
    if (!scheme) throw new Error(`auth: the card's securityRequirements name "${name}", which securitySchemes does not declare`);
    checks.set(name, schemeCheck({ name, scheme, config: config.schemes[name], auth: config, realm }));
  }
  // XCARD-03: the extended card needs an authenticated caller, always: the card's requirements
  // without their anonymous alternatives, else a caller known by one of the configured schemes.
  const named = requirements.filter((r) => r.length > 0);
  const extendedCardRequirements: Requirement[] = named.length > 0 ? named : Object.keys(config.schemes).map((name) => [[name, []] as const]);
  // LIST-01: ListTasks shows the caller's tasks, and every anonymous caller is the same owner
  // (''); where callers can authenticate, an anonymous list is refused instead of showing all of
  // theirs. A card naming no scheme authenticates nobody: everyone is '', as without auth.
  const listTasksRequirements = named.length > 0 ? named : requirements;
  const credentialQueryParams = new Set([...checks.values()].flatMap((c) => (c.queryParam ? [c.queryParam] : [])));

  async function authenticate(input: AuthInput): Promise<Principal | undefined> {
    const extendedCard = input.operation === EXTENDED_CARD_OPERATION;
    const listTasks = input.operation === LIST_TASKS_OPERATION;
    const reqs = extendedCard ? extendedCardRequirements : listTasks ? listTasksRequirements : requirements;
    if (reqs.length === 0) {
      if (!extendedCard) return undefined;
      // Fail closed: nothing here can authenticate anyone, so nobody gets the extended card.
      config.onFailure?.({ reason: 'UNAUTHENTICATED', operation: input.operation, schemes: {} });
      throw new AuthError({ reason: 'UNAUTHENTICATED', message: 'The extended Agent Card needs an authenticated caller, and no scheme is configured to authenticate one', challenges: [] });
    }
    const names = [...new Set(reqs.flatMap((r) => r.map(([name]) => name)))];
    const outcomes = new Map<string, Outcome>();
    await Promise.all(names.map(async (name) => outcomes.set(name, await (checks.get(name) as SchemeCheck).check(input))));

    let anonymous = false;
    let scopeFailure: { name: string; missing: string[] } | undefined;
    for (const req of reqs) {
      if (req.length === 0) {
        anonymous = true;
        continue;
      }
      let principal: Principal | undefined;
      let satisfied = true;
      for (const [name, scopes] of req) {
        const outcome = outcomes.get(name) as Outcome;
        if (outcome.kind !== 'ok') {
          satisfied = false;
          break;
        }
        const granted = new Set(outcome.identity.scopes ?? []);
        const missing = scopes.filter((s) => !granted.has(s));
        if (missing.length > 0) {
          scopeFailure ??= { name, missing };
          satisfied = false;
          break;
        }
        principal ??= {
          id: outcome.identity.id,
          scheme: name,
          scopes: [...(outcome.identity.scopes ?? [])],
          claims: outcome.identity.claims ?? {},
        };
      }
      if (satisfied) return principal;
    }

    const invalid = names.filter((n) => outcomes.get(n)?.kind === 'invalid');
    if (anonymous && invalid.length === 0) return undefined;
    const summary = Object.fromEntries(names.map((n) => {
      const o = outcomes.get(n) as Outcome;
      return [n, o.kind === 'invalid' ? o.description : o.kind === 'ok' ? 'accepted' : 'missing'];
    }));
    if (invalid.length === 0 && scopeFailure) {
      const { name, missing } = scopeFailure;
      const check = checks.get(name) as SchemeCheck;
      config.onFailure?.({ reason: 'PERMISSION_DENIED', operation: input.operation, schemes: { ...summary, [name]: `missing scope ${missing.join(' ')}` } });
      throw new AuthError({
        reason: 'PERMISSION_DENIED',
        message: `Insufficient scope: ${name} requires ${missing.join(', ')}`,
        challenges: check.bearer ? [check.challenge({ error: 'insufficient_scope', description: 'The token lacks a required scope', scope: missing })] : [],
        metadata: { scheme: name, requiredScopes: missing.join(' ') },
      });
    }
    config.onFailure?.({ reason: 'UNAUTHENTICATED', operation: input.operation, schemes: summary });
    const challenges = names.map((n) => {
      const o = outcomes.get(n) as Outcome;
      const check = checks.get(n) as SchemeCheck;
      return o.kind === 'invalid' && check.bearer ? check.challenge({ error: 'invalid_token', description: o.description }) : check.challenge();
    });
    const first = invalid[0];
    const alternatives = reqs.filter((r) => r.length > 0).map((r) => r.map(([n]) => n).join(' + ')).join(' or ');
    const message = first
      ? `Authentication failed: ${(outcomes.get(first) as { description: string }).description}`
      : listTasks && reqs !== requirements
        ? `ListTasks needs an authenticated caller on this agent (anonymous callers cannot be told apart): ${alternatives}`
        : `Authentication required: ${alternatives}`;
    throw new AuthError({ reason: 'UNAUTHENTICATED', message, challenges: [...new Set(challenges)] });
  }

  return { authenticate, credentialQueryParams };
}

interface SchemeInit {
  name: string;
  scheme: SecurityScheme;
  config: SchemeVerifierConfig | undefined;
  auth: AuthConfig;
  realm: string;
}

function schemeCheck(init: SchemeInit): SchemeCheck {
  const { name, scheme, config, auth, realm } = init;
  if ('mtlsSecurityScheme' in scheme) return mtlsCheck(realm, (config ?? {}) as MtlsVerifierConfig);
  if (!config) throw new Error(`auth: the card requires scheme "${name}" but auth.schemes has no verifier for it`);
  if ('apiKeySecurityScheme' in scheme) {
    const { location, name: param } = scheme.apiKeySecurityScheme;
    return apiKeyCheck({ name, location, param, realm, config: config as ApiKeyVerifierConfig });
  }
  const bearerChallenge = (params: Parameters<SchemeCheck['challenge']>[0] = {}): string =>
    [
      `Bearer realm=${quoted(realm)}`,
      ...(params.error ? [`error=${quoted(params.error)}`] : []),
      ...(params.description ? [`error_description=${quoted(params.description)}`] : []),
      ...(params.scope ? [`scope=${quoted(params.scope.join(' '))}`] : []),
    ].join(', ');
  if ('httpAuthSecurityScheme' in scheme && scheme.httpAuthSecurityScheme.scheme.toLowerCase() !== 'bearer') {
    const httpScheme = scheme.httpAuthSecurityScheme.scheme;
    const verify = (config as HttpVerifierConfig).verify;
    if (typeof verify !== 'function') throw new Error(`auth: HTTP ${httpScheme} scheme "${name}" needs a verify function`);
    return {
      bearer: false,
      challenge: () => `${httpScheme} realm=${quoted(realm)}`,
      check: (input) => checkCredential({ value: authorization(input, httpScheme), verify, rejected: 'The credentials are not accepted' }),
    };
  }
  const jwtConfig = config as JwtVerifierConfig;
  const discoveryUrl =
    'openIdConnectSecurityScheme' in scheme
      ? scheme.openIdConnectSecurityScheme.openIdConnectUrl
      : 'oauth2SecurityScheme' in scheme
        ? scheme.oauth2SecurityScheme.oauth2MetadataUrl
        : undefined;
  const verify =
    jwtConfig.verify ??
    jwtVerifier({
      config: jwtConfig,
      fetchJson: auth.fetchJson ?? runtimeJsonFetcher,
      clockSkewSeconds: auth.clockSkewSeconds ?? 60,
      cacheMs: (auth.jwksCacheSeconds ?? 600) * 1000,
      cooldownMs: (auth.jwksCooldownSeconds ?? 30) * 1000,
      discoveryUrl,
      scheme: name,
    });
  return {
    bearer: true,
    challenge: bearerChallenge,
    check: (input) => checkCredential({ value: authorization(input, 'Bearer'), verify, rejected: 'The token is not accepted' }),
  };
}

/** The credentials after `<scheme> ` in Authorization (scheme case-insensitive, RFC 9110 §11.1). */
function authorization(input: AuthInput, scheme: string): string | undefined {
  const value = input.header('authorization')?.trim();
  if (!value) return undefined;
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  const credentials = value.slice(space + 1).trim();
  return credentials === '' ? undefined : credentials;
}

async function checkCredential(c: {
  value: string | undefined;
  verify: (value: string) => VerifiedIdentity | undefined | Promise<VerifiedIdentity | undefined>;
  rejected: string;
}): Promise<Outcome> {
  if (c.value === undefined) return { kind: 'missing' };
  try {
    const identity = await c.verify(c.value);
    return identity ? { kind: 'ok', identity } : { kind: 'invalid', description: c.rejected };
  } catch (error) {
    if (error instanceof CredentialRejected) return { kind: 'invalid', description: error.message };
    throw error;
  }
}

function apiKeyCheck(init: { name: string; location: string; param: string; realm: string; config: ApiKeyVerifierConfig }): SchemeCheck {
  const { location, param, realm, config } = init;
  if (!config.keys && typeof config.verify !== 'function') throw new Error(`auth: API key scheme "${init.name}" needs "keys" or a verify function`);
  if (location !== 'header' && location !== 'query' && location !== 'cookie') throw new Error(`auth: API key scheme "${init.name}" has location "${location}" (header, query or cookie)`);
  let index: Promise<Map<string, VerifiedIdentity>> | undefined;
  const keyIndex = (): Promise<Map<string, VerifiedIdentity>> =>
    (index ??= (async () => {
      const map = new Map<string, VerifiedIdentity>();
      for (const [key, value] of Object.entries(config.keys ?? {})) {
        const digest = /^sha256:[0-9a-f]{64}$/i.test(key) ? key.slice(7).toLowerCase() : await sha256Hex(key);
        map.set(digest, typeof value === 'string' ? { id: value, scopes: [] } : { id: value.id, scopes: [...(value.scopes ?? [])] });
      }
      return map;
    })());
  const read = (input: AuthInput): string | undefined => {
    if (location === 'header') return input.header(param.toLowerCase()) || undefined;
    if (location === 'query') return input.query?.get(param) || undefined;
    return cookie(input.header('cookie'), param);
  };
  return {
    bearer: false,
    ...(location === 'query' ? { queryParam: param } : {}),
    challenge: () => `APIKey realm=${quoted(realm)}, in=${quoted(location)}, name=${quoted(param)}`,
    check: (input) =>
      checkCredential({
        value: read(input),
        verify: async (key) => (await keyIndex()).get(await sha256Hex(key)) ?? (await config.verify?.(key)),
        rejected: 'The API key is not accepted',
      }),
  };
}

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value) || undefined;
    } catch {
      return value || undefined;
    }
  }
  return undefined;
}

async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function mtlsCheck(realm: string, config: MtlsVerifierConfig): SchemeCheck {
  return {
    bearer: false,
    challenge: () => `MutualTLS realm=${quoted(realm)}`,
    check: (input) => {
      const cert = input.peerCertificate;
      if (!cert) return Promise.resolve({ kind: 'missing' });
      if (!cert.authorized) return Promise.resolve({ kind: 'invalid', description: 'The client certificate is not trusted' });
      const id = config.identity === 'san' ? firstSan(cert) : cert.subject;
      if (!id) return Promise.resolve({ kind: 'invalid', description: 'The client certificate names no identity' });
      return Promise.resolve({ kind: 'ok', identity: { id, scopes: [], claims: certificateClaims(cert) } });
    },
  };
}

function firstSan(cert: PeerCertificate): string | undefined {
  const entries = (cert.subjectAltName ?? '').split(/,\s*/).filter(Boolean);
  for (const prefix of ['URI:', 'DNS:', 'email:']) {
    const hit = entries.find((e) => e.startsWith(prefix));
    if (hit) return hit.slice(prefix.length);
  }
  return undefined;
}

function certificateClaims(cert: PeerCertificate): Record<string, unknown> {
  const { authorized: _authorized, ...rest } = cert;
  return rest;
}
