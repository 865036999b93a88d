/**
 * Official @a2a-js/sdk 1.x server (express 5, JSON-RPC + REST, InMemoryTaskStore) with an echo
 * agent that mirrors src/cli/agents/demo.ts byte for byte where it can: "hi" -> completed task
 * with one artifact "echo"; "msg <t>" -> direct Message reply <t>; "stream <t>" -> task,
 * working (with a status message), 10 chunks of artifact "stream", completed (13 events).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { exitWithParent, reportReady } from './ipc.js';

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

const textOf = (m: Message): string =>
  m.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');

const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });

const agentMessage = (text: string, contextId: string, taskId: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const echoExecutor: AgentExecutor = {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage).trim();
    const { taskId, contextId } = ctx;
    if (text.startsWith('msg ')) {
      bus.publish(AgentEvent.message(agentMessage(text.slice(4).trim(), contextId, '')));
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [],
        metadata: undefined,
      }),
    );
    const artifact = (artifactId: string, name: string, value: string, append: boolean, lastChunk: boolean) =>
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId, name, description: '', parts: [textPart(value)], metadata: undefined, extensions: [] },
        append,
        lastChunk,
        metadata: undefined,
      });
    if (text.startsWith('stream ')) {
      const rest = text.slice(7).trim();
      const working = { ...status(TaskState.TASK_STATE_WORKING), message: agentMessage('Streaming 10 chunks', contextId, taskId) };
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: working, metadata: undefined }));
      const id = crypto.randomUUID();
      for (let i = 1; i <= 10; i++) bus.publish(artifact(id, 'stream', `chunk ${i}/10: ${rest}\n`, i > 1, i === 10));
    } else {
      bus.publish(artifact(crypto.randomUUID(), 'echo', text, false, false));
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
    bus.finished();
  },
  async cancelTask(): Promise<void> {},
};

function card(base: string): AgentCard {
  const iface = (url: string, protocolBinding: string) => ({ url, protocolBinding, tenant: '', protocolVersion: '1.0' });
  return {
    name: 'SDK echo',
    description: 'Echo agent for the benchmark',
    supportedInterfaces: [iface(`${base}/a2a/jsonrpc`, 'JSONRPC'), iface(`${base}/a2a/rest`, 'HTTP+JSON')],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requestHandler = new DefaultRequestHandler(card(base), new InMemoryTaskStore(), echoExecutor);
  const app = express();
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  reportReady({ name: 'sdk', url: base, jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest` });
});
exitWithParent(() => new Promise<void>((resolve) => server.close(() => resolve())));
