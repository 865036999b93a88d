/**
 * Serving the Agent Card to A2A 0.3 clients (issue 9, digest §5.4 option c + b). Pure functions;
 * the card route picks the body with `cardForRequest`.
 *
 * Which card a request gets (the `A2A-Version` header of the card request, else its
 * `A2A-Version` query parameter):
 *  - a 1.x (or any other non-0.3) version → the 1.0 card, unchanged (signatures intact). Our
 *    client and the official 1.0 JS SDK send `A2A-Version: 1.0` when they fetch the card.
 *  - `0.3` → the 0.3 card (`agentCardForV03`).
 *  - none → by default the hybrid card: the 1.0 card plus the 0.3 top-level members it lacks
 *    (`protocolVersion`, `url`, `preferredTransport`, `additionalInterfaces`,
 *    `supportsAuthenticatedExtendedCard`, `security`), so the official 0.3 SDKs (which send no
 *    A2A-Version) find their endpoint and header-less 1.0 readers (curl, browsers) still see
 *    `supportedInterfaces`. `securitySchemes` keeps the 1.0 shape (the two cannot share it);
 *    the 1.0 card's signatures are dropped, since they do not cover the added members.
 * Signatures (SIGN-09): each variant needs its own, over its own JSON. The derived 0.3 and hybrid
 * cards carry none; a server with a signing key signs them once, when the route is built
 * (`signCardVariants`, what serveAgent's `signCard` does): the 0.3 card over its 0.3 form, the
 * hybrid card twice per key (its 1.0 form for 1.0 verifiers, the whole card for 0.3 verifiers).
 * The responses differ by A2A-Version: the route must send `Vary: A2A-Version` and an ETag per
 * variant. The cards a 0.3 client gets from a call — the extended card, the 0.3 gRPC
 * GetAgentCard answer — are the `V03CardForms` of the server's cards, signed the same way
 * (`signV03CardForms`; an extended card made per call, per call).
 */
import { parseVersion, VERSION_HEADER } from '../protocol/serviceParams.js';
import type { CardSigner } from '../signing/cardSigner.js';
import type { AgentCard, AgentInterface } from '../protocol/types.js';
import { agentCardToV03 } from './card.js';
import type { V03AgentCard } from './v03Types.js';

export interface V03CardOptions {
  /**
   * Bindings (`protocolBinding` values) whose 1.0 endpoints also answer 0.3 requests (our
   * compat layer serves 0.3 on the same URLs). Default: JSONRPC and HTTP+JSON.
   */
  bindings?: readonly string[];
}

const DEFAULT_BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON'];

function isV03(i: AgentInterface): boolean {
  return parseVersion(i.protocolVersion) === '0.3';
}

/** The 0.3 twins of the card's 1.x interfaces of the served bindings (tenant interfaces skipped: 0.3 has no tenant). */
function derivedV03Interfaces(card: AgentCard, bindings: readonly string[]): AgentInterface[] {
  const out: AgentInterface[] = [];
  for (const i of card.supportedInterfaces) {
    if (isV03(i) || !bindings.includes(i.protocolBinding) || (i.tenant ?? '') !== '') continue;
    if (out.some((o) => o.url === i.url && o.protocolBinding === i.protocolBinding)) continue;
    out.push({ url: i.url, protocolBinding: i.protocolBinding, protocolVersion: '0.3' });
  }
  return out;
}

/**
 * The card with one 0.3 interface per served 1.x endpoint appended (the card "advertises both
 * versions, one interface per version", §3.6.2), unless it already lists 0.3 interfaces.
 * For the lead's wiring of the public 1.0 card when compat is on; optional.
 */
export function withV03Interfaces(card: AgentCard, options: V03CardOptions = {}): AgentCard {
  if (card.supportedInterfaces.some(isV03)) return card;
  const extra = derivedV03Interfaces(card, options.bindings ?? DEFAULT_BINDINGS);
  return extra.length === 0 ? card : { ...card, supportedInterfaces: [...card.supportedInterfaces, ...extra] };
}

/**
 * The 0.3 card for 0.3 clients: the card's 0.3 interfaces when it lists any, else the 0.3 twins
 * of its 1.x endpoints of the served bindings (JSON-RPC first when present, the 0.3 default
 * `preferredTransport`). Signatures are dropped (see agentCardToV03).
 */
export function agentCardForV03(card: AgentCard, options: V03CardOptions = {}): V03AgentCard {
  if (card.supportedInterfaces.some(isV03)) return agentCardToV03(card);
  const derived = derivedV03Interfaces(card, options.bindings ?? DEFAULT_BINDINGS);
  if (derived.length === 0) return agentCardToV03(card);
  const ordered = [...derived.filter((i) => i.protocolBinding === 'JSONRPC'), ...derived.filter((i) => i.protocolBinding !== 'JSONRPC')];
  return agentCardToV03({ ...card, supportedInterfaces: ordered });
}

/** The 0.3 members a 1.0 card lacks, added by the hybrid card. */
const V03_ONLY_MEMBERS = ['protocolVersion', 'url', 'preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard', 'security'] as const;

export type HybridAgentCard = AgentCard & Partial<Pick<V03AgentCard, (typeof V03_ONLY_MEMBERS)[number]>>;

/**
 * The 1.0 card plus the 0.3-only top-level members, without `signatures`: the 1.0 signatures
 * cover only AgentCard fields (SIGN-03), not the added endpoints (`url`, `additionalInterfaces`,
 * `preferredTransport`) and `security`, so a 0.3 reader trusting them would act on unsigned
 * members (anyone could change them and the signature would still verify).
 */
