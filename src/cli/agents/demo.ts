/**
 * The demo agent behind `a2a serve` (`--agent demo`, the default): one behaviour per leading keyword of the user's
 * text, so every part of the protocol (tasks, direct replies, streaming chunks, input required,
 * long-running work with cancel, failure, rejection, data and file artifacts) can be tried
 * from any client.
 *
 *   hi                 → completed task, artifact "echo" with the text
 *   msg <text>         → a direct Message reply (no task)
 *   stream <text>      → WORKING, 10 chunks of one artifact, COMPLETED
 *   ask <question>     → INPUT_REQUIRED; the next message on the task completes it
 *   slow <text>        → WORKING for A2A_DEMO_SLOW_MS (default 30 s) with progress, cancelable
 *   fail <text>        → FAILED
 *   reject <text>      → REJECTED
 *   data <text>        → artifact with a JSON data part
 *   file <text>        → artifact with a raw file part (echo.txt)
 */
import type { AgentExecutor, RequestContext } from '../../server/agentExecutor.js';
import type { TaskUpdater } from '../../server/taskUpdater.js';
import type { AgentCard } from '../../protocol/types.js';

export interface DemoOptions {
  /** How long `slow` works; default env A2A_DEMO_SLOW_MS or 30000. */
  slowMs?: number;
  /** Interval between `slow` progress updates; default env A2A_DEMO_TICK_MS or 1000. */
  tickMs?: number;
  /** Pause between `stream` chunks; default env A2A_DEMO_STREAM_DELAY_MS or 0. */
  streamDelayMs?: number;
}

/** Number of artifact chunks the `stream` behaviour sends. */
export const STREAM_CHUNKS = 10;

