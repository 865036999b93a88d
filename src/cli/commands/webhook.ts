/** `a2a webhook listen`: receive push notifications, verify them, print them as they arrive. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { readBody } from '../../node/readBody.js';
import { PayloadTooLargeError } from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/types.js';
import { RequestAbortedError } from '../../server/http/requestAborted.js';
import { generateWebhookSecret } from '../../push/webhookSignature.js';
import { checkDelivery, checkReceiverConfig, RememberedIds, WebhookRefusal as HttpRefusal } from '../../webhooks/deliveryChecks.js';
import type { WebhookDelivery } from '../../webhooks/readDelivery.js';
import { intOption } from '../args.js';
import { createCli, runCommand, type Cli } from '../cli.js';
import { CliError, EXIT } from '../errors.js';
import { styledState, textOf } from '../render/parts.js';
import { UsageError } from '../usage.js';

export const webhookHelp = `Usage: a2a webhook listen [options]
       a2a webhook secret [--json]

listen: an HTTP server for an agent's push notifications. Each POST is checked (signature,
token, Authorization, as asked below; 401 when one does not match), its body decoded as an
A2A StreamResponse (400 when it is not one), answered 204 and printed: a line per delivery,
or with --json a JSON line {"id","seq","taskId","event","duplicate","verified"}. A delivery
whose webhook-id was already received (a retry) is answered 204 and printed as a duplicate.
Stops on Ctrl+C (exit 0), or after --count deliveries.

secret: print a new signing secret (whsec_…) for the server's configuration and --secret
(with --json: {"secret": "whsec_…"}).

Options:
  --port N           port (default 9090; 0 picks a free one, printed at start)
  --host HOST        interface to bind (default 127.0.0.1)
  --path PATH        accept deliveries on this path only (default: any path)
  --secret whsec_…   verify the webhook-signature with this secret; repeat it during a key
                     rotation (any one matching is enough)
  --token T          require X-A2A-Notification-Token: T (the push config's token)
  --auth "S CRED"    require Authorization: S CRED (the push config's authentication)
  --tolerance S      largest signature age or clock skew accepted, seconds (default 300)
  --count N          exit 0 after N deliveries (duplicates included)
  --fail-every K     answer 503 to every K-th request, to watch the agent retry
  --json             one JSON line per delivery on stdout; the URL and rejections on stderr
  -h, --help         this help

Examples:
  a2a webhook listen
  a2a webhook listen --port 9090 --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  a2a webhook listen --token s3cret --fail-every 3
  a2a webhook listen --json --count 1 | jq .event
  a2a webhook secret
`;

const OPTIONS = {
  port: { type: 'string', default: '9090' },
  host: { type: 'string', default: '127.0.0.1' },
  path: { type: 'string' },
  secret: { type: 'string', multiple: true },
  token: { type: 'string' },
  auth: { type: 'string' },
  tolerance: { type: 'string' },
  count: { type: 'string' },
  'fail-every': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Bodies larger than this are refused (413). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** webhook-ids remembered for deduplication (the oldest forgotten first). */
const MAX_REMEMBERED = 100_000;

interface ListenOptions {
  port: number;
  host: string;
  path: string | undefined;
  secrets: string[];
  token: string | undefined;
  auth: string | undefined;
  toleranceSeconds: number | undefined;
  count: number | undefined;
  failEvery: number | undefined;
}

export async function webhookCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(webhookHelp);
    return 0;
  }
  const [sub, ...extra] = positionals;
  if (sub === undefined) throw new UsageError('missing <subcommand>: listen or secret');
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === 'secret') {
    const secret = generateWebhookSecret();
    process.stdout.write(values.json ? `${JSON.stringify({ secret })}\n` : `${secret}\n`);
    return 0;
  }
  if (sub !== 'listen') throw new UsageError(`unknown subcommand "${sub}" (listen or secret)`);
  const options = listenOptions(values);
  const cli = createCli('webhook', values);
  return runCommand(cli, () => listen(cli, options));
}

function listenOptions(values: {
  port: string;
  host: string;
  path?: string | undefined;
  secret?: string[] | undefined;
  token?: string | undefined;
  auth?: string | undefined;
  tolerance?: string | undefined;
  count?: string | undefined;
  'fail-every'?: string | undefined;
}): ListenOptions {
  const port = intOption(values.port, '--port', { min: 0, max: 65535 }) ?? 9090;
  const secrets = values.secret ?? [];
  try {
    checkReceiverConfig({ secrets }, (i) => (secrets.length === 1 ? '--secret' : `--secret #${i + 1}`));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.path !== undefined && !values.path.startsWith('/')) throw new UsageError(`--path must start with "/", got "${values.path}"`);
  if (values.auth !== undefined && !values.auth.trim()) throw new UsageError('--auth must be "<scheme> <credentials>", e.g. "Bearer xyz"');
  if (values.token === '') throw new UsageError('--token must not be empty');
  return {
    port,
    host: values.host,
    path: values.path,
    secrets,
    token: values.token,
    auth: values.auth,
    toleranceSeconds: intOption(values.tolerance, '--tolerance', { min: 1 }),
    count: intOption(values.count, '--count', { min: 1 }),
    failEvery: intOption(values['fail-every'], '--fail-every', { min: 1 }),
  };
}

/** The delivery's bytes (signatures are over bytes), refused past MAX_BODY_BYTES. */
async function deliveryBody(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw new HttpRefusal(413, `body larger than ${MAX_BODY_BYTES} bytes`);
    throw error;
  }
}

