/**
 * Agent Card between A2A 0.3 and 1.0 (digest §5.4). The interface list, the extended-card
 * flag, security requirements and security schemes change shape; the rest keeps its names.
 */
import { isV03CardShape } from '../protocol/cardShape.js';
import { parseVersion } from '../protocol/serviceParams.js';
import type {
  AgentCapabilities,
  AgentCard,
  AgentExtension,
  AgentInterface,
  AgentSkill,
  OAuthFlows,
  SecurityRequirement,
  SecurityScheme,
} from '../protocol/types.js';
import { asArray, asObj, copy, isObj, join, type Obj } from './read.js';
import type {
  V03AgentCapabilities,
  V03AgentCard,
  V03AgentExtension,
  V03AgentInterface,
  V03AgentSkill,
  V03OAuthFlows,
  V03SecurityRequirement,
  V03SecurityScheme,
} from './v03Types.js';

/** What a 0.3 card says in `protocolVersion`. */
export const V03_CARD_PROTOCOL_VERSION = '0.3.0';

export interface CardToV03Options {
  /**
   * Keep `signatures`. Off by default: they were computed over the 1.0 JSON and cannot verify
   * over the translated card.
   */
  keepSignatures?: boolean;
  /**
   * Only advertise interfaces whose `protocolVersion` is 0.3 (default true): a 0.3 client must
   * not be pointed at a 1.0-only endpoint. When the card lists no 0.3 interface, all are used.
   */
  onlyV03Interfaces?: boolean;
}

const CARD_COMMON = ['name', 'description', 'version', 'provider', 'iconUrl', 'documentationUrl', 'defaultInputModes', 'defaultOutputModes'] as const;

// ---- 1.0 → 0.3 ----

/**
 * 1.0 → 0.3: the first (0.3) interface becomes `url` + `preferredTransport`, all of them
 * `additionalInterfaces` (0.3 says it SHOULD include the main one); `extendedAgentCard` →
 * `supportsAuthenticatedExtendedCard`. Lossy: interface `tenant`, `pkceRequired`, device-code
 * flows (the scheme stays, with no flows), signatures (see options).
 */
export function agentCardToV03(card: AgentCard, options: CardToV03Options = {}): V03AgentCard {
  const v03 = card.supportedInterfaces.filter((i) => parseVersion(i.protocolVersion) === '0.3');
  const interfaces = (options.onlyV03Interfaces ?? true) && v03.length > 0 ? v03 : card.supportedInterfaces;
  const main = interfaces[0];
  const out = copy(
    {
      protocolVersion: V03_CARD_PROTOCOL_VERSION,
      url: main?.url ?? '',
      preferredTransport: main?.protocolBinding ?? 'JSONRPC',
      additionalInterfaces: interfaces.map((i): V03AgentInterface => ({ url: i.url, transport: i.protocolBinding })),
      capabilities: capabilitiesToV03(card.capabilities),
      skills: card.skills.map(skillToV03),
    } as V03AgentCard,
    card,
    CARD_COMMON,
  );
  if (card.capabilities.extendedAgentCard !== undefined) out.supportsAuthenticatedExtendedCard = card.capabilities.extendedAgentCard;
  if (card.securitySchemes !== undefined) out.securitySchemes = mapValues(card.securitySchemes, schemeToV03);
  if (card.securityRequirements !== undefined) out.security = card.securityRequirements.map(requirementToV03);
  if (card.signatures !== undefined && options.keepSignatures) out.signatures = card.signatures;
  return out;
}

function capabilitiesToV03(caps: AgentCapabilities): V03AgentCapabilities {
  const out: V03AgentCapabilities = copy({}, caps, ['streaming', 'pushNotifications']);
  if (caps.extensions !== undefined) out.extensions = caps.extensions.map((e) => ({ ...e, uri: e.uri ?? '' }) as V03AgentExtension);
  return out;
}

function skillToV03(skill: AgentSkill): V03AgentSkill {
  const { securityRequirements, ...rest } = skill;
  const out: V03AgentSkill = { ...rest };
  if (securityRequirements !== undefined) out.security = securityRequirements.map(requirementToV03);
  return out;
}

function requirementToV03(req: SecurityRequirement): V03SecurityRequirement {
  return mapValues(req.schemes ?? {}, (scopes) => scopes.list ?? []);
}

function schemeToV03(scheme: SecurityScheme): V03SecurityScheme {
  if ('apiKeySecurityScheme' in scheme) {
    const { location, ...rest } = scheme.apiKeySecurityScheme;
    return { type: 'apiKey', in: location as 'header', ...rest };
  }
  if ('httpAuthSecurityScheme' in scheme) return { type: 'http', ...scheme.httpAuthSecurityScheme };
  if ('oauth2SecurityScheme' in scheme) {
    const { flows, ...rest } = scheme.oauth2SecurityScheme;
    return { type: 'oauth2', ...rest, flows: flowsToV03(flows) };
  }
  if ('openIdConnectSecurityScheme' in scheme) return { type: 'openIdConnect', ...scheme.openIdConnectSecurityScheme };
  return { type: 'mutualTLS', ...scheme.mtlsSecurityScheme };
}

function flowsToV03(flows: OAuthFlows): V03OAuthFlows {
  if ('authorizationCode' in flows) {
    const { pkceRequired: _pkce, ...flow } = flows.authorizationCode;
    return { authorizationCode: flow };
  }
  if ('clientCredentials' in flows) return { clientCredentials: flows.clientCredentials };
  if ('implicit' in flows) return { implicit: { authorizationUrl: '', scopes: {}, ...flows.implicit } };
  if ('password' in flows) return { password: { tokenUrl: '', scopes: {}, ...flows.password } };
  return {};
}

