/**
 * A gRPC call that never reached its server, said as the HTTP transports say it ("Could not
 * reach <url>"): NETWORK "Could not reach gRPC <host:port> over TLS|plaintext: <cause>", with
 * what to change when TLS or plaintext is the likely mistake. grpc-js reports such a call as
 * UNAVAILABLE "No connection established. Last error: <what the socket, TLS or HTTP/2 said>
 * (<timestamp>). Resolution note: <often empty>": a plaintext client at a TLS server gets
 * "Failed to connect", a TLS client at a plaintext server two lines of OpenSSL internals ("…:SSL
 * routines:ssl3_get_record:wrong version number:../deps/openssl/…"), a plaintext client at an
 * HTTP/1.1 port "Protocol error". The grpc-js ServiceError stays the cause.
 */
import type { ServiceError } from '@grpc/grpc-js';
import { A2AClientError } from '../../client/errors.js';
import { GRPC_STATUS_CODES } from '../../protocol/errorTable.js';

/** Where a channel connects, whether over TLS, and how its unreachable errors word what to change. */
export interface GrpcEndpoint {
  /** `host:port` */
  address: string;
  tls: boolean;
  /** Default LIBRARY_HINTS. */
  hints?: UnreachableHints | undefined;
}

/**
 * What to change, said after the cause when TLS or plaintext is the likely mistake: in the
 * words of whoever configures the client. The library names grpcTransport's options; the `a2a`
 * command names its flags (GrpcTransportOptions.unreachableHints).
 */
export interface UnreachableHints {
  /** A plaintext client at a server that closed the connection (likely TLS). */
  expectsTls: string;
  /** A TLS client at a server that does not speak TLS. */
  speaksPlaintext: string;
  /** The server's certificate was refused. */
  untrusted: string;
  /** The server asked for a client certificate. */
  clientCertificate: string;
}

export const LIBRARY_HINTS: UnreachableHints = {
  expectsTls: "the server may expect TLS: set grpcTransport's tls option, or reach the agent through its https URL",
  speaksPlaintext: "the server may speak plaintext: set grpcTransport's tls: false, or reach the agent through its http URL",
  untrusted: "trust its CA with grpcTransport's tls: { ca } or NODE_EXTRA_CA_CERTS",
  clientCertificate: "the server asks for a client certificate: grpcTransport's tls: { cert, key }",
};

/** grpc-js (pick_first; round_robin prefixes its name): the connection attempts failed. */
const NO_CONNECTION = /^(?:\w+: )?No connection established\. Last error: ([\s\S]*?)(?:\.\s*Resolution note: [\s\S]*)?$/;
const NAME_NOT_RESOLVED = /^Name resolution failed for target /;
/** What grpc-js appends to a connection error. */
const TIMESTAMP = /\s*\(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/;
/** An OpenSSL error line (`806C…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:file:line:`): its reason. */
const OPENSSL = /:error:[0-9A-Fa-f]+:[^:]*:[^:]*:([^:]+):/;

interface Cause {
  cause: string;
  hint?: string;
}

/** A socket error code → words. */
const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused, nothing listens on that port',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the host',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved',
};

function tlsFailure(reason: string, hints: UnreachableHints): Cause {
  if (/wrong version number|packet length too long|http request/i.test(reason)) {
    return { cause: 'the TLS handshake failed: the server does not speak TLS', hint: hints.speaksPlaintext };
  }
  // ALPN: a TLS server that does not offer h2 (an HTTPS port serving HTTP/1.1).
  if (/no application protocol/i.test(reason)) return { cause: 'the server does not speak HTTP/2 over TLS (an HTTPS port, not its gRPC one?)' };
  if (/certificate required/i.test(reason)) {
    return { cause: `the TLS handshake failed (${reason})`, hint: hints.clientCertificate };
  }
  return { cause: `the TLS handshake failed (${reason})` };
}

/** What grpc-js's "Last error" means, in one line, and what to do about it. */
function causeOf(lastError: string, endpoint: GrpcEndpoint): Cause {
  const { tls, hints = LIBRARY_HINTS } = endpoint;
  const text = lastError.replace(TIMESTAMP, '').replace(/^Error: /, '').trim();
  const openssl = OPENSSL.exec(text);
  if (openssl) return tlsFailure((openssl[1] as string).trim(), hints);
  // HTTP/2 never began: the socket closed after connecting (a TLS server refusing cleartext).
  if (text === 'Failed to connect') return tls ? { cause: 'the server closed the connection before HTTP/2 began' } : { cause: 'the server closed the connection before HTTP/2 began', hint: hints.expectsTls };
  if (text === 'Protocol error') return { cause: 'the server did not answer in HTTP/2 (an HTTP/1.1 port, not its gRPC one?)' };
  const socket = /\b(E[A-Z_]+)\b/.exec(text)?.[1];
  if (socket && SOCKET_ERRORS[socket]) return { cause: `${SOCKET_ERRORS[socket]} (${text})` };
  if (tls && /certificate|Hostname\/IP does not match/i.test(text)) return { cause: `the server's certificate was refused (${text})`, hint: hints.untrusted };
  return { cause: text.replace(/\s+/g, ' ') || 'no connection established' };
}

/** A call that could not connect to `endpoint` → NETWORK naming it (see the module comment); undefined for any other failure. */
export function unreachable(error: ServiceError, endpoint: GrpcEndpoint): A2AClientError | undefined {
  if (error.code !== GRPC_STATUS_CODES.UNAVAILABLE) return undefined;
  const details = error.details ?? '';
  const noConnection = NO_CONNECTION.exec(details);
  const found = noConnection ? causeOf(noConnection[1] as string, endpoint) : NAME_NOT_RESOLVED.test(details) ? { cause: 'the host name could not be resolved' } : undefined;
  if (!found) return undefined;
  const { cause, hint } = found as Cause;
  const message = `Could not reach gRPC ${endpoint.address} over ${endpoint.tls ? 'TLS' : 'plaintext'}: ${cause}${hint ? `; ${hint}` : ''}`;
  return new A2AClientError('NETWORK', message, { cause: error, status: error.code });
}
