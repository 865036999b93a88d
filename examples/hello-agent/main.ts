// Starts the hello agent on a free port, talks to it with plain fetch (JSON-RPC), checks the
// answers and exits 0, or 1 on the first wrong answer.
import { createA2AHandler, type A2AHandler } from 'a2a-kit/server';
import { serve } from 'a2a-kit/node';
import type { Message, SendMessageResponse, Task } from 'a2a-kit';
import agent from './agent.js';

// Port 0 picks a free port; the card needs the real URL, so listen first, then build the handler.
const slot: { handler?: A2AHandler } = {};
const server = await serve({ handle: (req) => (slot.handler as A2AHandler).handle(req) }, { port: 0 });
slot.handler = createA2AHandler({
  agentCard: {
    ...agent.card,
    supportedInterfaces: [{ url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  },
  executor: agent.executor,
});

let calls = 0;
async function sendMessage(text: string, taskId?: string): Promise<SendMessageResponse> {
  const message: Message = { messageId: `m-${++calls}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) };
  const res = await fetch(`${server.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: calls, method: 'SendMessage', params: { message } }),
  });
  const body = (await res.json()) as { result?: SendMessageResponse; error?: { code: number; message: string } };
  if (!body.result) throw new Error(`SendMessage failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

function textOf(parts: Message['parts'] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

function taskOf(response: SendMessageResponse): Task {
  if (!('task' in response)) throw new Error(`expected a task, got ${JSON.stringify(response)}`);
  return response.task;
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
  console.log(`ok - ${what}`);
}

let failed = false;
try {
  const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { name: string };
  check(card.name === 'Hello agent', 'the Agent Card is served');

  const greeted = taskOf(await sendMessage('Ada'));
  const text = textOf(greeted.artifacts?.[0]?.parts);
  check(greeted.status.state === 'TASK_STATE_COMPLETED', 'a name completes the task');
  check(text === 'Hello, Ada!', 'the two chunks form one artifact "Hello, Ada!"');

  const pong = await sendMessage('ping');
  check('message' in pong && textOf(pong.message.parts) === 'pong', '"ping" gets a direct message reply');

  const asked = taskOf(await sendMessage(''));
  check(asked.status.state === 'TASK_STATE_INPUT_REQUIRED', 'no name asks for input');
  const answered = taskOf(await sendMessage('Grace', asked.id));
  check(answered.id === asked.id && answered.status.state === 'TASK_STATE_COMPLETED', 'the answer completes the same task');
} catch (error) {
  failed = true;
  console.error(error instanceof Error ? error.message : error);
} finally {
  await server.close();
}
process.exit(failed ? 1 : 0);
