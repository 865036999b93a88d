/** Following a task stream (`a2a stream`, `a2a subscribe`): JSON lines, or live rendering. */
import { TaskAssembler } from '../client/streams.js';
import type { StreamResponse } from '../protocol/types.js';
import type { Cli } from './cli.js';
import { taskExitCode } from './errors.js';
import { StreamRenderer } from './render/stream.js';
import { inputHint } from './render/task.js';

export interface FollowOptions {
  /** The agent URL, for the hint printed when the task waits for input. */
  url: string;
}

/** Consumes the stream and returns the exit code of the task it ends with. */
export async function followStream(cli: Cli, events: AsyncIterable<StreamResponse>, options: FollowOptions): Promise<number> {
  if (cli.json) {
    const assembler = new TaskAssembler();
    for await (const event of events) {
      cli.jsonLine(event);
      assembler.apply(event);
    }
    return taskExitCode(assembler.task);
  }
  const renderer = new StreamRenderer({ style: cli.style, write: cli.out, spinner: cli.tty, mode: 'stream' });
  renderer.start();
  try {
    for await (const event of events) renderer.event(event);
  } catch (error) {
    renderer.abort();
    throw error;
  }
  renderer.finish();
  const task = renderer.task;
  if (task) cli.out(inputHint(task, { url: options.url, style: cli.style }));
  return taskExitCode(task);
}
