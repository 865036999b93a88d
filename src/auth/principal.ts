/**
 * Who is calling: set by the server's authentication (issue 8) from the card's security schemes,
 * carried in the CallContext to the request handler (task ownership, ListTasks filtering) and in
 * the RequestContext to the agent. Runtime-neutral: no Node imports.
 */
export interface Principal {
  /**
   * Stable identity used for task ownership: `<issuer>|<sub>` for JWTs, the key's configured name
   * for API keys, the certificate subject for mutual TLS.
   */
  id: string;
  /** The `securitySchemes` key of the card that authenticated the caller. */
  scheme: string;
  /** Granted scopes (OAuth2 / JWT `scope` or `scp`), empty otherwise. */
  scopes: readonly string[];
  /** Verified token claims or certificate attributes. */
  claims: Readonly<Record<string, unknown>>;
}
