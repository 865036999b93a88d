/**
 * JSON Canonicalization Scheme (RFC 8785, SIGN-04): object members sorted by their names as
 * UTF-16 code units, no insignificant whitespace, numbers in ECMAScript (ES6) form, strings
 * escaped as JSON.stringify does (which is what RFC 8785 §3.2.2.2 prescribes). Runtime-neutral.
 */

/**
 * The canonical JSON text of `value` (RFC 8785); encode it as UTF-8 to sign or hash it.
 * Throws TypeError for what JSON cannot carry (NaN, Infinity, bigint, functions, undefined
 * as a value; undefined members are skipped as JSON.stringify does).
 */
export function canonicalize(value: unknown): string {
  if (typeof value === 'number') {
    // RFC 8785 §3.2.2.3: the ECMAScript Number-to-String algorithm, i.e. String(n) (and -0 is "0").
    if (!Number.isFinite(value)) throw new TypeError(`JCS cannot represent ${value}`);
    return String(value);
  }
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object') throw new TypeError(`JCS cannot represent a ${typeof value}`);
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  const record = value as Record<string, unknown>;
  // Array.prototype.sort without a comparator orders strings by UTF-16 code units (never by locale).
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalize(record[key])}`);
  return `{${members.join(',')}}`;
}

/** The canonical form as UTF-8 bytes: what signatures are computed over. */
export function canonicalizeToBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalize(value));
}
