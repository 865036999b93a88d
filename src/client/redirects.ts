/**
 * Redirects. The client never lets fetch follow one (`redirect: 'manual'`, http.ts `send`): a
 * redirect followed blindly re-sends the request — credentials, caller headers, body — to
 * wherever the server points, another origin included. A2A calls and token requests take a
 * redirect as a failure (`redirectError`); a card fetch follows redirects within the card URL's
 * origin only (`followCardRedirects`).
 */
import { A2AClientError, withResponse, type A2AClientErrorCode } from './errors.js';

const REDIRECTS = [301, 302, 303, 307, 308];

/** A redirect, or the opaque answer browsers give for one under `redirect: 'manual'`. */
export function isRedirect(res: Response): boolean {
  return res.type === 'opaqueredirect' || REDIRECTS.includes(res.status);
}

/** Where a redirect points, resolved against the request URL; undefined when it does not say (or the runtime hides it). */
function targetOf(res: Response, requestUrl: string): URL | undefined {
  try {
    const location = res.headers.get('location');
    return location ? new URL(location, requestUrl) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A redirect not followed, as an error of `code` whose message names where it points: origin
 * and path only, as the query may echo an API key. `requestUrl` resolves a relative Location
 * (default: the response's URL).
 */
export function redirectError(res: Response, { code, what, requestUrl = res.url }: { code: A2AClientErrorCode; what: string; requestUrl?: string }): A2AClientError {
  void res.body?.cancel().catch(() => undefined);
  const target = targetOf(res, requestUrl);
  const status = res.type === 'opaqueredirect' ? '' : ` (HTTP ${res.status})`;
  const to = target ? ` to ${target.origin}${target.pathname}` : '';
  const message = `${what} answered with a redirect${status}${to}, which the client does not follow: use the URL it names`;
  return withResponse(new A2AClientError(code, message, { status: res.status }), { status: res.status });
}

/** Redirects a card fetch follows (within the card URL's origin) before giving up. */
const MAX_CARD_REDIRECTS = 5;

/**
 * The card response after `res` (the answer to the GET of `url`), redirects followed within the
 * origin of `url` only, each fetched by `get`: the request carries the caller's headers, which
 * must never reach another server. A redirect elsewhere (another host, port or scheme, http →
 * https included), one that does not say where, or a sixth in a row is BAD_CARD naming where it
 * points.
 */
export async function followCardRedirects(res: Response, { url, get }: { url: string; get: (url: string) => Promise<Response> }): Promise<Response> {
  const origin = new URL(url).origin;
  let current = url;
  for (let hops = 0; isRedirect(res); hops++) {
    const next = targetOf(res, current);
    const sameOrigin = next?.origin === origin;
    if (!next || !sameOrigin || hops === MAX_CARD_REDIRECTS) {
      const error = redirectError(res, { code: 'BAD_CARD', what: `The agent card at ${url}`, requestUrl: current });
      if (sameOrigin) error.message = `The agent card at ${url} is redirected more than ${MAX_CARD_REDIRECTS} times`;
      throw error;
    }
    void res.body?.cancel().catch(() => undefined);
    current = next.href;
    res = await get(current);
  }
  return res;
}
