/** `a2a cancel`: cancel a task (CancelTask). */
import { parseArgs } from 'node:util';
import { positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { renderTask } from '../render/task.js';

export const cancelHelp = `Usage: a2a cancel <url> <task> [options]

Ask the agent to cancel a task and print the task it returns. Exits 0 when the agent
accepted (the task is CANCELED — the outcome asked for, so not exit 5); a task that
already finished cannot be canceled (TASK_NOT_CANCELABLE, exit 3).

${CLIENT_OPTIONS_HELP}
Examples:
  a2a cancel http://localhost:8080 5b0c1d2e-…
  a2a cancel http://localhost:8080 5b0c1d2e-… --json | jq -r .status.state
`;

export async function cancelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: CLIENT_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(cancelHelp);
    return 0;
  }
  const [url = '', id = ''] = positionalsOf(positionals, ['url', 'task']);
  checkClientFlags(url, values);
  const cli = createCli('cancel', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    const task = await client.cancelTask({ id });
    if (cli.json) cli.jsonLine(task);
    else cli.out(renderTask(task, cli.style));
    return 0;
  });
}
