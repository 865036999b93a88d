/**
 * JSON-05: `bytes` fields are base64 strings. Input may be standard or URL-safe, padded or not
 * (as ProtoJSON parsers accept); what a2a-kit keeps and emits is standard padded base64, so every
 * binding and every peer sees one form of the same bytes.
 */
const BASE64_INPUT = /^[A-Za-z0-9+/_-]*$/;

/** The standard padded form of a base64 string, or undefined when it is not base64. */
export function standardBase64(value: string): string | undefined {
  const body = value.endsWith('==') ? value.slice(0, -2) : value.endsWith('=') ? value.slice(0, -1) : value;
  if (!BASE64_INPUT.test(body)) return undefined;
  const rest = body.length % 4;
  if (rest === 1) return undefined;
  if (value.length !== body.length && value.length % 4 !== 0) return undefined;
  const standard = body.includes('-') || body.includes('_') ? body.replace(/-/g, '+').replace(/_/g, '/') : body;
  return rest === 0 ? standard : standard + '='.repeat(4 - rest);
}
