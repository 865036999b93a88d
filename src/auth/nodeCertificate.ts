/** Node's TLS peer certificate (node:tls, grpc-js) as the hosts report it to the authenticator. */
import type { PeerCertificate as NodePeerCertificate } from 'node:tls';
import type { PeerCertificate } from './authConfig.js';

export function fromNodeCertificate(cert: NodePeerCertificate, authorized: boolean): PeerCertificate {
  return {
    authorized,
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    ...(cert.subjectaltname ? { subjectAltName: cert.subjectaltname } : {}),
    fingerprint256: cert.fingerprint256,
    serialNumber: cert.serialNumber,
  };
}

/** Node's subject/issuer object as `CN=alice,O=Example` (repeated attributes each listed, RFC 4514 escapes). */
export function distinguishedName(name: NodePeerCertificate['subject'] | undefined): string {
  if (!name) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(name as unknown as Record<string, string | string[]>)) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${key}=${v.replace(/([,+"\\<>;=])/g, '\\$1')}`);
  }
  return parts.join(',');
}
