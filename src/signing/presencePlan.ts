/**
 * The SIGN-03 presence rules of every message reachable from a root message, read from the
 * descriptors generated from proto/a2a.proto: which fields are REQUIRED (google.api.field_behavior),
 * which have explicit presence (proto3 `optional`, oneof members), and which are implicit (omitted
 * at their default). The result is plain data (a PresenceTable): ./cardPresence.ts holds the one
 * for AgentCard so the runtime-neutral client needs neither the protobuf runtime nor src/gen, and
 * test/signing/presence.test.ts fails when it drifts from the descriptors.
 *
 * Regenerate: npx tsx src/signing/presencePlan.ts --write
 */
import { getOption, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../gen/google/api/field_behavior_pb.js';
import type { PresenceTable } from './cardPresence.js';

/** Messages whose JSON is arbitrary JSON (kept as is, never walked). */
const JSON_WKT = new Set(['google.protobuf.Struct', 'google.protobuf.Value', 'google.protobuf.ListValue']);
/** Messages whose JSON is a scalar (a string): treated like one. */
const SCALAR_WKT = new Set(['google.protobuf.Timestamp', 'google.protobuf.Duration', 'google.protobuf.FieldMask']);

function shortName(desc: DescMessage): string {
  return desc.typeName.replace(/^lf\.a2a\.v1\./, '');
}

/** The child part of a rule: a message name, `*` (JSON), or `=ZERO_ENUM_NAME`. */
function childOf(field: DescField, visit: (desc: DescMessage) => string): string {
  const kind = field.fieldKind === 'list' ? field.listKind : field.fieldKind === 'map' ? field.mapKind : field.fieldKind;
  if (kind === 'enum') {
    const e = field.fieldKind === 'list' || field.fieldKind === 'map' || field.fieldKind === 'enum' ? field.enum : undefined;
    const zero = e?.values.find((v) => v.number === 0);
    return zero ? `=${zero.name}` : '';
  }
  if (kind !== 'message') return '';
  const desc = (field as { message: DescMessage }).message;
  if (JSON_WKT.has(desc.typeName)) return '*';
  if (SCALAR_WKT.has(desc.typeName)) return '';
  return visit(desc);
}

/**
 * One rule per field: `jsonName:presence[:child]` where presence is `r` (REQUIRED: always kept),
 * `o` (explicit presence: kept whenever set) or `d` (implicit: omitted at its default value),
 * followed by `m` for a map field.
 */
export function presenceTableFor(root: DescMessage): PresenceTable {
  const messages: Record<string, string[]> = {};
  const visit = (desc: DescMessage): string => {
    const name = shortName(desc);
    if (messages[name]) return name;
    const rules: string[] = [];
    messages[name] = rules;
    for (const field of desc.fields) {
      const required = getOption(field, field_behavior).includes(FieldBehavior.REQUIRED);
      const explicit = field.proto.proto3Optional === true || field.oneof !== undefined;
      const presence = (required ? 'r' : explicit ? 'o' : 'd') + (field.fieldKind === 'map' ? 'm' : '');
      const child = childOf(field, visit);
      rules.push(child ? `${field.jsonName}:${presence}:${child}` : `${field.jsonName}:${presence}`);
    }
    return name;
  };
  return { root: visit(root), messages };
}

const HEADER = `/**
 * The SIGN-03 presence rules of AgentCard and every message inside it, generated from the
 * descriptors of proto/a2a.proto by ./presencePlan.ts. Do not edit: run
 * \`npx tsx src/signing/presencePlan.ts --write\` (test/signing/presence.test.ts checks it).
 * Plain data, so the runtime-neutral client applies the rules without the protobuf runtime.
 */

/**
 * Per message, one rule per field: \`jsonName:presence[:child]\`. presence: \`r\` REQUIRED (always
 * kept), \`o\` explicit presence (\`optional\` or a oneof member: kept whenever set), \`d\` implicit
 * (omitted at its default), followed by \`m\` for a map. child: a message name, \`*\` for arbitrary JSON (Struct/Value), or
 * \`=NAME\` for an enum whose default is NAME.
 */
export interface PresenceTable {
  root: string;
  messages: Record<string, string[]>;
}
`;

/** The whole source of ./cardPresence.ts for `table`. */
export function renderPresenceModule(table: PresenceTable): string {
  const quote = (s: string) => `'${s}'`;
  const lines = Object.entries(table.messages).map(([name, rules]) => `    ${name}: [${rules.map(quote).join(', ')}],`);
  return `${HEADER}\nexport const AGENT_CARD_PRESENCE: PresenceTable = {\n  root: '${table.root}',\n  messages: {\n${lines.join('\n')}\n  },\n};\n`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/')) && process.argv.includes('--write')) {
  const { writeFileSync } = await import('node:fs');
  const { AgentCardSchema } = await import('../gen/a2a_pb.js');
  const path = new URL('./cardPresence.ts', import.meta.url);
  writeFileSync(path, renderPresenceModule(presenceTableFor(AgentCardSchema)));
  console.log(`wrote ${path.pathname}`);
}
