/** `a2a send`: send one message and print the task or the reply. */
import { parseArgs } from 'node:util';
import { positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect, waitingCall } from '../connect.js';
import { taskExitCode } from '../errors.js';
import { MESSAGE_OPTIONS, MESSAGE_OPTIONS_HELP, messageOf } from '../message.js';
import { renderMessage } from '../render/parts.js';
import { Spinner } from '../render/spinner.js';
import { inputHint, renderTask } from '../render/task.js';

export const sendHelp = `Usage: a2a send <url> <text> [options]

Send a message to the agent at <url> (its Agent Card is read from
<url>/.well-known/agent-card.json) and print the result: the task — state, status
message, artifacts (text, data, file summaries) — or the agent's reply message.
Waits until the task completes, fails or needs input, unless --no-wait.

${MESSAGE_OPTIONS_HELP}
  --no-wait          return as soon as the task exists (returnImmediately)

${CLIENT_OPTIONS_HELP}
Examples:
  a2a send http://localhost:8080 "hello"
  a2a send http://localhost:8080 "summarise" --file ./notes.txt --data '{"words": 50}'
  a2a send http://localhost:8080 "slow job" --no-wait --json | jq -r .task.id
  a2a send http://localhost:8080 "Ada" --task 5b0c…        answer an input-required task
  echo "long text" | a2a send http://localhost:8080 - --binding rest
  A2A_TOKEN=secret a2a send https://agent.example.com "hi" -H X-Trace=1 --verbose
`;

export async function sendCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { ...CLIENT_OPTIONS, ...MESSAGE_OPTIONS }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(sendHelp);
    return 0;
  }
  const [url = '', input = ''] = positionalsOf(positionals, ['url', 'text']);
  checkClientFlags(url, values);
  const message = await messageOf(input, values);
  const cli = createCli('send', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    // A blocking call can take a while: show that something is going on (terminals only).
    const spinner = new Spinner({ write: cli.out, enabled: cli.tty && !cli.json, frameStyle: cli.style.cyan });
    spinner.set(`waiting for ${client.card.name}`);
    let result;
    try {
      // A blocking send waits as long as the task runs (unless --timeout); --no-wait has the default limit.
      result = await client.sendText(message.text, values['no-wait'] ? message.options : { ...message.options, ...waitingCall(values) });
    } finally {
      spinner.stop();
    }
    if (cli.json) cli.jsonLine(result);
    else if ('task' in result) cli.out(renderTask(result.task, cli.style, { history: values.history !== undefined }) + inputHint(result.task, { url, style: cli.style }));
    else cli.out(renderMessage(result.message, cli.style));
    return 'task' in result ? taskExitCode(result.task) : 0;
  });
}
