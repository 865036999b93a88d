/**
 * The CA certificates gRPC over TLS trusts when the caller names none: the same as HTTPS in this
 * process. grpc-js builds its own TLS context, which leaves out NODE_EXTRA_CA_CERTS, so a
 * certificate that `fetch` accepts would fail with "self-signed certificate" over gRPC.
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

type GetCACertificates = (type: 'default') => string[];

/** PEM roots: Node's default store (with --use-system-ca and NODE_EXTRA_CA_CERTS where Node has getCACertificates), else Node's bundled roots plus the NODE_EXTRA_CA_CERTS file. */
export function defaultTrustRoots(env: Record<string, string | undefined> = process.env): Buffer {
  const getCACertificates = (tls as unknown as { getCACertificates?: GetCACertificates }).getCACertificates;
  if (typeof getCACertificates === 'function') return Buffer.from(getCACertificates('default').join('\n'));
  const roots = [...tls.rootCertificates];
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      roots.push(readFileSync(extra, 'utf8'));
    } catch {
      // Node has already warned at startup that it could not load this file.
    }
  }
  return Buffer.from(roots.join('\n'));
}
