/** The `a2a` command line. Commands are loaded on use, so calling an agent never loads the server. */
import { secretsOf } from './argSecrets.js';
import { isUsageError, reportOf } from './errors.js';
import { redactSecrets } from './redact.js';
import { stdoutClosed } from './stdoutClosed.js';
import { UsageError } from './usage.js';
import { usageText } from './usageText.js';

const HELP = `Usage: a2a <command> [options]

Run an agent:
  serve       run an agent (JSON-RPC + HTTP+JSON + Agent Card)
  db          storage maintenance: schema migrations, purging old tasks
  keys        signing keys for Agent Cards: a2a keys generate

Call an agent:
  card        show an agent's Agent Card
  send        send a message, print the task or the reply
  stream      send a message, follow the task live
  chat        talk to an agent, turn after turn
  get         show a task
  list        list tasks
  cancel      cancel a task
  subscribe   follow a running task live
  push        manage a task's push notification configs (webhooks)

Receive:
  webhook     receive push notifications: a2a webhook listen

Run "a2a <command> --help" for the options and examples of a command.
Exit codes: 0 ok, 2 usage, 3 error from the agent, 4 network or client error,
5 task FAILED, REJECTED or CANCELED, 6 card signature not verified (see docs/cli.md).

Examples:
  a2a serve                                    the demo agent on http://localhost:8080
  a2a serve --agent ./my-agent.ts              your own agent module: export default { card, executor }
  a2a card http://localhost:8080               what the agent can do
  a2a send http://localhost:8080 "hello"       one message, the result
  a2a stream http://localhost:8080 "stream a story"
  a2a chat http://localhost:8080               a conversation
  a2a list http://localhost:8080 --status working
`;

interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => {
    const m = await import('./commands/serve.js');
    return { run: m.serveCommand, help: m.serveHelp };
  },
  db: async () => {
    const m = await import('./commands/db.js');
    return { run: m.dbCommand, help: m.dbHelp };
  },
  keys: async () => {
    const m = await import('./commands/keys.js');
    return { run: m.keysCommand, help: m.keysHelp };
  },
  card: async () => {
    const m = await import('./commands/card.js');
    return { run: m.cardCommand, help: m.cardHelp };
  },
  send: async () => {
    const m = await import('./commands/send.js');
    return { run: m.sendCommand, help: m.sendHelp };
  },
  stream: async () => {
    const m = await import('./commands/stream.js');
    return { run: m.streamCommand, help: m.streamHelp };
  },
  chat: async () => {
    const m = await import('./commands/chat.js');
    return { run: m.chatCommand, help: m.chatHelp };
  },
  get: async () => {
    const m = await import('./commands/get.js');
    return { run: m.getCommand, help: m.getHelp };
  },
  list: async () => {
    const m = await import('./commands/list.js');
    return { run: m.listCommand, help: m.listHelp };
  },
  cancel: async () => {
    const m = await import('./commands/cancel.js');
    return { run: m.cancelCommand, help: m.cancelHelp };
  },
  subscribe: async () => {
    const m = await import('./commands/subscribe.js');
    return { run: m.subscribeCommand, help: m.subscribeHelp };
  },
  push: async () => {
    const m = await import('./commands/push.js');
    return { run: m.pushCommand, help: m.pushHelp };
  },
  webhook: async () => {
    const m = await import('./commands/webhook.js');
    return { run: m.webhookCommand, help: m.webhookHelp };
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    const problem = name.startsWith('-') ? `missing <command> (options go after it: a2a <command> ${name})` : `unknown command "${name}"`;
    return reportFailure('a2a', { error: new UsageError(problem), args: argv });
  }
  const command = await load();
  try {
    return await command.run(rest);
  } catch (error) {
    // Commands report their own failures; what arrives here is a usage error, a setup mistake
    // (CliError) or a bug.
    return reportFailure(`a2a ${name}`, { error, args: rest });
  }
}

/**
 * A failure on stderr (usage errors with "see … --help") and, with --json, as {"error": …} on
 * stdout; its exit code. The credentials among `args` and in the environment never show (R23).
 */
function reportFailure(prefix: string, { error, args }: { error: unknown; args: string[] }): number {
  const usage = isUsageError(error);
  const secrets = secretsOf(args, process.env);
  const report = reportOf(error, secrets);
  if (usage) report.message = redactSecrets(usageText(error), secrets);
  if (wantsJson(args)) process.stdout.write(`${JSON.stringify({ error: report })}\n`);
  process.stderr.write(`${prefix}: ${report.message}\n`);
  if (usage) process.stderr.write(`see ${prefix} --help\n`);
  return report.exitCode;
}

/** --json among the options (not after "--", where it would be text). */
function wantsJson(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

// `a2a … | head`: the reader went away; stop quietly instead of crashing on EPIPE (a listening
// `a2a serve` keeps serving instead: stdoutClosed.ts).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  if (stdoutClosed()) return;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

process.exitCode = await main(process.argv.slice(2));
