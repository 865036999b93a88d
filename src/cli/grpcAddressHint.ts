/**
 * Hints for a user who points a client command at a gRPC address instead of the agent's HTTP
 * URL: the card (and so every binding, gRPC included) is found through the HTTP URL, and
 * `--binding grpc` picks the card's gRPC interface.
 */

export const GRPC_ADDRESS_HINT = 'for a gRPC agent, give its HTTP URL (where its card is) with --binding grpc';

/** `localhost:50051`, `127.0.0.1:50051`, `[::1]:50051`: a `host:port` without a scheme (a card's GRPC url, GRPC-06). */
export function isHostPort(value: string): boolean {
  return /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/.test(value.trim());
}

/**
 * The reason for an HTTP/1.1 response that did not parse because the server spoke HTTP/2
 * without TLS (its first bytes a SETTINGS frame: a gRPC port, typically), else undefined.
 */
export function http2AnswerText(error: Error): string | undefined {
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (code !== 'HPE_INVALID_CONSTANT') return undefined;
  // An HTTP/2 frame header: a 24-bit length, then the type (4: SETTINGS).
  const frameType = typeof data === 'string' ? data.charCodeAt(3) : data instanceof Uint8Array ? data[3] : undefined;
  if (frameType !== 4) return undefined;
  return `the server answered in HTTP/2, not HTTP/1.1: a gRPC port? ${GRPC_ADDRESS_HINT}`;
}
