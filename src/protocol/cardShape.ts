/**
 * Which protocol version's shape an Agent Card JSON has. Shared by the client (which translates
 * a 0.3 card), src/compat (isV03Card) and the signer/verifier (which canonicalize a 0.3 card as
 * the 0.3 specification does): one test, so they cannot disagree. Runtime-neutral, no imports.
 */

/** A card in the A2A 0.3 shape: a top-level `url` string and no `supportedInterfaces` list. */
export function isV03CardShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const card = value as Record<string, unknown>;
  return typeof card.url === 'string' && !Array.isArray(card.supportedInterfaces);
}

/**
 * A 1.0 card that also carries the 0.3 top-level members (the hybrid card of src/compat/card03.ts,
 * served to requests without A2A-Version): a `supportedInterfaces` list and a top-level `url` string.
 * 1.0 readers use its 1.0 fields, 0.3 readers its `url` and the rest.
 */
export function isHybridCardShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const card = value as Record<string, unknown>;
  return typeof card.url === 'string' && Array.isArray(card.supportedInterfaces);
}
