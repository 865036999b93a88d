/**
 * Authentication failures (ERR-05/06, B7): UNAUTHENTICATED (HTTP 401, gRPC 16) and
 * PERMISSION_DENIED (HTTP 403, gRPC 7), carrying the WWW-Authenticate challenges (RFC 9110
 * §11.6.1, RFC 6750 §3) the HTTP bindings send. Messages never contain a credential (R23).
 */
import { A2AError } from '../protocol/errors.js';

export class AuthError extends A2AError {
  /** WWW-Authenticate challenges, e.g. `Bearer realm="a2a", error="invalid_token"`. */
  readonly challenges: readonly string[];

  constructor(init: { reason: 'UNAUTHENTICATED' | 'PERMISSION_DENIED'; message: string; challenges: readonly string[]; metadata?: Record<string, string> }) {
    super(init.reason, init.message, init.metadata ? { metadata: init.metadata } : {});
    this.challenges = init.challenges;
  }
}

/** An authentication failure (UNAUTHENTICATED / PERMISSION_DENIED with challenges). */
export function isAuthError(error: unknown): error is AuthError {
  return A2AError.is(error) && Array.isArray((error as Partial<AuthError>).challenges);
}

/**
 * For an authentication failure: the HTTP status (401/403) and the WWW-Authenticate header,
 * which JSON-RPC (B7) and REST responses both carry. Undefined for every other error.
 */
export function httpAuthFailure(error: unknown): { status: 401 | 403; headers: Record<string, string> } | undefined {
  if (!isAuthError(error)) return undefined;
  const status = error.reason === 'PERMISSION_DENIED' ? 403 : 401;
  return { status, headers: error.challenges.length > 0 ? { 'www-authenticate': error.challenges.join(', ') } : {} };
}

/** A quoted-string for an auth-param (RFC 9110 §5.6.4): no quotes, backslashes or controls inside. */
export function quoted(value: string): string {
  let out = '';
  for (const ch of value) out += ch < ' ' || ch === '\u007f' ? ' ' : ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  return `"${out}"`;
}
