/**
 * SSRF guard (R14) for every fetch the server starts on someone else's behalf (push webhooks,
 * JWKS, file URLs): only http(s), no userinfo, and only globally routable unicast addresses,
 * whether the host is an IP literal or a name whose every resolved address is checked. Loopback,
 * private and link-local targets pass only with `allowPrivate` (development). `guardedFetch`
 * (./guardedFetch.ts) connects to the address vetted here, so a rebinding resolver cannot swap it.
 */
import { isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { redactUrl } from './redactUrl.js';

export { redactUrl };

export type SsrfBlockReason = 'url' | 'scheme' | 'userinfo' | 'address' | 'resolve' | 'host';

/** A URL the guard refuses. `url` is redacted (scheme, host and port only: ./redactUrl.ts). */
export class SsrfBlockedError extends Error {
  override readonly name = 'SsrfBlockedError';
  readonly reason: SsrfBlockReason;
  readonly url: string;
  /** What was wrong, without the URL ("cannot resolve h.example (ENOTFOUND)"). */
  readonly detail: string;

  constructor(init: { reason: SsrfBlockReason; url: string; detail: string }) {
    super(`SSRF guard blocked ${init.url}: ${init.detail}`);
    this.reason = init.reason;
    this.url = init.url;
    this.detail = init.detail;
  }
}

export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface SsrfOptions {
  /** Allow loopback/private/link-local targets (development only: `--allow-private-webhooks`). */
  allowPrivate?: boolean;
  /** DNS resolver (default: dns.promises.lookup with all: true). Tests inject one. */
  lookup?: LookupAll;
}

// ---------------------------------------------------------------------------------------------
// Address parsing and classification
// ---------------------------------------------------------------------------------------------

/** Strict dotted-quad parser (the only IPv4 form `isIP` accepts). */
function parseIPv4(ip: string): [number, number, number, number] | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out as [number, number, number, number];
}

