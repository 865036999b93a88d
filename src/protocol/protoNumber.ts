/**
 * ProtoJSON 32-bit integers (JSON-03): a JSON number, or a string holding a decimal number
 * (exponent notation allowed, as the ProtoJSON spec says; no hex, binary or octal forms, no
 * surrounding whitespace, which Number() would accept), whose value is an integer in range.
 */
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The value as an int32, or undefined when it is not one. */
export function protoInt32(value: unknown): number | undefined {
  const n = typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : undefined;
}
