/** `a2a get`: one task (GetTask). */
import { parseArgs } from 'node:util';
import { intOption, positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { taskExitCode } from '../errors.js';
import { inputHint, renderTask } from '../render/task.js';

export const getHelp = `Usage: a2a get <url> <task> [options]

Print a task: state, status message, artifacts, and with --history its messages. The
exit code follows the task too (5 when it ended FAILED, REJECTED or CANCELED), so a
script can poll with it.

Options:
  --history N        include at most N messages of history (0: none)

${CLIENT_OPTIONS_HELP}
Examples:
  a2a get http://localhost:8080 5b0c1d2e-…
  a2a get http://localhost:8080 5b0c1d2e-… --history 10
  a2a get http://localhost:8080 5b0c1d2e-… --json | jq -r .status.state
`;

export async function getCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...CLIENT_OPTIONS, history: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(getHelp);
    return 0;
  }
  const [url = '', id = ''] = positionalsOf(positionals, ['url', 'task']);
  checkClientFlags(url, values);
  const history = intOption(values.history, '--history', { min: 0 });
  const cli = createCli('get', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    const task = await client.getTask(history === undefined ? { id } : { id, historyLength: history });
    if (cli.json) cli.jsonLine(task);
    else cli.out(renderTask(task, cli.style, { history: history !== undefined && history > 0 }) + inputHint(task, { url, style: cli.style }));
    return taskExitCode(task);
  });
}
