// An agent module: `a2a serve --agent examples/hello-agent/agent.ts` serves it as it is.
import type { AgentCard } from 'a2a-kit';
import type { AgentExecutor } from 'a2a-kit/server';

/** The Agent Card without `supportedInterfaces`: the host adds the URLs it listens on. */
export const card = {
  name: 'Hello agent',
  description: 'Greets you by name. Send "ping" for a direct reply, or nothing to be asked for your name.',
  version: '1.0.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'greet',
      name: 'Greet',
      description: 'Answers "Hello, <name>!" as an artifact streamed in two chunks.',
      tags: ['hello', 'streaming'],
      examples: ['Ada', 'ping'],
    },
  ],
} satisfies Omit<AgentCard, 'supportedInterfaces'>;

export const executor: AgentExecutor = {
  async execute(ctx, task) {
    // ctx.text joins the text parts of the user message; ctx.task is set when it continues a task.
    const name = ctx.text.trim();
    if (name === 'ping') {
      await task.reply('pong'); // a Message, no task
      return;
    }
    if (name === '') {
      // INPUT_REQUIRED: the client answers with a message carrying this task's id,
      // and execute() runs again with ctx.task set.
      await task.requireInput('What is your name?');
      return;
    }
    await task.startWork(`Greeting ${name}`);
    const artifactId = await task.addArtifact('Hello, ', { name: 'greeting' });
    await task.addArtifact(`${name}!`, { artifactId, append: true, lastChunk: true });
    await task.complete();
  },
};

export default { card, executor };
