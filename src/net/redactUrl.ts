/**
 * The one way a URL the server was given (webhooks, JWKS, discovery, file URLs) is shown in logs,
 * reports and error messages (R23). Many webhooks are capability URLs whose secret is the path
 * (`/services/T…/B…/<secret>`, `/api/webhooks/<id>/<token>`) or the query, and userinfo is a
 * password: only the scheme, host and port are kept, and anything after them is shown as `/…`.
 * Runtime-neutral (no `node:*`).
 */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = url instanceof URL ? url : new URL(url);
  } catch {
    // Unparsable: no telling where credentials might hide, so echo none of it.
    return '(unparsable URL)';
  }
  const more = u.pathname !== '/' || u.search !== '' || u.hash !== '';
  return `${u.protocol}//${u.host}${more ? '/…' : '/'}`;
}
