/**
 * REST-04: the query string of a GET / DELETE as the request message's JSON, so that one decoder
 * treats it as it treats a JSON body (OPS-01, JSON-02/03). A key is the field's JSON name or its
 * proto name (`includeArtifacts` or `include_artifacts`), normalised to the JSON name; a boolean
 * field takes `true` / `false`; an enum field takes its value name or, like a JSON body, its
 * number (`status=4`). Numbers stay strings, which the decoder accepts as ProtoJSON allows.
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { invalidField, toA2AError } from '../../protocol/errors.js';

const FIELDS = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>();

/** The fields of `desc` by JSON name and by proto name. */
function fieldsOf(desc: DescMessage): ReadonlyMap<string, DescField> {
  let fields = FIELDS.get(desc);
  if (!fields) {
    fields = new Map(desc.fields.flatMap((f) => [[f.name, f] as const, [f.jsonName, f] as const]));
    FIELDS.set(desc, fields);
  }
  return fields;
}

const DIGITS = /^\d+$/;

/** One query value as the JSON value of `field`. */
function jsonValue(field: DescField, value: string): unknown {
  if (field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL) {
    if (value !== 'true' && value !== 'false') throw toA2AError(invalidField(field.jsonName, 'must be true or false'));
    return value === 'true';
  }
  return field.fieldKind === 'enum' && DIGITS.test(value) ? Number(value) : value;
}

/**
 * The request fields of `query` for the request message `desc`. `skip` names parameters that are
 * not request fields (API keys in the query are credentials). Unknown keys are kept as given, for
 * the decoder to refuse.
 */
export function queryParams(query: URLSearchParams, desc: DescMessage, skip: ReadonlySet<string> | undefined): Record<string, unknown> {
  const fields = fieldsOf(desc);
  const out: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (key === 'A2A-Version' || key === '__proto__' || skip?.has(key)) continue;
    const field = fields.get(key);
    if (field) out[field.jsonName] = jsonValue(field, value);
    else out[key] = value;
  }
  return out;
}
