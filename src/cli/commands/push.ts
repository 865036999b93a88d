/** `a2a push`: a task's push notification configs (Create/Get/List/DeleteTaskPushNotificationConfig). */
import { parseArgs } from 'node:util';
import type {
  AuthenticationInfo,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../../protocol/types.js';
import type { A2AClient } from '../../client/client.js';
import { intOption, nonEmpty, positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand, type Cli, type ClientFlags } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { renderPushConfig, renderPushConfigs } from '../render/pushConfig.js';
import { UsageError } from '../usage.js';
import { typedUrl } from '../redact.js';

export const pushHelp = `Usage: a2a push <create|get|list|delete> <url> <task> … [options]

Manage the push notification configs of a task: the webhooks the agent POSTs the task's
updates to. The agent must declare push notifications in its card (a2a card shows it);
otherwise it answers PUSH_NOTIFICATION_NOT_SUPPORTED (exit 3).

  create <url> <task> <webhook-url>   register a webhook (http or https) for the task
  get    <url> <task> <config-id>     show one config
  list   <url> <task>                 the task's configs
  delete <url> <task> <config-id>     remove a config

Options of create:
  --id ID                     the config's id (the agent picks one otherwise)
  --token T                   a token the agent sends with every notification, for the
                              webhook to check
  --auth "SCHEME CREDENTIALS" how the agent authenticates to the webhook, split at the first
                              space: --auth "Bearer abc123"
  --auth-scheme S             the same in parts: the scheme (Bearer, Basic, …)
  --auth-credentials C        and the credentials
  --auth-credentials-env VAR  or the credentials read from environment variable VAR (kept out
                              of the process list and the shell history)

Options of list:
  --page-size N               configs per page (the agent's default otherwise)
  --page-token T              start at this page (from a previous listing)
  --all                       follow nextPageToken to the last page

Human output never shows the token or the credentials (token "set" or "none", credentials
"***", a credential in the webhook URL's query as ?access_token=***), nor does --verbose (*** in
the bodies it shows, on every binding); --json prints the configs as the agent returns them,
secrets included.

${CLIENT_OPTIONS_HELP}
Examples:
  a2a push create http://localhost:8080 5b0c1d2e-… https://hooks.example.com/a2a --token s3cret
  HOOK_KEY=… a2a push create http://localhost:8080 5b0c1d2e-… https://hooks.example.com/a2a \\
      --auth-scheme Bearer --auth-credentials-env HOOK_KEY
  a2a push list http://localhost:8080 5b0c1d2e-…
  a2a push get http://localhost:8080 5b0c1d2e-… 7f3e9a01-…
  a2a push delete http://localhost:8080 5b0c1d2e-… 7f3e9a01-…
  a2a push list http://localhost:8080 5b0c1d2e-… --all --json | jq -r '.configs[].id'
`;

type Action = 'create' | 'get' | 'list' | 'delete';

/** The positionals after the subcommand. */
const ARGS: Record<Action, string[]> = {
  create: ['url', 'task', 'webhook-url'],
  get: ['url', 'task', 'config-id'],
  list: ['url', 'task'],
  delete: ['url', 'task', 'config-id'],
};

const OPTIONS = {
  ...CLIENT_OPTIONS,
  id: { type: 'string' },
  token: { type: 'string' },
  auth: { type: 'string' },
  'auth-scheme': { type: 'string' },
  'auth-credentials': { type: 'string' },
  'auth-credentials-env': { type: 'string' },
  'page-size': { type: 'string' },
  'page-token': { type: 'string' },
  all: { type: 'boolean' },
} as const;

/** The options that belong to one subcommand. */
const OWNER: Partial<Record<keyof typeof OPTIONS, Action>> = {
  id: 'create',
  token: 'create',
  auth: 'create',
  'auth-scheme': 'create',
  'auth-credentials': 'create',
  'auth-credentials-env': 'create',
  'page-size': 'list',
  'page-token': 'list',
  all: 'list',
};

/** Guards --all against an agent that hands out the same page token forever. */
const MAX_PAGES = 10_000;

function actionOf(value: string | undefined): Action {
  if (value === undefined) throw new UsageError('missing <create|get|list|delete>');
  if (!Object.hasOwn(ARGS, value)) throw new UsageError(`unknown subcommand "${value}": expected create, get, list or delete`);
  return value as Action;
}

/** The webhook argument, checked: an absolute http(s) URL (sent as given). */
export function webhookUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`<webhook-url> must be an absolute http(s) URL, got "${typedUrl(value)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`<webhook-url> must be http(s), got "${typedUrl(value)}"`);
  return value;
}

export interface AuthFlags {
  auth?: string | undefined;
  'auth-scheme'?: string | undefined;
  'auth-credentials'?: string | undefined;
  'auth-credentials-env'?: string | undefined;
}

const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** --auth "SCHEME CREDENTIALS", or --auth-scheme with --auth-credentials or --auth-credentials-env. */
export function authenticationOf(flags: AuthFlags, env: Record<string, string | undefined>): AuthenticationInfo | undefined {
  const parts = flags['auth-scheme'] !== undefined || flags['auth-credentials'] !== undefined || flags['auth-credentials-env'] !== undefined;
  let scheme: string | undefined;
  let credentials: string | undefined;
  if (flags.auth !== undefined) {
    if (parts) throw new UsageError('--auth and --auth-scheme/--auth-credentials/--auth-credentials-env exclude each other');
    const value = flags.auth.trim();
    const space = value.search(/\s/);
    scheme = space < 0 ? value : value.slice(0, space);
    credentials = space < 0 ? undefined : value.slice(space).trim() || undefined;
    if (!scheme) throw new UsageError('--auth must be "SCHEME CREDENTIALS", e.g. --auth "Bearer abc123"');
  } else if (parts) {
    if (flags['auth-credentials'] !== undefined && flags['auth-credentials-env'] !== undefined) {
      throw new UsageError('--auth-credentials and --auth-credentials-env exclude each other');
    }
    scheme = flags['auth-scheme']?.trim();
    if (!scheme) {
      const given = flags['auth-credentials-env'] !== undefined ? '--auth-credentials-env' : '--auth-credentials';
      throw new UsageError(`${flags['auth-scheme'] === undefined ? `${given} needs --auth-scheme` : '--auth-scheme must not be empty'} (Bearer, Basic, …), or use --auth "SCHEME CREDENTIALS"`);
    }
    credentials = nonEmpty(flags['auth-credentials'], '--auth-credentials');
    const name = flags['auth-credentials-env'];
    if (name !== undefined) {
      credentials = env[name];
      if (!credentials) throw new UsageError(`--auth-credentials-env: environment variable ${name} is not set or empty`);
    }
  } else {
    return undefined;
  }
  if (!SCHEME.test(scheme)) throw new UsageError(`the authentication scheme must be one word (Bearer, Basic, …), got "${scheme}"`);
  return credentials === undefined ? { scheme } : { scheme, credentials };
}

export async function pushCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(pushHelp);
    return 0;
  }
  const [first, ...rest] = positionals;
  const action = actionOf(first);
  const [url = '', taskId = '', third = ''] = positionalsOf(rest, ARGS[action]);
  checkClientFlags(url, values);
  for (const [option, owner] of Object.entries(OWNER)) {
    if (owner !== action && values[option as keyof typeof values] !== undefined) throw new UsageError(`--${option} is for a2a push ${owner}`);
  }
  const cli = createCli('push', values);

  if (action === 'create') {
    const config: TaskPushNotificationConfig = { taskId, url: webhookUrl(third) };
    if (values.id !== undefined) config.id = values.id;
    const token = nonEmpty(values.token, '--token');
    if (token !== undefined) config.token = token;
    const authentication = authenticationOf(values, cli.env);
    if (authentication) config.authentication = authentication;
    return run(cli, { url, values }, async (client) => {
      const created = await client.createTaskPushNotificationConfig(config);
      if (cli.json) cli.jsonLine(created);
      else cli.out(renderPushConfig(created, cli.style));
    });
  }
  if (action === 'get') {
    return run(cli, { url, values }, async (client) => {
      const config = await client.getTaskPushNotificationConfig({ taskId, id: third });
      if (cli.json) cli.jsonLine(config);
      else cli.out(renderPushConfig(config, cli.style));
    });
  }
  if (action === 'delete') {
    return run(cli, { url, values }, async (client) => {
      const result = await client.deleteTaskPushNotificationConfig({ taskId, id: third });
      if (cli.json) cli.jsonLine(result);
      else cli.out(`deleted push notification config ${third} of task ${taskId} (if it existed)\n`);
    });
  }

  const request: ListTaskPushNotificationConfigsRequest = { taskId };
  const pageSize = intOption(values['page-size'], '--page-size', { min: 1 });
  if (pageSize !== undefined) request.pageSize = pageSize;
  if (values['page-token'] !== undefined) request.pageToken = values['page-token'];
  return run(cli, { url, values }, async (client) => {
    let page = await client.listTaskPushNotificationConfigs(request);
    const configs = [...(page.configs ?? [])];
    const seen = new Set<string>();
    for (let n = 1; values.all && page.nextPageToken && !seen.has(page.nextPageToken) && n < MAX_PAGES; n++) {
      seen.add(page.nextPageToken);
      page = await client.listTaskPushNotificationConfigs({ ...request, pageToken: page.nextPageToken });
      configs.push(...(page.configs ?? []));
    }
    const result: ListTaskPushNotificationConfigsResponse = values.all ? { ...page, configs, nextPageToken: '' } : page;
    if (cli.json) return cli.jsonLine(result);
    if (!configs.length) return cli.out(`no push notification configs for task ${taskId}\n`);
    const more = result.nextPageToken ? `; next page: --page-token ${result.nextPageToken} (or --all)` : '';
    cli.out(`${renderPushConfigs(configs, cli.style)}\n${cli.style.dim(`${configs.length} config${configs.length === 1 ? '' : 's'}${more}`)}\n`);
  });
}

/** Connects and runs `body` under runCommand: exit 0 unless it throws. */
function run(cli: Cli, target: { url: string; values: ClientFlags }, body: (client: A2AClient) => Promise<void>): Promise<number> {
  return runCommand(cli, async () => {
    await body(await connect(cli, target.url, target.values));
    return 0;
  });
}
