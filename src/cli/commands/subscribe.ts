/** `a2a subscribe`: follow an existing task live (SubscribeToTask). */
import { parseArgs } from 'node:util';
import { positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { followStream } from '../follow.js';

export const subscribeHelp = `Usage: a2a subscribe <url> <task> [options]

Follow a running task live, like a2a stream: the current snapshot first, then state
changes and artifact chunks as they arrive, then a summary. Ends when the task completes,
fails or needs input. A finished task cannot be subscribed to (the agent answers
UNSUPPORTED_OPERATION, exit 3): use a2a get.

${CLIENT_OPTIONS_HELP}
Examples:
  id=$(a2a send http://localhost:8080 "slow job" --no-wait --json | jq -r .task.id)
  a2a subscribe http://localhost:8080 "$id"
  a2a subscribe http://localhost:8080 "$id" --json
`;

export async function subscribeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: CLIENT_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(subscribeHelp);
    return 0;
  }
  const [url = '', id = ''] = positionalsOf(positionals, ['url', 'task']);
  checkClientFlags(url, values);
  const cli = createCli('subscribe', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    return followStream(cli, client.subscribeToTask({ id }), { url });
  });
}
