/**
 * What the validating decoder (./decode.ts) reads of each message's descriptor, once per message
 * type: its fields with their JSON and proto names, REQUIRED (google.api.field_behavior), explicit
 * presence, oneof, whether a field is a google.protobuf.Value or an identifier; the message's
 * oneofs and accepted member names. And the identifier rule: no control characters.
 */
import { getOption, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { FieldBehavior, field_behavior } from '../gen/google/api/field_behavior_pb.js';

export interface FieldPlan {
  field: DescField;
  jsonName: string;
  protoName: string;
  required: boolean;
  /** proto3 `optional`: keep explicitly set default values. */
  explicit: boolean;
  oneof: string | undefined;
  /** A google.protobuf.Value: `null` is a value (NULL_VALUE), not "unset". */
  isValue: boolean;
  /** An identifier (ID_FIELDS): no control characters. */
  isId: boolean;
}

export interface MessagePlan {
  fields: FieldPlan[];
  oneofs: { name: string; members: string[] }[];
  /** Every member name the message accepts (JSON and proto names), for `unknownFields: 'reject'`. */
  names: ReadonlySet<string>;
}

const plans = new Map<DescMessage, MessagePlan>();

/** The plan of `desc`, made on first use. */
export function planFor(desc: DescMessage): MessagePlan {
  let plan = plans.get(desc);
  if (plan) return plan;
  plan = {
    fields: desc.fields.map((field) => ({
      field,
      jsonName: field.jsonName,
      protoName: field.name,
      required: getOption(field, field_behavior).includes(FieldBehavior.REQUIRED),
      explicit: field.proto.proto3Optional === true,
      oneof: field.oneof?.localName,
      isValue: field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Value',
      isId: ID_FIELDS.has(field.jsonName),
    })),
    oneofs: desc.oneofs.map((o) => ({ name: o.name, members: o.fields.map((f) => f.jsonName) })),
    names: new Set(desc.fields.flatMap((f) => [f.jsonName, f.name])),
  };
  plans.set(desc, plan);
  return plan;
}

/**
 * Identifier fields: task, context, message, push config and tenant ids. They name rows in
 * stores, keys in logs and segments of REST paths, so control characters (C0, DEL) are refused
 * in them: U+0000 in particular, which PostgreSQL cannot store in text (every store answers alike).
 */
const ID_FIELDS: ReadonlySet<string> = new Set(['id', 'taskId', 'contextId', 'messageId', 'referenceTaskIds', 'tenant']);
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** An identifier the decoder keeps as it is: no control characters (see ID_FIELDS). */
export function isCleanId(value: string): boolean {
  return !CONTROL_CHARS.test(value);
}
