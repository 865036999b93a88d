/**
 * What the client commands share: the connection and output options and their help, the output
 * context (stdout/stderr, colours, --json), and reporting failures with their exit codes.
 * Connecting is in connect.ts, argument checks in args.ts.
 */
import { CLIENT_TLS_HELP, CLIENT_TLS_OPTIONS, type ClientTlsFlags } from './clientTlsFlags.js';
import { errorText, reportOf } from './errors.js';
import { ActivatedExtensions, EXTENSION_HELP, extensionsOf } from './extensions.js';
import { colorsWanted, createStyle, type Style } from './render/style.js';
import { redactSecrets } from './redact.js';
import { UsageError } from './usage.js';

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
