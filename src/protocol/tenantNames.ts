/**
 * Tenant names the HTTP+JSON binding can never address (TENANT-08). `/{tenant}/tasks` and
 * `/tasks/{id}` have the same number of segments, so literal first segments are routed first: a
 * tenant called `tasks` would be GetTask of the id `tasks`. Dot segments are resolved away by
 * URL parsers (RFC 3986). One list serves the hosted tenants' names (checked at start-up) and the
 * `tenant` field of every request on every binding (refused as InvalidParams).
 */

/** Path segments the REST binding matches literally. */
export const RESERVED_TENANT_NAMES: readonly string[] = ['tasks', 'message:send', 'message:stream', 'extendedAgentCard', '.well-known'];

const RESERVED: ReadonlySet<string> = new Set([...RESERVED_TENANT_NAMES, '.', '..']);

/** True when no REST path can carry `name` as its `/{tenant}/` prefix. */
export function isReservedTenantName(name: string): boolean {
  return RESERVED.has(name);
}

/** The description of the violation on a request's `tenant` field. */
export const RESERVED_TENANT_PROBLEM = `must not be ${RESERVED_TENANT_NAMES.map((r) => JSON.stringify(r)).join(', ')}, "." or "..": the HTTP+JSON binding could never address that tenant (TENANT-08)`;
