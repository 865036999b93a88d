/**
 * Secrets in what the CLI prints (R23). URLs carrying a user name or password
 * (`http://alice:hunter2@host/`) or a credential in the query (`?access_token=…`, `?password=…`):
 * the CLI refuses userinfo in `<url>`, but a card's interface URL can still hold one, a webhook
 * URL or a `--store` URL often does, and error messages and --verbose lines repeat URLs. And the
 * credentials the CLI was given (`--api-key`, `A2A_TOKEN`), wherever an error or a log line would
 * repeat them. Every such text goes through here first.
 */
import { maskSecretParams } from '../net/secretParams.js';


/** scheme://userinfo@ — the userinfo runs to the authority's last `@` (no `/`, `?`, `#`, space or quote before it). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>\\]*)@/gi;

/**
 * `text` with the userinfo of every URL in it masked: the password of `user:password`
 * (`postgres://a2a:***@host/`, as the store errors show it), all of a lone user name, which is
 * often a token (`https://***@host/`).
 */
export function redactUserinfo(text: string): string {
  return text.replace(USERINFO, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon < 0 ? '***' : `${userinfo.slice(0, colon)}:***`}@`;
  });
}

/**
 * `text` with every URL in it redacted: its userinfo as redactUserinfo masks it, and the values
 * of its query parameters named like a credential (`isSecret`, default isSecretName) as `***`
 * (../net/secretParams.ts).
 */
export function redactUrls(text: string, isSecret?: (name: string) => boolean): string {
  return maskSecretParams(redactUserinfo(text), isSecret);
}

/** Credential values shorter than this are masked by name only: masking every `k9` would garble the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * `text` without the credential values in `secrets` (as given, and URL-encoded as a query or
 * cookie holds them: each shown as `***`), and with its URLs redacted (redactUrls). The --verbose
 * log and the error reports both go through here.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[], isSecret?: (name: string) => boolean): string {
  let out = redactUrls(text, isSecret);
  for (const value of secrets) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue;
    out = out.split(value).join('***').split(encodeURIComponent(value)).join('***');
  }
  return out;
}

/** scheme:// then the authority up to its last `@` (any character but `/`, `?`, `#`): one URL as typed. */
const TYPED_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

/**
 * One URL as the user typed it, for an error message: redacted as redactUrls does, its userinfo
 * masked even when the URL does not parse and the password holds a space or a quote (which
 * `redactUserinfo`, reading free text, cannot tell from the text around a URL).
 */
export function typedUrl(value: string): string {
  return redactUrls(value.replace(TYPED_USERINFO, (_match, scheme: string, userinfo: string) => `${scheme}${userinfo.includes(':') ? `${userinfo.slice(0, userinfo.indexOf(':'))}:***` : '***'}@`));
}
