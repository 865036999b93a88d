/**
 * The client address behind trusted proxies (`serveAgent({ trustProxy })`, `a2a serve
 * --trust-proxy`). Behind a load balancer every connection comes from the balancer's address, so
 * everything keyed by the remote address — the per-address request rate and the failed
 * authentications of R25 / SEC-06, the access log, `onCall` — would put every client in one
 * bucket. When the connection comes from a trusted proxy, the client is the rightmost address of
 * `X-Forwarded-For` that is not itself a trusted proxy (each proxy appends the address it was
 * connected from; what is left of the trusted ones is the client's to write, so never believed).
 * A connection from any other address is its own client, whatever it sends. Node only (BlockList).
 */
import { BlockList, isIP } from 'node:net';

export class TrustedProxies {
  private readonly list = new BlockList();

  /**
   * `entries`: addresses (`10.0.0.7`, `::1`) and CIDR ranges (`10.0.0.0/8`, `fd00::/8`) of the
   * proxies in front. Throws a TypeError naming a malformed entry.
   */
  constructor(entries: readonly string[]) {
    for (const entry of entries) this.add(entry.trim());
  }

  /** Whether a connection from `address` is one of the proxies. */
  trusts(address: string): boolean {
    const ip = plainAddress(address);
    const family = ip === undefined ? 0 : isIP(ip);
    return family !== 0 && this.list.check(ip as string, family === 4 ? 'ipv4' : 'ipv6');
  }

  /**
   * The client of a connection from `peer` carrying `forwardedFor` (the X-Forwarded-For header,
   * repeated ones joined with ", "): `peer` unless it is trusted; else the rightmost untrusted
   * hop, the leftmost hop when all are trusted, and the last trusted one when the next is not an
   * address (`unknown`, garbage). `::ffff:`-mapped IPv4 hops are given as IPv4.
   */
  clientAddress(peer: string | undefined, forwardedFor: string | undefined): string | undefined {
    if (peer === undefined || !forwardedFor || !this.trusts(peer)) return peer;
    const hops = forwardedFor.split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(hops[i] as string);
      if (hop === undefined) break;
      client = hop;
      if (!this.trusts(hop)) break;
    }
    return client;
  }

  private add(entry: string): void {
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefix = slash < 0 ? bits : /^\d{1,3}$/.test(entry.slice(slash + 1)) ? Number(entry.slice(slash + 1)) : -1;
    if (family === 0 || prefix < 0 || prefix > bits) {
      throw new TypeError(`trustProxy: ${JSON.stringify(entry)} is not an IP address or CIDR range (10.0.0.0/8, fd00::/8, 192.0.2.7)`);
    }
    this.list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * One address as a hop or a socket gives it: surrounding space and quotes, `[v6]:port`, `v4:port`
 * and the `::ffff:` prefix of a mapped IPv4 taken off; undefined when what is left is no address.
 */
function plainAddress(text: string): string | undefined {
  let s = text.trim().replace(/^"|"$/g, '');
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracket) s = bracket[1] as string;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  if (mapped) s = mapped[1] as string;
  return isIP(s) === 0 ? undefined : s;
}
