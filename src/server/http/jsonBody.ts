/** Reading untrusted JSON: nesting depth checked before parsing (R16), parse errors typed, UTF-8 only. */
import { InvalidRequestError, ParseError } from '../../protocol/errors.js';

export const DEFAULT_MAX_JSON_DEPTH = 32;

/** Throws InvalidRequestError when arrays/objects nest deeper than `maxDepth`. */
export function checkJsonDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) throw new InvalidRequestError(`JSON nesting deeper than ${maxDepth} levels`);
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
}

/**
 * A body that is not UTF-8 (RFC 8259 §8.1) is refused as unparseable JSON (-32700 / 400), never
 * read with U+FFFD in place of the bad bytes.
 */
export function notUtf8Error(): ParseError {
  return new ParseError('Invalid JSON payload: the body is not valid UTF-8');
}

export function parseJson(text: string, maxDepth: number): unknown {
  checkJsonDepth(text, maxDepth);
  try {
    return JSON.parse(text);
  } catch {
    throw new ParseError();
  }
}
