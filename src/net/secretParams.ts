/**
 * Query parameters that carry credentials (R23): `?password=…` and `?sslpassword=…` of a
 * PostgreSQL URL, `?access_token=…` of a webhook, `?api_key=…`, `?sig`-like names an API key
 * scheme declares. Every URL shown to a person — a store label, a webhook URL, an error message,
 * a `--verbose` line — has the values of those parameters replaced by `***`. The one list of
 * names, and the one masking, for the CLI and the stores. Runtime-neutral (no `node:*`).
 */

/** Header and query parameter names that carry credentials. */
const SECRET_NAME = /authorization|cookie|token|secret|key|password|passwd|pwd|signature|credential|^sig$/i;

export const MASK = '***';

/** Whether a header or query parameter of this name carries a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A URL inside free text: scheme://, then anything up to a space, a quote, `<`, `>` or a backslash. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\`]*/gi;
/** One `name=value` of a query, with the `?` or `&` before it; the value runs to the next `&` or `#`. */
const PARAM = /[?&][^=&#?]+=[^&#]*/g;

/**
 * `text` with the value of every query parameter named like a credential (`isSecret`, default
 * isSecretName) in every URL in it shown as `***`; names are matched percent-decoded. Text that
 * holds no URL comes back unchanged.
 */
export function maskSecretParams(text: string, isSecret: (name: string) => boolean = isSecretName): string {
  return text.replace(URL_IN_TEXT, (url) => {
    const query = url.indexOf('?');
    if (query < 0) return url;
    return url.slice(0, query) + url.slice(query).replace(PARAM, (param) => {
      const equals = param.indexOf('=');
      const masked = equals < param.length - 1 && isSecret(decoded(param.slice(1, equals)));
      return masked ? `${param.slice(0, equals + 1)}${MASK}` : param;
    });
  });
}

function decoded(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
