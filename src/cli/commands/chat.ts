/**
 * `a2a chat`: an interactive multi-turn conversation. The context is kept across turns; when
 * the agent asks for input (INPUT_REQUIRED) the next line answers on the same task; artifacts
 * are shown as they stream (SendStreamingMessage when the card declares streaming, else
 * SendMessage). Reads lines from stdin: a terminal gets a prompt, piped input is read to EOF.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { A2AClient, CallOptions, SendOptions } from '../../client/client.js';
import { TaskAssembler } from '../../client/streams.js';
import { A2AError } from '../../protocol/errors.js';
import { isTerminalState } from '../../protocol/taskStates.js';
import type { Message, Task } from '../../protocol/types.js';
import { positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand, type Cli } from '../cli.js';
import { checkClientFlags, connect, waitingCall } from '../connect.js';
import { errorText, reportOf } from '../errors.js';
import { renderParts, styledState, textOf } from '../render/parts.js';
import { Spinner } from '../render/spinner.js';
import { StreamRenderer } from '../render/stream.js';

export const chatHelp = `Usage: a2a chat <url> [options]

Talk to an agent, one message per line. The conversation keeps its context across
turns; when the agent asks a question (input required), your next line answers it on
the same task. Artifacts are shown as they stream (when the agent streams; otherwise
when the task finishes). Errors are shown and the session goes on.

On a terminal there is a prompt and Ctrl+C interrupts the current turn; piped input is
read line by line until its end. The exit code is 0 after /quit or the end of input,
3 or 4 only when the session cannot start (no card, agent refused).

In the session:
  /new               start a new conversation (a new context)
  /quit, /exit       leave (or Ctrl+D, or the end of input)
  /help              these commands

Options:
  --context ID       continue this context
  --task ID          continue this task (e.g. answer the question it waits on)
  --no-stream        use SendMessage even when the agent can stream

${CLIENT_OPTIONS_HELP}
  With --json every event (or response, without streaming) is one JSON line.

Examples:
  a2a chat http://localhost:8080
  printf 'ask your name\\nAda\\n' | a2a chat http://localhost:8080
  a2a chat https://agent.example.com --binding rest --api-key "$KEY"
`;

interface ChatState {
  contextId: string | undefined;
  /** The task waiting for our input, if any. */
  taskId: string | undefined;
}

class ChatSession {
  private readonly state: ChatState;
  private current: AbortController | undefined;

  constructor(
    private readonly cli: Cli,
    private readonly client: A2AClient,
    /** `waiting`: the options of a turn's blocking SendMessage (no time limit unless --timeout). */
    private readonly options: { stream: boolean; interactive: boolean; state: ChatState; waiting: CallOptions },
  ) {
    this.state = options.state;
  }

  async run(): Promise<number> {
    const { cli, options } = this;
    const rl = createInterface({
      input: process.stdin,
      ...(options.interactive ? { output: process.stdout, terminal: true } : { terminal: false }),
    });
    if (options.interactive) {
      const how = `${this.client.agentInterface.protocolBinding}${options.stream ? ', streaming' : ''}`;
      cli.out(`${cli.style.bold(this.client.card.name)} ${cli.style.dim(`(${how}) — /help for commands, /quit to leave`)}\n`);
      rl.setPrompt(cli.style.bold('you› '));
      rl.on('SIGINT', () => {
        if (this.current) this.current.abort();
        else rl.close();
      });
      rl.prompt();
    }
    try {
      for await (const raw of rl) {
        const line = raw.trim();
        if (line && (await this.line(line)) === 'quit') break;
        if (options.interactive) rl.prompt();
      }
    } finally {
      rl.close();
    }
    return 0;
  }

  /** One line of input: a session command or a message. */
  private async line(line: string): Promise<'quit' | void> {
    const { cli } = this;
    switch (line) {
      case '/quit':
      case '/exit':
        return 'quit';
      case '/new':
        this.state.contextId = undefined;
        this.state.taskId = undefined;
        if (!cli.json) cli.out(`${cli.style.dim('(new conversation)')}\n`);
        return;
      case '/help':
        cli.err('/new  new conversation · /quit  leave · anything else is sent to the agent\n');
        return;
    }
    if (/^\/\w+$/.test(line)) {
      cli.err(`unknown command ${line} (/help lists them)\n`);
      return;
    }
    await this.turn(line);
  }

