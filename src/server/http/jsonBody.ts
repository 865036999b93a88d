/** Reading untrusted JSON: nesting depth checked before parsing (R16), parse errors typed. */
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

export function parseJson(text: string, maxDepth: number): unknown {
  checkJsonDepth(text, maxDepth);
  try {
    return JSON.parse(text);
  } catch {
    throw new ParseError();
  }
}
