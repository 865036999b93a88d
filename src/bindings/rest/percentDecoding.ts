/**
 * Strict percent-decoding for REST paths and query strings: a `%` not followed by two hex
 * digits, or escaped bytes that are not UTF-8, are refused (400 INVALID_REQUEST), never kept
 * literally or replaced by U+FFFD as URLSearchParams does — a lossy decoding could name another
 * task or context than the one sent.
 */
import { InvalidRequestError } from '../../protocol/errors.js';
import type { HttpRequest } from '../../server/http/httpTypes.js';

/** `text` percent-decoded (UTF-8, fatal), or undefined when it is malformed. */
function percentDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The segments of a REST path (relative to the base), each percent-decoded; throws InvalidRequestError when one is malformed. */
export function pathSegments(path: string): string[] {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    const segment = percentDecode(raw);
    if (segment === undefined) throw new InvalidRequestError('Malformed percent-encoding in the path');
    segments.push(segment);
  }
  return segments;
}

/**
 * A query string (without `?`) as URLSearchParams, each name and value decoded strictly (`+` is
 * a space, application/x-www-form-urlencoded); throws InvalidRequestError naming the first
 * parameter that is malformed.
 */
export function strictQuery(raw: string): URLSearchParams {
  const query = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = percentDecode(rawName.replaceAll('+', ' '));
    const value = eq < 0 ? '' : percentDecode(pair.slice(eq + 1).replaceAll('+', ' '));
    if (name === undefined || value === undefined) {
      throw new InvalidRequestError(`Malformed percent-encoding in query parameter ${JSON.stringify((name ?? rawName).slice(0, 64))}`);
    }
    query.append(name, value);
  }
  return query;
}

/** The request's query, strictly decoded when the host gives it as sent (HttpRequest.rawQuery). */
export function restQuery(req: HttpRequest): URLSearchParams {
  return req.rawQuery === undefined ? req.query : strictQuery(req.rawQuery);
}
