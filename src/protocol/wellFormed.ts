/**
 * Text every binding can carry: a string without lone UTF-16 surrogates (`"\ud800"` is valid
 * JSON but has no UTF-8 encoding, so protobuf, and with it gRPC, cannot carry it).
 * String.prototype.isWellFormed / toWellFormed are Node 20 (ES2024, beyond the ES2022 lib).
 */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** No lone surrogates: the string has a UTF-8 encoding. */
export function isWellFormed(s: string): boolean {
  return (s as unknown as WellFormedString).isWellFormed();
}

/** `s` with each lone surrogate replaced by U+FFFD (what a UTF-8 encoder writes for it). */
export function toWellFormed(s: string): string {
  return (s as unknown as WellFormedString).toWellFormed();
}

/** The violation of a string that is not well-formed, in the words of the gRPC decoder. */
export const NOT_UTF8 = 'must be valid UTF-8 (it has a lone UTF-16 surrogate)';
/** The same for a key of a map or JSON object (the violation names the object: the key cannot be shown). */
export const KEY_NOT_UTF8 = 'has a key that is not valid UTF-8 (a lone UTF-16 surrogate)';

/**
 * JSON `value` with every lone surrogate, in strings and keys, replaced by U+FFFD: the value
 * itself when it has none (nothing is copied), else a copy. For answers built from data stored
 * before strings were checked on entry (or by a custom store), which gRPC could not carry as is.
 */
export function wellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return isWellFormed(value) ? value : toWellFormed(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(wellFormedJson);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  const record = value as Record<string, unknown>;
  let changed = false;
  const entries = Object.keys(record).map((key): [string, unknown] => {
    const k = isWellFormed(key) ? key : toWellFormed(key);
    const v = wellFormedJson(record[key]);
    if (k !== key || v !== record[key]) changed = true;
    return [k, v];
  });
  // Object.fromEntries defines properties: a stored "__proto__" key stays a key.
  return changed ? Object.fromEntries(entries) : value;
}