function envNumber(name: string, fallback: number): number {
  const raw = typeof process !== 'undefined' ? process.env[name] : undefined;
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Resolves after `ms`, or early when `signal` aborts; true when the full time elapsed. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Base64 of the UTF-8 bytes of `text` (no Buffer, so it runs anywhere). */
export function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Splits the trimmed text into a lowercase keyword and the rest ("stream  a b" → ["stream", "a b"]). */
/** The first word and the rest; a keyword alone (`slow`) is its own text (`Finished slow work: slow`). */
function parseCommand(text: string): { keyword: string; rest: string } | undefined {
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return undefined;
  const keyword = match[1] ?? '';
  return { keyword: keyword.toLowerCase(), rest: (match[2] ?? '').trim() || keyword };
}

export function createDemoAgent(options: DemoOptions = {}): AgentExecutor {
  return {
    async execute(ctx: RequestContext, task: TaskUpdater): Promise<void> {
      const text = ctx.text.trim();

      // A follow-up to a task waiting for input: the message is the answer.
      if (ctx.task?.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        const question = ctx.task.status.message?.parts.find((p) => 'text' in p);
        await task.addArtifact(text, {
          name: 'answer',
          ...(question && 'text' in question ? { description: `Answer to: ${question.text}` } : {}),
        });
        await task.complete(`Thanks, got your answer: ${text}`);
        return;
      }

      const command = parseCommand(text);
      const rest = command?.rest ?? '';
      switch (command?.keyword) {
        case 'msg':
          await task.reply(rest);
          return;
        case 'stream':
          return stream(ctx, task, { rest, delayMs: options.streamDelayMs ?? envNumber('A2A_DEMO_STREAM_DELAY_MS', 0) });
        case 'ask':
          await task.requireInput(rest.endsWith('?') ? rest : `${rest}?`);
          return;
        case 'slow':
          return slow(ctx, task, {
            rest,
            totalMs: options.slowMs ?? envNumber('A2A_DEMO_SLOW_MS', 30_000),
            tickMs: options.tickMs ?? envNumber('A2A_DEMO_TICK_MS', 1000),
          });
        case 'fail':
          await task.fail(`Failed as requested: ${rest}`);
          return;
        case 'reject':
          await task.reject(`Rejected as requested: ${rest}`);
          return;
        case 'data':
          await task.addArtifact({ data: { echo: rest, length: rest.length }, mediaType: 'application/json' }, { name: 'data' });
          await task.complete();
          return;
        case 'file':
          await task.addArtifact({ raw: utf8ToBase64(rest), filename: 'echo.txt', mediaType: 'text/plain' }, { name: 'file' });
          await task.complete();
          return;
        default:
          await task.addArtifact(text, { name: 'echo' });
          await task.complete();
      }
    },
  };
}

async function stream(ctx: RequestContext, task: TaskUpdater, { rest, delayMs }: { rest: string; delayMs: number }): Promise<void> {
  await task.startWork(`Streaming ${STREAM_CHUNKS} chunks`);
  let artifactId: string | undefined;
  for (let i = 1; i <= STREAM_CHUNKS; i++) {
    if (i > 1 && !(await sleep(delayMs, ctx.signal))) return;
    if (ctx.signal.aborted) return;
    const chunk = `chunk ${i}/${STREAM_CHUNKS}: ${rest}\n`;
    artifactId = await task.addArtifact(chunk, {
      name: 'stream',
      ...(artifactId ? { artifactId, append: true } : {}),
      ...(i === STREAM_CHUNKS ? { lastChunk: true } : {}),
    });
  }
  await task.complete();
}

async function slow(
  ctx: RequestContext,
  task: TaskUpdater,
  { rest, totalMs, tickMs }: { rest: string; totalMs: number; tickMs: number },
): Promise<void> {
  const tick = Math.max(1, tickMs);
  const steps = Math.max(1, Math.ceil(totalMs / tick));
  await task.startWork(`progress 0/${steps}`);
  let elapsed = 0;
  for (let n = 1; n <= steps; n++) {
    const wait = Math.min(tick, Math.max(0, totalMs - elapsed));
    if (!(await sleep(wait, ctx.signal))) return; // canceled: the server marks the task CANCELED
    elapsed += wait;
    if (n < steps) await task.startWork(`progress ${n}/${steps}`);
  }
  if (ctx.signal.aborted) return;
  await task.addArtifact(`Finished slow work: ${rest}`, { name: 'slow' });
  await task.complete(`progress ${steps}/${steps}`);
}

export const demoAgent: AgentExecutor = createDemoAgent();

export function demoCard(): Omit<AgentCard, 'supportedInterfaces'> {
  return {
    name: 'a2a-kit demo agent',
    description:
      'A demo agent that exercises the A2A protocol: the first word of your message picks a behaviour ' +
      '(msg, stream, ask, slow, fail, reject, data, file); anything else is echoed back as an artifact.',
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: ['text/plain', 'application/json', 'application/octet-stream'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Completes a task with one artifact named "echo" holding your text.',
        tags: ['echo', 'task', 'artifact'],
        examples: ['hi', 'hello world'],
      },
      {
        id: 'message',
        name: 'Direct message',
        description: 'Replies with a Message instead of a task, echoing the text after "msg".',
        tags: ['message', 'reply'],
        examples: ['msg hello'],
      },
      {
        id: 'stream',
        name: 'Streamed artifact',
        description: `Works, then streams ${STREAM_CHUNKS} chunks of one artifact (append, lastChunk), then completes.`,
        tags: ['streaming', 'artifact', 'chunks'],
        examples: ['stream a story'],
      },
      {
        id: 'ask',
        name: 'Input required',
        description: 'Asks the question back (INPUT_REQUIRED); your next message on the task is the answer and completes it.',
        tags: ['input-required', 'multi-turn'],
        examples: ['ask what is your name'],
      },
      {
        id: 'slow',
        name: 'Long-running task',
        description: 'Stays WORKING for about 30 seconds with a progress update every second; can be canceled.',
        tags: ['long-running', 'progress', 'cancel'],
        examples: ['slow job'],
      },
      {
        id: 'fail',
        name: 'Failure',
        description: 'Ends the task FAILED with a message.',
        tags: ['failed', 'error'],
        examples: ['fail something broke'],
      },
      {
        id: 'reject',
        name: 'Rejection',
        description: 'Ends the task REJECTED with a message.',
        tags: ['rejected'],
        examples: ['reject not my job'],
      },
      {
        id: 'data',
        name: 'Structured data',
        description: 'Completes with an artifact holding a JSON data part {"echo": text, "length": n}.',
        tags: ['data', 'json', 'artifact'],
        examples: ['data hello'],
        outputModes: ['application/json'],
      },
      {
        id: 'file',
        name: 'File',
        description: 'Completes with an artifact holding a file part echo.txt (base64 of the text).',
        tags: ['file', 'raw', 'artifact'],
        examples: ['file hello'],
        outputModes: ['text/plain'],
      },
    ],
  };
}
