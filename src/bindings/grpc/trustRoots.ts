/**
 * The CA certificates gRPC over TLS trusts when the caller names none. grpc-js trusts Node's
 * default store (NODE_EXTRA_CA_CERTS included) unless GRPC_DEFAULT_SSL_ROOTS_FILE_PATH names a
 * file, which then replaces it: a certificate that `fetch` accepts through NODE_EXTRA_CA_CERTS
 * would fail over gRPC with "self-signed certificate". That file keeps its place here, with the
 * NODE_EXTRA_CA_CERTS certificates added.
 */
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

type Env = Record<string, string | undefined>;
type GetCACertificates = (type: 'extra') => string[];

/** PEM roots for grpc-js's createSsl, or null for its default (Node's store). */
export function defaultTrustRoots(env: Env = process.env): Buffer | null {
  const grpcRoots = env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH ? readPem(env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH) : undefined;
  const extra = extraRoots(env);
  if (grpcRoots === undefined || extra.length === 0) return null;
  return Buffer.from([grpcRoots, ...extra].join('\n'));
}

function extraRoots(env: Env): string[] {
  const getCACertificates = (tls as unknown as { getCACertificates?: GetCACertificates }).getCACertificates;
  if (getCACertificates) return getCACertificates('extra');
  const pem = env.NODE_EXTRA_CA_CERTS ? readPem(env.NODE_EXTRA_CA_CERTS) : undefined;
  return pem === undefined ? [] : [pem];
}

function readPem(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // Unreadable: grpc-js (or Node, for NODE_EXTRA_CA_CERTS) reports it in its own way.
    return undefined;
  }
}
