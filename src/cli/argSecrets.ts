/**
 * The credential values on a command line and in the environment (R23), read from the raw
 * arguments: a usage error is thrown before (or while) the options are parsed, so `main` masks
 * its message with these, whatever the command, wherever the message quotes one (`--timeout
 * <the key>`, an extra argument, a malformed `-H "Authorization Bearer …"`).
 */
import { isSecretName } from '../net/secretParams.js';
import { splitHeaderItem } from './headerItem.js';

/** Options whose value is a credential: the client's `--api-key`, push/webhook tokens, secrets and credentials. */
const CREDENTIAL_OPTIONS = new Set(['api-key', 'token', 'secret', 'webhook-secret', 'auth', 'auth-credentials']);

/** Environment variables holding a credential, and one holding a comma-separated list of them. */
const CREDENTIAL_ENV = ['A2A_TOKEN', 'A2A_PUSH_KEY'];
const CREDENTIAL_LIST_ENV = 'A2A_WEBHOOK_SECRETS';

/** One option of the arguments: its name without dashes (`H` for -H) and its value, when it has one. */
interface OptionToken {
  name: string;
  value: string | undefined;
}

/** The options in `args` (up to `--`), each with the argument after it as its value unless given inline. */
function optionTokens(args: readonly string[]): OptionToken[] {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  const tokens: OptionToken[] = [];
  options.forEach((arg, i) => {
    const next = options[i + 1];
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      tokens.push(equals < 0 ? { name: arg.slice(2), value: next } : { name: arg.slice(2, equals), value: arg.slice(equals + 1) });
    } else if (arg.startsWith('-') && arg.includes('H')) {
      // -H VALUE, -HVALUE, or a group ending in H (-vH VALUE).
      const inline = arg.slice(arg.indexOf('H') + 1);
      tokens.push({ name: 'H', value: inline || next });
    }
  });
  return tokens;
}

/**
 * The credential of a `--header` value: the value of a header named like a credential
 * (`Authorization: Bearer …`, `X-Api-Key=…`), or all of a malformed one that mentions one
 * (`Authorization Bearer …`, which the usage error would quote).
 */
function headerSecret(item: string): string | undefined {
  const split = splitHeaderItem(item);
  if (!split) return isSecretName(item) ? item : undefined;
  return isSecretName(split.name) ? split.value : undefined;
}

/** `value`, and its credentials alone when it is "SCHEME CREDENTIALS" (`Bearer abc123`). */
function withCredentials(value: string): string[] {
  const credentials = /^\S+\s+(\S.*)$/.exec(value.trim())?.[1];
  return credentials ? [value, credentials] : [value];
}

/** The credential values in `args` and `env`, for redactSecrets. */
export function secretsOf(args: readonly string[], env: Record<string, string | undefined>): string[] {
  const values: string[] = [];
  for (const { name, value } of optionTokens(args)) {
    if (value === undefined) continue;
    const secret = name === 'H' || name === 'header' ? headerSecret(value) : CREDENTIAL_OPTIONS.has(name) ? value : undefined;
    if (secret) values.push(...withCredentials(secret));
    // --auth-credentials-env VAR: the credentials are VAR's value.
    if (name === 'auth-credentials-env' && env[value]) values.push(env[value]);
  }
  for (const name of CREDENTIAL_ENV) if (env[name]) values.push(env[name]);
  values.push(...(env[CREDENTIAL_LIST_ENV] ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  // The longest first: a key containing another is masked whole.
  return values.sort((a, b) => b.length - a.length);
}
