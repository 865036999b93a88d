/**
 * What an Agent Card signature covers (SIGN-02/03), chosen by the card's shape:
 *
 * A 1.0 card: the card without `signatures`, with the proto presence rules applied at every
 * nesting level, then JCS-canonicalized (./jcs.ts).
 * - REQUIRED fields are kept, even at their default (`"description": ""`, `"skills": []`);
 * - fields with explicit presence (proto3 `optional`, oneof members) are kept whenever set,
 *   even to `false`/`""` (`capabilities.streaming: false` stays);
 * - every other field is omitted at its default: `false`, `0`, `""`, the zero enum value, `[]`,
 *   `{}`, `null` (`capabilities.extensions: []` goes).
 * Members that are not AgentCard fields are not part of the payload (as in any ProtoJSON
 * round trip); Struct values (`params`) are arbitrary JSON and kept as they are.
 *
 * An A2A 0.3 card (a top-level `url`, no `supportedInterfaces`: isV03CardShape): the card JSON
 * without `signatures`, with empty members ("", null, [], {}) removed at every level, then
 * JCS-canonicalized; a verifier also accepts the other forms 0.3 signers use (./v03Payload.ts).
 * The 1.0 rules would drop its endpoints (`url`, `additionalInterfaces`, `preferredTransport`)
 * and `security`, none of which are 1.0 fields, leaving them unsigned.
 *
 * A hybrid card (a 1.0 card plus the 0.3 top-level members, isHybridCardShape) is read by both:
 * its signer signs it twice per key (signingPayloadTexts), over the 1.0 form, which the 1.0
 * verifiers check (everything a 1.0 client uses), and over the 0.3 form (the whole card), which
 * 0.3 verifiers check. The two never stand in for each other: a 0.3 payload always has a
 * top-level `url`, a 1.0 payload never does. Verifying (verificationPayloads) reads a hybrid
 * card as the 1.0 card it is.
 *
 * Runtime-neutral: the 1.0 rules come from the generated table in ./cardPresence.ts.
 */
import type { AgentCard } from '../protocol/types.js';
import { isHybridCardShape, isV03CardShape } from '../protocol/cardShape.js';
import { AGENT_CARD_PRESENCE, type PresenceTable } from './cardPresence.js';
import { canonicalize } from './jcs.js';
import { v03PayloadTexts } from './v03Payload.js';

interface Rule {
  name: string;
  presence: string;
  child: string;
}

function rulesOf(table: PresenceTable, message: string): Rule[] {
  return (table.messages[message] ?? []).map((rule) => {
    const [name = '', presence = 'd', child = ''] = rule.split(':');
    return { name, presence, child };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDefault(value: unknown, child: string): boolean {
  return (
    value === false ||
    value === 0 ||
    value === '' ||
    (child.startsWith('=') && value === child.slice(1)) ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );
}

/** One value of a field (a list element, a map value, or the field itself). */
function valueOf(value: unknown, rule: Rule, table: PresenceTable): unknown {
  const child = rule.child;
  if (child === '' || child === '*' || child.startsWith('=')) return value;
  // A message: walk it (a non-object is left as is: the signature then covers what was sent).
  return isObject(value) ? messageOf(value, child, table) : value;
}

function fieldOf(value: unknown, rule: Rule, table: PresenceTable): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => valueOf(item, rule, table));
  // A map of messages (securitySchemes, scopes...): the map's own keys are data, not fields.
  if (isObject(value) && rule.presence.endsWith('m')) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = valueOf(item, rule, table);
    return out;
  }
  return valueOf(value, rule, table);
}

function messageOf(value: Record<string, unknown>, message: string, table: PresenceTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const rule of rulesOf(table, message)) {
    const raw = value[rule.name];
    if (raw === undefined || raw === null) continue;
    const v = fieldOf(raw, rule, table);
    if (rule.presence.startsWith('d') && isDefault(v, rule.child)) continue;
    out[rule.name] = v;
  }
  return out;
}

function withoutSignatures(card: AgentCard | Record<string, unknown>): Record<string, unknown> {
  const { signatures: _signatures, ...unsigned } = card as Record<string, unknown>;
  return unsigned;
}

/**
 * The card as signed, `signatures` removed: a 0.3 card whole (every member, empty ones too, so
 * all of it is covered), any other card with the presence rules of `table` applied at every
 * level (see the module comment).
 */
export function cardSigningPayload(card: AgentCard | Record<string, unknown>, table: PresenceTable = AGENT_CARD_PRESENCE): Record<string, unknown> {
  return isV03CardShape(card) ? withoutSignatures(card) : withoutSignatures(messageOf(card as Record<string, unknown>, table.root, table));
}

/** The RFC 8785 text of the signing payload (encode as UTF-8 to sign). */
export function canonicalCard(card: AgentCard | Record<string, unknown>): string {
  return canonicalize(cardSigningPayload(card));
}

/**
 * The texts a signer signs, one signature each: the signing payload; for a hybrid card also the
 * whole card without `signatures` (the 0.3 form, which covers its 0.3 members too).
 */
export function signingPayloadTexts(card: AgentCard | Record<string, unknown>): string[] {
  const own = canonicalCard(card);
  return isHybridCardShape(card) ? [own, canonicalize(withoutSignatures(card))] : [own];
}

/**
 * Every text a signature on `card` may cover: the signing payload for a 1.0 card; for a 0.3
 * card, each form 0.3 signers use (./v03Payload.ts), the one signed here first.
 */
export function verificationPayloads(card: AgentCard | Record<string, unknown>): string[] {
  return isV03CardShape(card) ? v03PayloadTexts(withoutSignatures(card)) : [canonicalCard(card)];
}
