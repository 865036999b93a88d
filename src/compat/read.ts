/**
 * Small helpers for reading untrusted 0.3 JSON. The translators check only what they need to
 * route a value (discriminators, which file variant, object-ness); the types of leaf values are
 * left to the 1.0 decoder (`decodeRequest`) that runs after translation. Failures are
 * InvalidParamsError with a field path, like the decoder's.
 */
import { invalidField } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/types.js';

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asObj(value: unknown, field: string): Obj {
  if (!isObj(value)) throw invalidField(field || '(root)', 'must be a JSON object');
  return value;
}

export function asArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidField(field, 'must be an array');
  return value;
}

/** A child path: `join('a', 'b')` = `a.b`, `join('', 'b')` = `b`. */
export function join(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

/**
 * Copies the listed members that are present (not undefined) from `src` to `out`, unchanged.
 * Values are passed through as-is: the 1.0 decoder validates and copies them afterwards.
 */
export function copy<T extends object>(out: T, src: object, keys: readonly string[]): T {
  const from = src as Obj;
  const to = out as Obj;
  for (const key of keys) {
    if (from[key] !== undefined) to[key] = from[key];
  }
  return out;
}

/** `metadata` when present, typed for the 1.0/0.3 objects (both are JSON objects). */
export function metadataOf(src: Obj): JsonObject | undefined {
  return src.metadata === undefined ? undefined : (src.metadata as JsonObject);
}
