/**
 * The checks and conversions of command-line arguments the commands share: ids that must not be
 * empty, positionals, integers in a range, the agent URL and other http(s) URLs, --header items,
 * --binding names and the media type of a file to send. Each refusal is a UsageError (exit 2).
 */
import { basename } from 'node:path';
import { GRPC_ADDRESS_HINT, isHostPort } from './grpcAddressHint.js';
import { splitHeaderItem } from './headerItem.js';
import { redactUrls, typedUrl } from './redact.js';
import { UsageError } from './usage.js';

/** `value` given as `name`; empty or blank is a usage error (an empty id would reach the agent, or start a new task). */
export function nonEmpty<T extends string | undefined>(value: T, name: string): T {
  if (value !== undefined && !value.trim()) throw new UsageError(`${name} must not be empty`);
  return value;
}

/** The arguments and options naming a task, a context or a push config: never empty. */
const ID_ARGUMENTS = new Set(['task', 'config-id']);
export const ID_OPTIONS = ['task', 'context', 'id'] as const;

/** The positionals, named in `names`; too few or too many, or an empty id, is a usage error. */
export function positionalsOf(positionals: string[], names: string[]): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(`missing ${names.slice(positionals.length).map((n) => `<${n}>`).join(' ')}`);
  }
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument "${positionals[names.length]}" (quote text with spaces)`);
  }
  names.forEach((name, i) => ID_ARGUMENTS.has(name) && nonEmpty(positionals[i], `<${name}>`));
  return positionals;
}

export function intOption(value: string | undefined, name: string, range: { min: number; max?: number }): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || (range.max !== undefined && n > range.max)) {
    const bound = range.max === undefined ? `an integer ≥ ${range.min}` : `an integer from ${range.min} to ${range.max}`;
    throw new UsageError(`${name} must be ${bound}, got "${value}"`);
  }
  return n;
}

/** The agent URL argument, checked: an absolute http(s) URL without credentials (not a gRPC `host:port`). */
export function agentUrl(value: string): string {
  if (isHostPort(value)) throw new UsageError(`<url> must be an absolute http(s) URL, got "${value.trim()}": add http:// (or https://); ${GRPC_ADDRESS_HINT}`);
  return httpUrl(value, '<url>', ': authenticate with --api-key, -H "Authorization: …" or A2A_TOKEN');
}

/**
 * An absolute http(s) URL given as `name` (`<url>`, `--public-url`), else a usage error. A user
 * name or password in it is refused too (`credentialsHint` says what to use instead), and the
 * messages never repeat them.
 */
export function httpUrl(value: string, name: string, credentialsHint = ''): string {
  const shown = typedUrl(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} must be an absolute http(s) URL, got "${shown}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must be http(s), got "${shown}"`);
  if (url.username || url.password) throw new UsageError(`${name} must not contain a user name or password, got "${redactUrls(url.href)}"${credentialsHint}`);
  return url.href;
}

/** `--header K=V` (or `K: V`) into a header map. */
export function headersOf(list: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of list ?? []) {
    const split = splitHeaderItem(item);
    if (!split) throw new UsageError(`--header must be NAME=VALUE, got "${item}"`);
    const { name, value } = split;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header: "${name}" is not a valid header name`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

const BINDINGS: Record<string, string> = { jsonrpc: 'JSONRPC', 'json-rpc': 'JSONRPC', rest: 'HTTP+JSON', 'http+json': 'HTTP+JSON', http: 'HTTP+JSON', grpc: 'GRPC' };

export function bindingOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const binding = BINDINGS[value.toLowerCase()];
  if (!binding) throw new UsageError(`--binding must be jsonrpc, rest or grpc, got "${value}"`);
  return binding;
}

/** A file for a message part: bytes, name and a media type guessed from the extension. */
export function mediaTypeOf(path: string): string {
  const ext = basename(path).split('.').pop()?.toLowerCase() ?? '';
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

const MEDIA_TYPES: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  zip: 'application/zip',
};
