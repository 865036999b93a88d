/**
 * Connecting a client command to its agent: the client options of the connection flags (headers,
 * extensions, credentials, time limit, --verbose, --cert/--key/--cacert), the binding (the gRPC
 * transport loaded only when used) and the usage checks made before any request.
 */
import { apiKey, bearerToken } from '../client/auth.js';
import { createClient, fetchCard, type A2AClient, type CallOptions, type ClientOptions } from '../client/client.js';
import type { AuthProvider } from '../client/interceptors.js';
import type { FetchLike, TransportFactory } from '../client/transport.js';
import type { UnreachableHints } from '../bindings/grpc/unreachable.js';
import { agentUrl, bindingOf, headersOf, ID_OPTIONS, intOption, nonEmpty } from './args.js';
import type { Cli, ClientFlags } from './cli.js';
import { clientCertFetch, type ClientTls } from './clientCertFetch.js';
import { clientTlsOf } from './clientTlsFlags.js';
import { defaultBindings, GRPC_BINDING } from './defaultBinding.js';
import { CliError, EXIT } from './errors.js';
import { extensionsOf } from './extensions.js';
import { wireLog } from './wireLog.js';

/** What to change when a gRPC agent could not be reached, in this command's flags (not grpcTransport's options). */
const CLI_GRPC_HINTS: UnreachableHints = {
  expectsTls: 'the server may expect TLS: reach the agent through its https URL, or give --cacert FILE (TLS, trusting that CA)',
  speaksPlaintext: 'the server may speak plaintext: a2a uses it only for a loopback gRPC address whose card came over http, without --cert, --key or --cacert',
  untrusted: 'trust its CA with --cacert FILE or NODE_EXTRA_CA_CERTS',
  clientCertificate: 'the server asks for a client certificate: give --cert FILE and --key FILE',
};

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
  const options = { ...(tls ? { tls } : {}), unreachableHints: CLI_GRPC_HINTS };
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
