/**
 * What the client commands share: the connection and output options, the output context
 * (stdout/stderr, colours, --json), connecting with the client SDK (bindings, headers,
 * credentials, timeout, --verbose), and reporting failures with their exit codes.
 */
import { splitHeaderItem } from './headerItem.js';
import { basename } from 'node:path';
import { apiKey, bearerToken } from '../client/auth.js';
import { createClient, fetchCard, type A2AClient, type CallOptions, type ClientOptions } from '../client/client.js';
import type { AuthProvider } from '../client/interceptors.js';
import type { FetchLike, TransportFactory } from '../client/transport.js';
import { defaultBindings, GRPC_BINDING } from './defaultBinding.js';
import { clientCertFetch, type ClientTls } from './clientCertFetch.js';
import { CLIENT_TLS_HELP, CLIENT_TLS_OPTIONS, clientTlsOf, type ClientTlsFlags } from './clientTlsFlags.js';
import { GRPC_ADDRESS_HINT, isHostPort } from './grpcAddressHint.js';
import { CliError, EXIT, errorText, reportOf } from './errors.js';
import { ActivatedExtensions, EXTENSION_HELP, extensionsOf } from './extensions.js';
import { colorsWanted, createStyle, type Style } from './render/style.js';
import { redactSecrets, redactUrls, typedUrl } from './redact.js';
import { UsageError } from './usage.js';
import { wireLog } from './wireLog.js';

/** parseArgs options every client command takes. */
export const CLIENT_OPTIONS = {
  binding: { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  extension: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  timeout: { type: 'string' },
  ...CLIENT_TLS_OPTIONS,
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The connection and output options, without the exit codes; `extension` is the --extension help of the commands that call the agent. */
function connectionHelp(extension: string): string {
  return `Connection:
  --binding B        jsonrpc, rest or grpc (default: the first JSON-RPC or HTTP+JSON
                     interface of the card, in the agent's order of preference; gRPC
                     when the card offers only that)
  -H, --header K=V   a header on every request, the card's included (repeatable)
${extension}  --api-key KEY      an API key, placed as the card's API key scheme says
                     (header X-API-Key when the card declares none)
  --timeout MS       time limit of each call (of opening the stream, for streams);
                     default 30000, but a blocking send waits for the task
${CLIENT_TLS_HELP}  env A2A_TOKEN      sent as "Authorization: Bearer <token>"

Output:
  --json             JSON for scripts on stdout (errors too: {"error": {...}})
  -v, --verbose      the wire exchange on stderr (calls, HTTP requests, statuses, bodies)
  -h, --help         this help
`;
}

/** The connection and output options of `a2a card`, which calls no operation (no --extension). */
export const CONNECTION_OPTIONS_HELP = connectionHelp('');

export const CLIENT_OPTIONS_HELP = `${connectionHelp(EXTENSION_HELP)}${exitCodesHelp()}`;

/** The exit codes of the client commands, with `more` of a command's own (`a2a card`: 6). */
export function exitCodesHelp(more = ''): string {
  return `
Exit codes: 0 ok, 2 usage, 3 error from the agent, 4 network or client error,
5 task FAILED, REJECTED or CANCELED${more}. See docs/cli.md.
`;
}

/** The values of CLIENT_OPTIONS after parseArgs. */
export interface ClientFlags extends ClientTlsFlags {
  binding?: string | undefined;
  header?: string[] | undefined;
  extension?: string[] | undefined;
  'api-key'?: string | undefined;
  timeout?: string | undefined;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
}

export interface Cli {
  /** The command, for messages (`a2a get: …`). */
  readonly name: string;
  readonly json: boolean;
  readonly verbose: boolean;
  /** stdout is a terminal (spinners, prompts). */
  readonly tty: boolean;
  /** Styling of stdout and stderr. */
  readonly style: Style;
  readonly errStyle: Style;
  readonly env: Record<string, string | undefined>;
  /** The credential values the command was given (`--api-key`, `A2A_TOKEN`): never printed (R23). */
  readonly secrets: readonly (string | undefined)[];
  out(text: string): void;
  err(text: string): void;
  /** One JSON document (or event) on a line of stdout. */
  jsonLine(value: unknown): void;
  /** That line, not written. */
  jsonText(value: unknown): string;
  /** Run at the end (closing gRPC channels, …). */
  readonly closers: (() => void)[];
  /** --extension, and the extensions the agent activated (shown by runCommand and jsonLine). */
  readonly extensions: ActivatedExtensions;
}

export function createCli(
  name: string,
  flags: { json?: boolean | undefined; verbose?: boolean | undefined; extension?: string[] | undefined; 'api-key'?: string | undefined },
): Cli {
  const extensions = new ActivatedExtensions(extensionsOf(flags.extension));
  const env = process.env;
  const out = (text: string) => void process.stdout.write(text);
  const jsonText = (value: unknown) => `${JSON.stringify(extensions.decorate(value))}\n`;
  return {
    name,
    json: flags.json === true,
    verbose: flags.verbose === true,
    tty: process.stdout.isTTY === true,
    style: createStyle(colorsWanted(process.stdout, env)),
    errStyle: createStyle(colorsWanted(process.stderr, env)),
    env,
    secrets: [flags['api-key'], env.A2A_TOKEN],
    out,
    err: (text) => void process.stderr.write(text),
    jsonLine: (value) => out(jsonText(value)),
    jsonText,
    closers: [],
    extensions,
  };
}

/**
 * Runs a command body: its result is the exit code; a failure is reported on stderr (and as
 * `{"error": …}` on stdout with --json) and becomes 3, 4, 2 or 1. Closers run either way.
 */
export async function runCommand(cli: Cli, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) throw error; // main reports it, with the way to the help
    // Everything is rendered before anything is written: should rendering fail, main reports
    // that instead, and --json still prints one {"error": …} document, not two.
    const report = reportOf(error, cli.secrets);
    const document = cli.json ? cli.jsonText({ error: report }) : '';
    const label = report.notSent ? 'refused by the client, nothing sent' : report.type === 'protocol' ? 'the agent answered' : report.type === 'client' ? 'client error' : 'error';
    const text = `${cli.errStyle.red(`a2a ${cli.name}:`)} ${label}: ${errorText(report)}\n`;
    if (document) cli.out(document);
    cli.err(text);
    if (report.type === 'internal' && cli.verbose && error instanceof Error && error.stack) cli.err(`${redactSecrets(error.stack, cli.secrets)}\n`);
    return report.exitCode;
  } finally {
    if (!cli.json) cli.out(cli.extensions.line(cli.style));
    for (const close of cli.closers.splice(0)) {
      try {
        close();
      } catch {
        // Closing is best effort.
      }
    }
  }
}