  private async turn(text: string): Promise<void> {
    const { cli } = this;
    const send: SendOptions = {};
    if (this.state.contextId) send.contextId = this.state.contextId;
    if (this.state.taskId) send.taskId = this.state.taskId;
    const controller = new AbortController();
    this.current = controller;
    send.signal = controller.signal;
    try {
      const outcome = this.options.stream ? await this.streamed(text, send) : await this.unary(text, send);
      this.after(outcome);
    } catch (error) {
      const report = reportOf(error, cli.secrets);
      if (controller.signal.aborted) {
        cli.err(`${cli.errStyle.dim('(interrupted)')}\n`);
      } else {
        if (cli.json) cli.jsonLine({ error: report });
        cli.err(`${cli.errStyle.red('error:')} ${errorText(report)}\n`);
      }
      // A task that is gone or finished cannot be continued: start afresh on it.
      if (A2AError.is(error) && this.state.taskId) this.state.taskId = undefined;
    } finally {
      this.current = undefined;
    }
  }

  private async streamed(text: string, send: SendOptions): Promise<{ task?: Task | undefined; message?: Message | undefined }> {
    const { cli } = this;
    const events = this.client.streamText(text, send);
    if (cli.json) {
      const assembler = new TaskAssembler();
      for await (const event of events) {
        cli.jsonLine(event);
        assembler.apply(event);
      }
      return { task: assembler.task, message: assembler.message };
    }
    const renderer = new StreamRenderer({ style: cli.style, write: cli.out, spinner: cli.tty, mode: 'chat' });
    renderer.start('waiting for the agent');
    try {
      for await (const event of events) renderer.event(event);
    } finally {
      renderer.finish();
    }
    return { task: renderer.assembler.task, message: renderer.assembler.message };
  }

  private async unary(text: string, send: SendOptions): Promise<{ task?: Task; message?: Message }> {
    const { cli } = this;
    const spinner = new Spinner({ write: cli.out, enabled: cli.tty && !cli.json, frameStyle: cli.style.cyan });
    spinner.set('waiting for the agent');
    let result;
    try {
      result = await this.client.sendText(text, { ...send, ...this.options.waiting });
    } finally {
      spinner.stop();
    }
    if (cli.json) {
      cli.jsonLine(result);
    } else if ('task' in result) {
      for (const artifact of result.task.artifacts ?? []) {
        cli.out(`${cli.style.bold(`▸ ${artifact.name ?? artifact.artifactId}`)}\n${renderParts(artifact.parts, cli.style)}\n`);
      }
    }
    return result;
  }

  /** Remembers the context and the waiting task; shows the agent's words and the outcome. */
  private after(outcome: { task?: Task | undefined; message?: Message | undefined }): void {
    const { cli } = this;
    const say = (text: string) => {
      if (!cli.json && text) cli.out(`${cli.style.cyan(cli.tty ? 'agent›' : 'agent:')} ${text}\n`);
    };
    const { task, message } = outcome;
    if (task) {
      this.state.contextId = task.contextId ?? this.state.contextId;
      const state = task.status.state;
      const words = task.status.message ? renderParts(task.status.message.parts, cli.style) : '';
      if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
        this.state.taskId = task.id;
        say(words || textOf(task.status.message?.parts) || '(the agent needs input)');
        if (state === 'TASK_STATE_AUTH_REQUIRED' && !cli.json) cli.out(`${cli.style.dim(`(${styledState(state, cli.style)})`)}\n`);
        return;
      }
      this.state.taskId = undefined;
      if (state === 'TASK_STATE_COMPLETED') {
        say(words);
        if (!words && !task.artifacts?.length && !cli.json) cli.out(`${cli.style.dim('(completed)')}\n`);
      } else if (!cli.json) {
        const note = isTerminalState(state) ? '' : ` — task ${task.id} goes on; see a2a get`;
        cli.out(`${cli.style.dim('(')}${styledState(state, cli.style)}${cli.style.dim(`${note})`)}${words ? ` ${words}` : ''}\n`);
      }
    } else if (message) {
      this.state.contextId = message.contextId ?? this.state.contextId;
      this.state.taskId = undefined;
      say(renderParts(message.parts, cli.style));
    }
  }
}

export async function chatCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CLIENT_OPTIONS,
      context: { type: 'string' },
      task: { type: 'string' },
      'no-stream': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(chatHelp);
    return 0;
  }
  const [url = ''] = positionalsOf(positionals, ['url']);
  checkClientFlags(url, values);
  const cli = createCli('chat', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    const session = new ChatSession(cli, client, {
      stream: !values['no-stream'] && client.card.capabilities.streaming === true,
      interactive: process.stdin.isTTY === true && cli.tty && !cli.json,
      state: { contextId: values.context, taskId: values.task },
      waiting: waitingCall(values),
    });
    return session.run();
  });
}
