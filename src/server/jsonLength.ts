/**
 * The size of a value as JSON, measured without serializing it: each string counts by its
 * characters (escapes not counted), so for ASCII content it is the length of the JSON text. Used
 * for the R16 history caps (taskLimits.ts), the size bound of one ListTasks answer
 * (taskQueries.ts) and the R10 byte bound of a slow stream reader (taskStream.ts).
 */

/** The length of `value` as JSON, each string counted by its characters (no allocation). */
export function jsonLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return String(value).length;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null || typeof value !== 'object') return 4;
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1);
    for (const item of value) n += jsonLength(item);
    return n;
  }
  let n = 2;
  let members = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    n += key.length + 3 + jsonLength(item);
    members++;
  }
  return n + Math.max(0, members - 1);
}

const lengths = new WeakMap<object, number>();

/**
 * jsonLength of an object that is not changed once stored (a message in a task's history, a
 * logged event), remembered per object: one object shared by many readers is measured once.
 */
export function storedJsonLength(value: object): number {
  let length = lengths.get(value);
  if (length === undefined) {
    length = jsonLength(value);
    lengths.set(value, length);
  }
  return length;
}