function urlOf(address: AddressInfo, options: ListenOptions): string {
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${options.path ?? '/'}`;
}

/** One line for a delivery: `#3 task 5b0c… working "Looking it up"`. */
export function deliveryLine(delivery: Pick<WebhookDelivery, 'seq' | 'taskId' | 'event'> & { duplicate?: boolean }, cli: Pick<Cli, 'style'>): string {
  const { style } = cli;
  const head = `${style.bold(`#${delivery.seq}`)} ${style.dim('task')} ${delivery.taskId}`;
  if (delivery.duplicate) return `${head} ${style.yellow('duplicate')} ${style.dim('(already received; a retry)')}`;
  return `${head} ${eventSummary(delivery.event, cli)}`;
}

const quoted = (text: string) => (text ? ` ${JSON.stringify(text.length > 200 ? `${text.slice(0, 199)}…` : text)}` : '');

function eventSummary(event: StreamResponse, cli: Pick<Cli, 'style'>): string {
  const { style } = cli;
  if ('statusUpdate' in event) {
    const { status } = event.statusUpdate;
    return `${styledState(status.state, style)}${quoted(textOf(status.message?.parts))}`;
  }
  if ('artifactUpdate' in event) {
    const { artifact, append, lastChunk } = event.artifactUpdate;
    const flags = [append && 'append', lastChunk && 'last chunk'].filter(Boolean).join(', ');
    const parts = `${artifact.parts.length} part${artifact.parts.length === 1 ? '' : 's'}`;
    return `${style.magenta('artifact')} ${artifact.name ?? artifact.artifactId} ${style.dim(`(${parts}${flags ? `, ${flags}` : ''})`)}${quoted(textOf(artifact.parts))}`;
  }
  if ('task' in event) {
    const { task } = event;
    const artifacts = task.artifacts?.length ?? 0;
    const extra = artifacts ? style.dim(` (snapshot, ${artifacts} artifact${artifacts === 1 ? '' : 's'})`) : style.dim(' (snapshot)');
    return `${styledState(task.status.state, style)}${quoted(textOf(task.status.message?.parts))}${extra}`;
  }
  return `${style.cyan('message')}${quoted(textOf(event.message.parts))}`;
}

async function listen(cli: Cli, options: ListenOptions): Promise<number> {
  const seen = new RememberedIds(MAX_REMEMBERED);
  let requests = 0;
  let deliveries = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const reject = (res: ServerResponse, refusal: HttpRefusal, req: IncomingMessage) => {
    cli.err(`${cli.errStyle.red(`${refusal.status}`)} ${req.method ?? ''} ${req.url ?? ''}: ${refusal.message}\n`);
    if (!res.headersSent) {
      res.writeHead(refusal.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...(refusal.status === 405 ? { allow: 'POST' } : {}),
        // The rest of an oversized body is not read: the connection ends after the answer.
        ...(refusal.status === 413 ? { connection: 'close' } : {}),
      });
      res.end(`${refusal.message}\n`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (options.path !== undefined && path !== options.path) throw new HttpRefusal(404, `not the webhook path (${options.path})`);
    if (req.method !== 'POST') throw new HttpRefusal(405, 'webhook deliveries are POSTs');
    const body = await deliveryBody(req);
    requests++;
    if (options.failEvery !== undefined && requests % options.failEvery === 0) {
      throw new HttpRefusal(503, `request ${requests}: failing on purpose (--fail-every ${options.failEvery})`);
    }
    const delivery = checkDelivery(
      { secrets: options.secrets, token: options.token, authorization: options.auth, toleranceSeconds: options.toleranceSeconds },
      { headers: req.headers, body },
    );
    const duplicate = seen.has(delivery.id);
    if (!duplicate) seen.add(delivery.id);
    deliveries++;
    const done = options.count !== undefined && deliveries >= options.count;
    if (cli.json) {
      cli.jsonLine({ id: delivery.id, seq: delivery.seq, taskId: delivery.taskId, event: delivery.event, duplicate, verified: delivery.verified });
    } else {
      cli.out(`${deliveryLine({ ...delivery, duplicate }, cli)}\n`);
    }
    res.writeHead(204);
    res.end();
    if (done) res.once('finish', finish);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A sender that went away mid-body has nothing to hear.
      if (error instanceof RequestAbortedError) return;
      if (error instanceof HttpRefusal) return reject(res, error, req);
      reject(res, new HttpRefusal(500, error instanceof Error ? error.message : String(error)), req);
    });
  });

  await new Promise<void>((resolve, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      fail(new CliError(`cannot listen on ${options.host}:${options.port}: ${error.code ?? error.message}`, EXIT.CLIENT)),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const url = urlOf(server.address() as AddressInfo, options);
  const checks = [
    options.secrets.length && `signatures (${options.secrets.length} secret${options.secrets.length === 1 ? '' : 's'})`,
    options.token !== undefined && 'token',
    options.auth !== undefined && 'Authorization',
  ].filter(Boolean);
  // Before the banner: a signal that comes before its handler ends the process uncleanly.
  const stop = () => finish();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const banner = cli.json ? cli.err : cli.out;
  const bannerStyle = cli.json ? cli.errStyle : cli.style;
  banner(`Listening for webhook deliveries on ${bannerStyle.bold(url)}\n`);
  banner(bannerStyle.dim(`  checking: ${checks.length ? checks.join(', ') : 'nothing (no --secret, --token or --auth)'}\n`));
  if (!cli.json) banner(bannerStyle.dim('Press Ctrl+C to stop.\n'));

  try {
    await finished;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  return EXIT.OK;
}
