/**
 * The payloads an A2A 0.3 Agent Card signature may cover (SIGN-09). The 0.3 specification says
 * "the card without `signatures`, JCS-canonicalized"; the implementations that sign 0.3 cards
 * first drop empty members, and the Python 0.3 SDK (a2a-sdk 0.3.21+, `canonicalize_agent_card`)
 * also drops members at their pydantic default. The forms, as canonical texts:
 *
 * 1. `clean`: JCS(cleanEmpty(card)) — empty members ("", null, [], {}) removed at every level,
 *    after cleaning their children.
 * 2. `python`: the Python 0.3 SDK's payload: `model_dump(exclude_defaults, exclude_none)` then
 *    `clean_empty`, written by `json.dumps(sort_keys=True, separators=(',', ':'))`. Its defaults
 *    (src/a2a/types.py, v0.3.x): `preferredTransport: "JSONRPC"`, `protocolVersion: "0.3.0"`, and
 *    each security scheme's `type` (a Literal with itself as default). json.dumps escapes every
 *    character outside ASCII ' '..'~' as \uXXXX (ensure_ascii), which JCS does not.
 * 3. `whole`: JCS(card) with every member kept — the 0.3 specification's wording, and what
 *    a2a-kit signs (it covers every member; the other forms leave empty ones unsigned).
 *
 * Runtime-neutral.
 */
import { canonicalize } from './jcs.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value with "", null, undefined, [] and {} removed at every level (undefined when nothing is left). */
export function cleanEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(cleanEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    const cleaned = cleanEmpty(member);
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The 0.3 pydantic AgentCard's default values (exclude_defaults drops members equal to them). */
const PYTHON_CARD_DEFAULTS: Readonly<Json> = { preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' };
const PYTHON_SCHEME_TYPES: readonly string[] = ['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'];

function withoutPythonDefaults(card: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(card)) if (PYTHON_CARD_DEFAULTS[key] !== value) out[key] = value;
  if (isObject(card.securitySchemes)) {
    const schemes: Json = {};
    for (const [name, scheme] of Object.entries(card.securitySchemes)) {
      const typed = isObject(scheme) && PYTHON_SCHEME_TYPES.includes(String(scheme.type));
      schemes[name] = typed ? { ...scheme, type: undefined } : scheme;
    }
    out.securitySchemes = schemes;
  }
  return out;
}

/** json.dumps(ensure_ascii=True) escaping applied to a JCS text (its structure is ASCII, so only strings change). */
function asciiEscaped(text: string): string {
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The card (without `signatures`) with empty members removed: form 1. */
function cleanV03Card(unsigned: Json): Json {
  return (cleanEmpty(unsigned) as Json | undefined) ?? {};
}

/** Every canonical text a 0.3 signature over `unsigned` (the card without `signatures`) may cover, most likely first. */
export function v03PayloadTexts(unsigned: Json): string[] {
  const texts = [
    canonicalize(unsigned),
    canonicalize(cleanV03Card(unsigned)),
    asciiEscaped(canonicalize(cleanV03Card(withoutPythonDefaults(unsigned)))),
  ];
  return texts.filter((text, index) => texts.indexOf(text) === index);
}
