/**
 * The system-under-test agent for the A2A conformance kit (TCK). The kit picks a behaviour
 * through the prefix of the request's messageId (`tck-artifact-file-…`, `tck-stream-001-…`);
 * the longest matching prefix wins.
 */
import type { AgentExecutor, RequestContext } from '../../server/agentExecutor.js';
import type { TaskUpdater } from '../../server/taskUpdater.js';
import type { AgentCard, Part } from '../../protocol/types.js';
import { sleep, utf8ToBase64 } from './demo.js';

export interface ConformanceOptions {
  /** How long `test-resubscribe-message-id` stays WORKING; default env A2A_CONFORMANCE_WAIT_MS or 4000. */
  waitMs?: number;
}

export const FILE_CONTENT = 'Generated file content';

function filePart(): Part {
  return { raw: utf8ToBase64(FILE_CONTENT), filename: 'output.txt', mediaType: 'text/plain' };
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

type Behaviour = (ctx: RequestContext, task: TaskUpdater, options: ConformanceOptions) => Promise<void>;

/** WORKING, one artifact, COMPLETED: the shape the streaming tests observe. */
function streamed(content: string | Part): Behaviour {
  return async (_ctx, task) => {
    await task.startWork();
    await task.addArtifact(content);
    await task.complete();
  };
}

function completedWith(content: string | Part): Behaviour {
  return async (_ctx, task) => {
    await task.addArtifact(content);
    await task.complete();
  };
}

const BEHAVIOURS: Record<string, Behaviour> = {
  'tck-complete-task': async (_ctx, task) => {
    await task.complete('Hello from TCK');
  },
  'tck-artifact-text': completedWith('Generated text content'),
  'tck-artifact-file': completedWith(filePart()),
  'tck-artifact-file-url': completedWith({ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }),
  'tck-artifact-data': completedWith({ data: { key: 'value', count: 42 }, mediaType: 'application/json' }),
  'tck-message-response': async (_ctx, task) => {
    await task.reply('Direct message response');
  },
  'tck-input-required': async (_ctx, task) => {
    await task.requireInput('Please provide additional input');
  },
  'tck-reject-task': async () => {
    // The framework records an agent error as a FAILED task.
    throw new Error('rejected');
  },
  'tck-stream-001': streamed('Stream hello from TCK'),
  'tck-stream-002': async (_ctx, task) => {
    await task.complete();
  },
  'tck-stream-003': streamed('Stream task lifecycle'),
  'tck-stream-ordering-001': streamed('Ordered output'),
  'tck-stream-artifact-text': streamed('Streamed text content'),
  'tck-stream-artifact-file': streamed(filePart()),
  'tck-stream-artifact-chunked': async (_ctx, task) => {
    await task.startWork();
    const artifactId = await task.addArtifact('chunk-1 ');
    await task.addArtifact('chunk-2', { artifactId, append: true, lastChunk: true });
    await task.complete();
  },
  'test-resubscribe-message-id': async (ctx, task, options) => {
    await task.startWork();
    const waited = await sleep(options.waitMs ?? envNumber('A2A_CONFORMANCE_WAIT_MS', 4000), ctx.signal);
    if (!waited) return; // canceled: the server marks the task CANCELED
    await task.complete();
  },
};

/** Longest prefixes first, so `tck-artifact-file-url` is never taken for `tck-artifact-file`. */
const PREFIXES = Object.keys(BEHAVIOURS).sort((a, b) => b.length - a.length);

/** The behaviour prefix a messageId selects, or undefined. */
export function matchPrefix(messageId: string): string | undefined {
  return PREFIXES.find((p) => messageId.startsWith(p));
}

export function createConformanceAgent(options: ConformanceOptions = {}): AgentExecutor {
  return {
    async execute(ctx, task) {
      // The answer to an INPUT_REQUIRED question completes the task.
      if (ctx.task?.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        await task.complete(`Input received: ${ctx.text}`);
        return;
      }
      const id = ctx.message.messageId;
      const prefix = matchPrefix(id);
      const behaviour = prefix ? BEHAVIOURS[prefix] : undefined;
      if (behaviour) return behaviour(ctx, task, options);
      const text = `Unhandled messageId prefix: ${id}`;
      await task.addArtifact(text);
      await task.complete(text);
    },
  };
}

export const conformanceAgent: AgentExecutor = createConformanceAgent();

export function conformanceCard(): Omit<AgentCard, 'supportedInterfaces'> {
  const skill = (...f: [id: string, name: string, description: string, tags: string[], examples: string[]]) => ({ id: f[0], name: f[1], description: f[2], tags: f[3], examples: f[4] });
  return {
    name: 'a2a-kit conformance agent',
    description: 'The system under test for the A2A conformance kit: the prefix of the messageId selects the behaviour.',
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: ['text/plain', 'application/json', 'application/octet-stream'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      skill('tck-tasks', 'Task lifecycle', 'Completes, asks for input, or fails depending on the messageId prefix.', ['tck', 'task'], [
        'messageId tck-complete-task-1',
        'messageId tck-input-required-1',
        'messageId tck-reject-task-1',
      ]),
      skill('tck-artifacts', 'Artifacts', 'Produces text, file (raw or url) or data artifacts.', ['tck', 'artifact'], [
        'messageId tck-artifact-text-1',
        'messageId tck-artifact-file-1',
        'messageId tck-artifact-file-url-1',
        'messageId tck-artifact-data-1',
      ]),
      skill('tck-message', 'Direct message', 'Replies with a Message and no task.', ['tck', 'message'], ['messageId tck-message-response-1']),
      skill('tck-streaming', 'Streaming', 'Streams status and artifact updates, including a chunked artifact.', ['tck', 'streaming'], [
        'messageId tck-stream-001-1',
        'messageId tck-stream-artifact-chunked-1',
        'messageId test-resubscribe-message-id-1',
      ]),
    ],
  };
}