// ---- 0.3 → 1.0 ----

export interface CardToV10Options {
  /** Keep `signatures` (default false: they were computed over the 0.3 JSON). */
  keepSignatures?: boolean;
}

/**
 * 0.3 → 1.0 (client side, for 0.3-only agents). `url` + `preferredTransport` (default JSONRPC)
 * become the first interface, `additionalInterfaces` the others (the duplicate of the main one
 * skipped), all with the card's `protocolVersion` as Major.Minor. Lossy:
 * `capabilities.stateTransitionHistory`; an OAuth2 scheme with several flows keeps one
 * (authorizationCode, clientCredentials, implicit, password, in that order); one with no flow
 * is dropped.
 */
export function agentCardToV10(input: unknown, options: CardToV10Options = {}): AgentCard {
  const card = asObj(input, '');
  const version = parseVersion(typeof card.protocolVersion === 'string' ? card.protocolVersion : '') ?? '0.3';
  const out = copy(
    {
      supportedInterfaces: interfacesToV10(card, version),
      capabilities: capabilitiesToV10(card.capabilities, card.supportsAuthenticatedExtendedCard),
      skills: asArray(card.skills ?? [], 'skills').map((s, i) => skillToV10(s, join('skills', i))),
    } as AgentCard,
    card,
    CARD_COMMON,
  );
  if (card.securitySchemes !== undefined) {
    const schemes: Record<string, SecurityScheme> = {};
    for (const [name, value] of Object.entries(asObj(card.securitySchemes, 'securitySchemes'))) {
      const scheme = schemeToV10(value, join('securitySchemes', name));
      if (scheme !== undefined) schemes[name] = scheme;
    }
    out.securitySchemes = schemes;
  }
  if (card.security !== undefined) out.securityRequirements = requirementsToV10(card.security, 'security');
  if (card.signatures !== undefined && options.keepSignatures) out.signatures = card.signatures as AgentCard['signatures'];
  return out;
}

function interfacesToV10(card: Obj, version: string): AgentInterface[] {
  const main: AgentInterface = { url: card.url as string, protocolBinding: (card.preferredTransport as string | undefined) ?? 'JSONRPC', protocolVersion: version };
  const out = [main];
  const extra = card.additionalInterfaces === undefined ? [] : asArray(card.additionalInterfaces, 'additionalInterfaces');
  for (const [i, item] of extra.entries()) {
    const iface = asObj(item, join('additionalInterfaces', i));
    const next: AgentInterface = { url: iface.url as string, protocolBinding: iface.transport as string, protocolVersion: version };
    if (!out.some((o) => o.url === next.url && o.protocolBinding === next.protocolBinding)) out.push(next);
  }
  return out;
}

function capabilitiesToV10(input: unknown, extended: unknown): AgentCapabilities {
  const caps = input === undefined ? {} : asObj(input, 'capabilities');
  const out: AgentCapabilities = copy({}, caps, ['streaming', 'pushNotifications']);
  if (caps.extensions !== undefined) {
    out.extensions = asArray(caps.extensions, 'capabilities.extensions').map((e, i) => copy({}, asObj(e, join('capabilities.extensions', i)), ['uri', 'description', 'required', 'params']) as AgentExtension);
  }
  if (extended !== undefined) out.extendedAgentCard = extended as boolean;
  return out;
}

function skillToV10(input: unknown, field: string): AgentSkill {
  const skill = asObj(input, field);
  const out = copy({} as AgentSkill, skill, ['id', 'name', 'description', 'tags', 'examples', 'inputModes', 'outputModes']);
  if (skill.security !== undefined) out.securityRequirements = requirementsToV10(skill.security, join(field, 'security'));
  return out;
}

function requirementsToV10(input: unknown, field: string): SecurityRequirement[] {
  return asArray(input, field).map((r, i) => ({ schemes: mapValues(asObj(r, join(field, i)) as Record<string, string[]>, (list) => ({ list })) }));
}

function schemeToV10(input: unknown, field: string): SecurityScheme | undefined {
  const { type, ...rest } = asObj(input, field);
  switch (type) {
    case 'apiKey': {
      const { in: location, ...others } = rest;
      return { apiKeySecurityScheme: { ...others, location } as never };
    }
    case 'http':
      return { httpAuthSecurityScheme: rest as never };
    case 'oauth2': {
      const { flows, ...others } = rest;
      const flow = flowToV10(flows === undefined ? {} : asObj(flows, join(field, 'flows')));
      return flow === undefined ? undefined : { oauth2SecurityScheme: { ...others, flows: flow } as never };
    }
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: rest as never };
    case 'mutualTLS':
      return { mtlsSecurityScheme: rest };
    default:
      return undefined;
  }
}

const FLOW_PREFERENCE = ['authorizationCode', 'clientCredentials', 'implicit', 'password'] as const;

function flowToV10(flows: Obj): OAuthFlows | undefined {
  for (const name of FLOW_PREFERENCE) {
    if (isObj(flows[name])) return { [name]: flows[name] } as unknown as OAuthFlows;
  }
  return undefined;
}

function mapValues<A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key !== '__proto__') out[key] = fn(value);
  }
  return out;
}

/** True for a card in the 0.3 shape (a top-level `url`, no `supportedInterfaces`). */
export const isV03Card: (card: unknown) => boolean = isV03CardShape;