export function hybridAgentCard(card: AgentCard, options: V03CardOptions = {}): HybridAgentCard {
  const v03 = agentCardForV03(card, options);
  const { signatures: _signatures, ...out }: HybridAgentCard = card;
  for (const key of V03_ONLY_MEMBERS) {
    if (v03[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = v03[key];
  }
  return out;
}

export type CardVariant = '1.0' | '0.3' | 'hybrid';

export interface CardRequest {
  /** Header lookup; called with the lowercase name (as HttpRequest.header expects). */
  header(name: string): string | undefined;
  query?: URLSearchParams;
}

export interface CardForRequestOptions extends V03CardOptions {
  /** What a request without A2A-Version gets (default 'hybrid'). */
  absent?: CardVariant;
}

/** Which card variant a card request gets (rules in the module comment). */
export function cardVariantFor(request: CardRequest, options: CardForRequestOptions = {}): CardVariant {
  const raw = (request.header(VERSION_HEADER.toLowerCase()) ?? '').trim() || (request.query?.get(VERSION_HEADER) ?? '').trim();
  if (raw === '') return options.absent ?? 'hybrid';
  return parseVersion(raw) === '0.3' ? '0.3' : '1.0';
}

/**
 * The card body for a request to the well-known card URL (or any card route): the variant
 * chosen by `cardVariantFor` and the JSON to serve. Only call it when 0.3 compat is on; a
 * 1.0-only server serves `card` as is.
 */
export function cardForRequest(
  card: AgentCard,
  request: CardRequest,
  options: CardForRequestOptions = {},
): { variant: CardVariant; body: AgentCard | V03AgentCard | HybridAgentCard } {
  const variant = cardVariantFor(request, options);
  if (variant === '1.0') return { variant, body: card };
  if (variant === '0.3') return { variant, body: agentCardForV03(card, options) };
  return { variant, body: hybridAgentCard(card, options) };
}

/** The 0.3 and hybrid cards a versioned card route serves next to the 1.0 card. */
export interface V03CardVariants {
  '0.3': V03AgentCard;
  hybrid: HybridAgentCard;
}

/**
 * The 0.3 and hybrid cards of `card`, each signed by `sign` over its own JSON (SIGN-09): the 0.3
 * card over the 0.3 form, the hybrid card over both forms (signAgentCard picks them by shape).
 * Called once when the route is built (serveAgent with `signCard`), never per request. Given
 * `V03CardForms` that hold the card's signed 0.3 form (`signV03CardForms`), that one is used, so
 * the well-known 0.3 card and the 0.3 gRPC GetAgentCard answer carry the same signature.
 */
export async function signCardVariants(card: AgentCard, sign: CardSigner, options: V03CardOptions | V03CardForms = {}): Promise<V03CardVariants> {
  const forms = options instanceof V03CardForms ? options : await signV03CardForms([card], sign, options);
  return { '0.3': await forms.of(card), hybrid: await sign(hybridAgentCard(card, forms.options)) };
}

/**
 * The 0.3 form of each card a server answers a 0.3 card call with: the extended card of
 * `agent/getAuthenticatedExtendedCard` (JSON-RPC) and `GET /v1/card` (REST), and the card of the
 * 0.3 gRPC `GetAgentCard` (the extended card, else the public one). Forms prepared beforehand —
 * signed, by `signV03CardForms` — are looked up by the 1.0 card's content (a tenant router copies
 * the cards it is given); any other card's form (an extended card built per caller, say) is
 * derived per call, and signed per call when the forms have a signer (those of
 * `signV03CardForms` do), else unsigned. SIGN-09: a 1.0 card's signatures do not cover its 0.3 form.
 */
export class V03CardForms {
  readonly #prepared = new Map<string, V03AgentCard>();
  readonly #sign: CardSigner | undefined;

  constructor(
    readonly options: V03CardFormOptions = {},
    sign?: CardSigner,
  ) {
    this.#sign = sign;
  }

  /** The 0.3 form of `card`: the one prepared for it, else `agentCardForV03`, signed as the wire carries it when there is a signer. */
  async of(card: AgentCard): Promise<V03AgentCard> {
    const prepared = this.#prepared.get(JSON.stringify(card));
    if (prepared) return prepared;
    const form = agentCardForV03(card, this.options);
    return this.#sign ? this.#sign(carriedForm(form, this.options)) : form;
  }

  /** Serve `form` as the 0.3 form of `card`. */
  prepare(card: AgentCard, form: V03AgentCard): this {
    this.#prepared.set(JSON.stringify(card), form);
    return this;
  }
}

export interface V03CardFormOptions extends V03CardOptions {
  /**
   * The card as the binding's wire delivers it to the client, which is what a signature must
   * cover (default: unchanged — JSON carries every member). The 0.3 gRPC service passes
   * `agentCardOverGrpc03`: its proto drops some members.
   */
  carried?: (card: V03AgentCard) => V03AgentCard;
}

/**
 * The 0.3 forms of `cards` (a server's public and extended cards, each tenant's), each signed by
 * `sign` over its own JSON as the wire carries it (SIGN-09), once: what serveAgent with
 * `signCard` builds at start.
 */
export async function signV03CardForms(cards: readonly AgentCard[], sign: CardSigner, options: V03CardFormOptions = {}): Promise<V03CardForms> {
  const forms = new V03CardForms(options, sign);
  for (const card of cards) forms.prepare(card, await sign(carriedForm(agentCardForV03(card, options), options)));
  return forms;
}

/** The 0.3 card as the binding's wire carries it (V03CardFormOptions.carried): what a signature covers. */
function carriedForm(card: V03AgentCard, options: V03CardFormOptions): V03AgentCard {
  return options.carried ? options.carried(card) : card;
}