// ---- Argument helpers ----

/** `value` given as `name`; empty or blank is a usage error (an empty id would reach the agent, or start a new task). */
export function nonEmpty<T extends string | undefined>(value: T, name: string): T {
  if (value !== undefined && !value.trim()) throw new UsageError(`${name} must not be empty`);
  return value;
}

/** The arguments and options naming a task, a context or a push config: never empty. */
const ID_ARGUMENTS = new Set(['task', 'config-id']);
const ID_OPTIONS = ['task', 'context', 'id'] as const;

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

/**
 * The gRPC transport, loaded only when asked for (it needs @grpc/grpc-js). TLS or plaintext is
 * the library's rule (defaultTls in src/bindings/grpc/client.ts): TLS when the card came over
 * https (trusting what HTTPS trusts: Node's roots and NODE_EXTRA_CA_CERTS) or the address is not
 * loopback, plaintext for a loopback address of a card read over http. `--cert/--key/--cacert`
 * (`tls`) mean TLS, with that client certificate and those roots.
 */
async function grpcTransportFactory(cli: Cli, tls: ClientTls | undefined): Promise<TransportFactory> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import('../bindings/grpc/index.js')) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`gRPC binding not available: ${error instanceof Error ? error.message : String(error)}`, EXIT.USAGE);
  }
  // 1.0 and 0.3 gRPC interfaces (1.0 preferred): an A2A 0.3 agent offering only gRPC is reachable too.
  const make = mod.grpc03Transport;
  if (typeof make !== 'function') throw new CliError('gRPC binding not available: no grpc03Transport in src/bindings/grpc', EXIT.USAGE);
  const options = tls ? { tls } : {};
  const factory = (make as (o: typeof options) => TransportFactory & { close?: () => void })(options);
  if (typeof factory?.create !== 'function' || factory.binding !== 'GRPC') {
    throw new CliError('gRPC binding not available: grpc03Transport() is not a client transport factory', EXIT.USAGE);
  }
  if (typeof factory.close === 'function') cli.closers.push(() => factory.close?.());
  return factory;
}

/** `--api-key`: where the card's APIKeySecurityScheme says, else the X-API-Key header. */
/** Where --api-key goes when the card declares no API key scheme. */
const API_KEY_FALLBACK_HEADER = 'X-API-Key';

function apiKeyAuth(key: string): AuthProvider {
  const declared = apiKey(key);
  const fallback = apiKey(key, { location: 'header', name: API_KEY_FALLBACK_HEADER });
  return {
    apply(call) {
      const hasScheme = Object.values(call.card.securitySchemes ?? {}).some((s) => 'apiKeySecurityScheme' in s);
      return (hasScheme ? declared : fallback).apply(call);
    },
  };
}

function combine(providers: AuthProvider[]): AuthProvider | undefined {
  if (providers.length <= 1) return providers[0];
  return {
    async apply(call) {
      for (const p of providers) await p.apply(call);
    },
    async refresh(call) {
      let renewed = false;
      for (const p of providers) if (p.refresh && (await p.refresh(call))) renewed = true;
      return renewed;
    },
  };
}