/** IPv6 text (optionally with an embedded dotted quad) to eight 16-bit groups. */
function parseIPv6(ip: string): number[] | undefined {
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    // Keep the colon(s) before the dotted quad: `::1.2.3.4` -> `::`, `a::b:1.2.3.4` -> `a::b`.
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const groups: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      groups.push(parseInt(g, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (!head || !rest) return undefined;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  }
  return explicit === 8 ? [...head, ...tail] : undefined;
}

function inV4(a: readonly number[], prefix: readonly number[], bits: number): boolean {
  let remaining = bits;
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((a[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** IPv4 ranges that are not globally routable unicast (IANA special-purpose registry and friends). */
const V4_BLOCKED: Array<[number[], number]> = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // TEST-NET-1
  [[192, 88, 99, 0], 24], // 6to4 relay anycast (deprecated)
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // TEST-NET-2
  [[203, 0, 113, 0], 24], // TEST-NET-3
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, includes 255.255.255.255
];

function isPublicV4(a: readonly number[]): boolean {
  return !V4_BLOCKED.some(([prefix, bits]) => inV4(a, prefix, bits));
}

function inV6(g: readonly number[], prefix: readonly number[], bits: number): boolean {
  let remaining = bits;
  for (let i = 0; remaining > 0; i++, remaining -= 16) {
    const mask = remaining >= 16 ? 0xffff : (0xffff << (16 - remaining)) & 0xffff;
    if (((g[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Ranges inside 2000::/3 that are not globally routable unicast. */
const V6_BLOCKED_IN_GLOBAL: Array<[number[], number]> = [
  [[0x2001, 0x0000], 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)
  [[0x2001, 0x0db8], 32], // documentation
  [[0x3fff, 0x0000], 20], // documentation (RFC 9637)
  [[0x5f00], 16], // SRv6 SIDs
];

function embeddedV4(g: readonly number[], at: number): number[] {
  const hi = g[at] ?? 0;
  const lo = g[at + 1] ?? 0;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function isPublicV6(g: readonly number[]): boolean {
  // ::ffff:0:0/96 (IPv4-mapped): the embedded IPv4 decides.
  if (inV6(g, [0, 0, 0, 0, 0, 0xffff], 96)) return isPublicV4(embeddedV4(g, 6));
  // 64:ff9b::/96 (NAT64 well-known prefix): the embedded IPv4 decides.
  if (inV6(g, [0x64, 0xff9b, 0, 0, 0, 0], 96)) return isPublicV4(embeddedV4(g, 6));
  // 2002::/16 (6to4): the IPv4 in bits 16..47 decides.
  if (inV6(g, [0x2002], 16)) return isPublicV4(embeddedV4(g, 1));
  // Everything else outside 2000::/3 (global unicast) is not public: ::, ::1, ::/96 compat,
  // 100::/64 discard, 64:ff9b:1::/48 local NAT64, fc00::/7 ULA, fe80::/10 link-local,
  // fec0::/10 site-local, ff00::/8 multicast, and all unallocated space.
  if (!inV6(g, [0x2000], 3)) return false;
  return !V6_BLOCKED_IN_GLOBAL.some(([prefix, bits]) => inV6(g, prefix, bits));
}

/** Classifies an IPv4/IPv6 literal: true only for globally routable unicast addresses. */
export function isPublicAddress(ip: string): boolean {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const family = isIP(text);
  if (family === 4) {
    const v4 = parseIPv4(text);
    return v4 !== undefined && isPublicV4(v4);
  }
  if (family === 6) {
    // A zone index (`fe80::1%eth0`) only makes sense for non-global scopes.
    if (text.includes('%')) return false;
    const v6 = parseIPv6(text);
    return v6 !== undefined && isPublicV6(v6);
  }
  return false;
}

/**
 * What one party is taken to hold, for per-destination limits: an IPv4 address itself (also
 * when written IPv4-mapped), the /64 of an IPv6 address (the least a site is assigned, so one
 * holder's addresses are not counted apart).
 */
export function addressBlock(ip: string): string {
  const v6 = isIP(ip) === 6 ? parseIPv6(ip) : undefined;
  if (!v6) return ip;
  if (inV6(v6, [0, 0, 0, 0, 0, 0xffff], 96)) return embeddedV4(v6, 6).join('.');
  return `${v6
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

// ---------------------------------------------------------------------------------------------
// URL vetting
// ---------------------------------------------------------------------------------------------

function blocked(reason: SsrfBlockReason, url: string | URL, detail: string): SsrfBlockedError {
  return new SsrfBlockedError({ reason, url: redactUrl(url), detail });
}

/** `URL.hostname` without IPv6 brackets. */
function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Synchronous checks usable when a config is created: parses, http/https only, no userinfo,
 * literal IP must be public (unless allowPrivate), hostname 'localhost'/'*.localhost' rejected
 * unless allowPrivate. Returns the URL.
 */
export function vetUrl(url: string | URL, options: SsrfOptions = {}): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw blocked('url', String(url), 'not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw blocked('scheme', parsed, `scheme ${parsed.protocol} is not allowed (http and https only)`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw blocked('userinfo', parsed, 'credentials in the URL are not allowed');
  }
  const host = bareHostname(parsed);
  if (host === '') throw blocked('host', parsed, 'no host');
  if (isIP(host) !== 0) {
    if (!options.allowPrivate && !isPublicAddress(host)) {
      throw blocked('address', parsed, `${host} is not a public address`);
    }
    return parsed;
  }
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (!options.allowPrivate && (name === '' || name === 'localhost' || name.endsWith('.localhost'))) {
    throw blocked('host', parsed, `${host} is a loopback name`);
  }
  return parsed;
}

const defaultLookup: LookupAll = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Resolves the host (or takes the literal) and returns one vetted address; EVERY resolved
 * address must be public unless allowPrivate. Connect to the returned address only.
 */
export async function resolveVetted(url: URL, options: SsrfOptions = {}): Promise<{ address: string; family: 4 | 6 }> {
  const vetted = vetUrl(url, options);
  const host = bareHostname(vetted);
  const literal = isIP(host);
  if (literal !== 0) return { address: host, family: literal === 6 ? 6 : 4 };

  let answers: Array<{ address: string; family: number }>;
  try {
    answers = await (options.lookup ?? defaultLookup)(host);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw blocked('resolve', vetted, `cannot resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    throw blocked('resolve', vetted, `${host} has no addresses`);
  }
  const checked: Array<{ address: string; family: 4 | 6 }> = [];
  for (const answer of answers) {
    const family = isIP(answer?.address ?? '');
    if (family === 0) throw blocked('resolve', vetted, `${host} resolved to a non-address`);
    if (!options.allowPrivate && !isPublicAddress(answer.address)) {
      throw blocked('address', vetted, `${host} resolves to ${answer.address}, which is not a public address`);
    }
    checked.push({ address: answer.address, family: family === 6 ? 6 : 4 });
  }
  return checked[0] as { address: string; family: 4 | 6 };
}
