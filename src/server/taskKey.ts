/**
 * The one key of a (tenant, id) pair in the server's in-process maps: the task store, the
 * per-task write locks, the event bus, the task runner, leases, push tracking.
 *
 * In the default tenant the key is the id itself: a server-made id is already a flat string whose
 * hash V8 caches, so a lookup makes no new string. (A `tenant + "\0" + id` concatenation made per
 * lookup had to be flattened and hashed each time, several times per request.) Any other pair
 * is `<tenant length>\0<tenant><id>`, which always holds a NUL and so never equals a plain id,
 * and whose length prefix makes it injective whatever the tenant and the id contain.
 */
const NUL = '\u0000';

export function taskKey(tenant: string, id: string): string {
  if (tenant === '' && !id.includes(NUL)) return id;
  return `${tenant.length}${NUL}${tenant}${id}`;
}

/** The (tenant, id) a key was made from. */
export function splitTaskKey(key: string): { tenant: string; id: string } {
  const cut = key.indexOf(NUL);
  if (cut < 0) return { tenant: '', id: key };
  const end = cut + 1 + Number(key.slice(0, cut));
  return { tenant: key.slice(cut + 1, end), id: key.slice(end) };
}
