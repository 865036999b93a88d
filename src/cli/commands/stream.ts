/** `a2a stream`: send one message over SendStreamingMessage and render the task live. */
import { parseArgs } from 'node:util';
import { positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { followStream } from '../follow.js';
import { MESSAGE_OPTIONS, MESSAGE_OPTIONS_HELP, messageOf } from '../message.js';
import { UsageError } from '../usage.js';

export const streamHelp = `Usage: a2a stream <url> <text> [options]

Send a message over SendStreamingMessage and follow the task live: its state (with a
spinner on a terminal), artifact chunks as they arrive (appended to the artifact on
screen), then a summary. Ends when the task completes, fails or needs input. A stream
that drops is resumed (SubscribeToTask) without losing or repeating events.
With --json, every event is printed as one JSON line.

${MESSAGE_OPTIONS_HELP}

${CLIENT_OPTIONS_HELP}
Examples:
  a2a stream http://localhost:8080 "stream a story"
  a2a stream http://localhost:8080 "stream a story" --json | jq -c 'keys[0]'
  a2a stream http://localhost:8080 "more" --context 0c6e… --binding rest
`;

export async function streamCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { ...CLIENT_OPTIONS, ...MESSAGE_OPTIONS }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(streamHelp);
    return 0;
  }
  const [url = '', input = ''] = positionalsOf(positionals, ['url', 'text']);
  if (values['no-wait']) throw new UsageError('--no-wait is for a2a send; a stream shows the task from its first event');
  checkClientFlags(url, values);
  const message = await messageOf(input, values);
  const cli = createCli('stream', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    return followStream(cli, client.streamText(message.text, message.options), { url });
  });
}
