/** The message options of `a2a send` and `a2a stream`: text, data, files, task, context, history. */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SendOptions } from '../client/client.js';
import type { FileInput } from '../client/messages.js';
import type { JsonValue } from '../protocol/types.js';
import { intOption, mediaTypeOf } from './args.js';
import { UsageError } from './usage.js';
import { typedUrl } from './redact.js';

export const MESSAGE_OPTIONS = {
  data: { type: 'string' },
  file: { type: 'string', multiple: true },
  task: { type: 'string' },
  context: { type: 'string' },
  history: { type: 'string' },
  'no-wait': { type: 'boolean', default: false },
} as const;

export const MESSAGE_OPTIONS_HELP = `Message:
  <text>             the text part ("-" reads it from stdin)
  --data JSON        a data part: any JSON value
  --file PATH|URL    a file part (repeatable): a local file's bytes, or an http(s) URL
  --task ID          continue this task (e.g. answer an input-required question)
  --context ID       send within this context (conversation)
  --history N        return at most N messages of the task's history`;

export interface MessageFlags {
  data?: string | undefined;
  file?: string[] | undefined;
  task?: string | undefined;
  context?: string | undefined;
  history?: string | undefined;
  'no-wait'?: boolean | undefined;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** A `--file` http(s) URL, parsed; one that does not parse is a usage error. */
function urlOf(value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new UsageError(`--file: not a valid URL: ${typedUrl(value)}`);
  }
}

async function fileOf(value: string): Promise<FileInput> {
  if (/^https?:\/\//i.test(value)) {
    const name = basename(urlOf(value).pathname);
    return name ? { url: value, name, mediaType: mediaTypeOf(name) } : { url: value };
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(value));
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? ` (${String(error.code)})` : '';
    throw new UsageError(`--file: cannot read ${value}${code}`);
  }
  return { bytes, name: basename(value), mediaType: mediaTypeOf(value) };
}

/** The text and SendOptions from the arguments; bad JSON or unreadable files are usage errors. */
export async function messageOf(text: string, flags: MessageFlags): Promise<{ text: string; options: SendOptions }> {
  const options: SendOptions = {};
  if (flags.data !== undefined) {
    try {
      options.data = JSON.parse(flags.data) as JsonValue;
    } catch (error) {
      throw new UsageError(`--data must be JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (flags.file?.length) options.file = await Promise.all(flags.file.map(fileOf));
  if (flags.task !== undefined) options.taskId = flags.task;
  if (flags.context !== undefined) options.contextId = flags.context;
  const history = intOption(flags.history, '--history', { min: 0 });
  const configuration: NonNullable<SendOptions['configuration']> = {};
  if (history !== undefined) configuration.historyLength = history;
  if (flags['no-wait']) configuration.returnImmediately = true;
  if (Object.keys(configuration).length) options.configuration = configuration;
  return { text: text === '-' ? await stdinText() : text, options };
}

/** The text of `-`: stdin, which must hold some (an empty message is a mistake, e.g. a failed pipe). */
async function stdinText(): Promise<string> {
  const text = await readStdin();
  if (!text.trim()) throw new UsageError('<text> is "-" but stdin is empty: nothing to send');
  return text;
}
