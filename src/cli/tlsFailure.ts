/**
 * A failed TLS handshake in one line. OpenSSL's own message is two lines of internals
 * (`…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/…:350:`).
 */

/** "TLS handshake failed: …" for an OpenSSL error (code ERR_SSL_…), else undefined. */
export function tlsFailureText(error: Error): string | undefined {
  const { code, reason } = error as Error & { code?: unknown; reason?: unknown };
  if (typeof code !== 'string' || !code.startsWith('ERR_SSL_')) return undefined;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'TLS handshake failed: is the server speaking plain HTTP?';
  return `TLS handshake failed: ${typeof reason === 'string' && reason ? reason : code}`;
}