/** Checks the URL, the connection flags and the ids a command takes early (usage errors before any request). */
export function checkClientFlags(url: string, flags: ClientFlags & Partial<Record<(typeof ID_OPTIONS)[number], string | undefined>>): void {
  agentUrl(url);
  for (const option of ID_OPTIONS) nonEmpty(flags[option], `--${option}`);
  bindingOf(flags.binding);
  headersOf(flags.header);
  extensionsOf(flags.extension);
  intOption(flags.timeout, '--timeout', { min: 1 });
  clientTlsOf(flags);
}

/**
 * Headers and fetch (with --cert/--key/--cacert: over node:https with them; logging with
 * --verbose) for the client, and for requests outside it, like the card's.
 */
export function httpOptions(cli: Cli, flags: ClientFlags): { headers: Record<string, string>; fetch: FetchLike | undefined; log: ReturnType<typeof wireLog> | undefined } {
  const tls = clientTlsOf(flags);
  const fetch = tls ? clientCertFetch(tls) : undefined;
  // The credentials this CLI attaches are masked by value and by name, whatever the card calls them (R23).
  const log = cli.verbose
    ? wireLog({ write: cli.err, style: cli.errStyle, secretNames: [API_KEY_FALLBACK_HEADER], secrets: cli.secrets, ...(fetch ? { fetch } : {}) })
    : undefined;
  return { headers: headersOf(flags.header), fetch: log?.fetch ?? fetch, log };
}

/**
 * The time limit of the card fetch and of each call when --timeout is not given: an agent that
 * accepts the connection and never answers fails with TIMEOUT (exit 4) instead of hanging. What
 * lasts as long as the task is not limited by it: an open stream (only its opening is), a
 * blocking SendMessage (`waitingCall`).
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** --timeout, else DEFAULT_TIMEOUT_MS. */
export function timeoutOf(flags: ClientFlags): number {
  return intOption(flags.timeout, '--timeout', { min: 1 }) ?? DEFAULT_TIMEOUT_MS;
}

/** The options of a call that waits for the task (a blocking SendMessage): as long as it runs, unless --timeout says otherwise. */
export function waitingCall(flags: ClientFlags): CallOptions {
  return flags.timeout === undefined ? { timeoutMs: Infinity } : {};
}

/** The client options of the connection flags (headers, extensions, --verbose, credentials, time limit). */
export function clientOptions(cli: Cli, flags: ClientFlags): ClientOptions {
  const options: ClientOptions = {
    cardCache: false,
    // A signed card's `jku` key set is fetched through the SSRF guard (loaded only when needed).
    cardVerification: { fetchJwks: async (jwksUrl, init) => (await import('../signing/node.js')).guardedJwksFetcher()(jwksUrl, init) },
  };
  const { headers, fetch, log } = httpOptions(cli, flags);
  if (Object.keys(headers).length) options.headers = headers;
  if (cli.extensions.requested.length) options.extensions = [...cli.extensions.requested];
  options.onActivatedExtensions = cli.extensions.report;
  if (fetch) options.fetch = fetch;
  if (log) options.interceptors = [log.interceptor];
  options.timeoutMs = timeoutOf(flags);
  const providers: AuthProvider[] = [];
  if (cli.env.A2A_TOKEN) providers.push(bearerToken(cli.env.A2A_TOKEN));
  if (flags['api-key'] !== undefined) providers.push(apiKeyAuth(flags['api-key']));
  const auth = combine(providers);
  if (auth) options.auth = auth;
  return options;
}

/** The client for the agent at `url`, set up from the connection flags. */
export async function connect(cli: Cli, url: string, flags: ClientFlags): Promise<A2AClient> {
  const href = agentUrl(url);
  const options = clientOptions(cli, flags);
  // A2A 0.3 agents (their cards, the 0.3 interfaces, the fallback after VersionNotSupported) need nothing: the client does it.
  const binding = bindingOf(flags.binding);
  const tls = clientTlsOf(flags);
  if (binding) return createClient(href, await withBinding(cli, { options, binding, tls }));
  // Without --binding the card decides: fetched once, here, so that an agent offering only
  // gRPC is called over gRPC (its transport loaded only then) rather than refused.
  const card = await fetchCard(href, { ...options, fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)) });
  const bindings = defaultBindings(card);
  return createClient(card, bindings.includes(GRPC_BINDING) ? await withBinding(cli, { options, binding: GRPC_BINDING, tls }) : options);
}

/** `options` limited to `binding`, with the gRPC transport (loaded now) when it is gRPC. */
async function withBinding(cli: Cli, target: { options: ClientOptions; binding: string; tls: ClientTls | undefined }): Promise<ClientOptions> {
  const options: ClientOptions = { ...target.options, bindings: [target.binding] };
  if (target.binding === GRPC_BINDING) options.transports = [await grpcTransportFactory(cli, target.tls)];
  return options;
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
