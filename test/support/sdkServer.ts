/**
 * The OFFICIAL A2A JS SDK (@a2a-js/sdk 1.3) server, for interop tests: its DefaultRequestHandler
 * with in-memory task and push stores (pushNotifications and the extended card on), and its
 * Express apps for the agent card, JSON-RPC (/a2a/jsonrpc) and HTTP+JSON (/a2a/rest) on a
 * loopback port, plus a webhook receiver that records what it is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard as SdkAgentCard, Message as SdkMessage, Task as SdkTask, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import type { AgentCard, Task } from '../../src/protocol/types.js';
import { runAgentScript } from './agentScript.js';

/** A small agent written against the SDK, following the shared script (agentScript.ts). */
export function sdkAgent(): AgentExecutor {
  const canceled = new Set<string>();
  let n = 0;
  const id = () => `sdk-${process.pid}-${++n}`;
  const states = { working: 'TASK_STATE_WORKING', 'input-required': 'TASK_STATE_INPUT_REQUIRED', completed: 'TASK_STATE_COMPLETED' } as const;
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const message = SdkMessage.toJSON(ctx.userMessage) as { parts: { text?: string }[] };
      const text = message.parts.map((p) => p.text ?? '').join(' ').trim();
      const { taskId, contextId } = ctx;
      const prior = ctx.task ? (SdkTask.toJSON(ctx.task) as Task) : undefined;
      await runAgentScript(
        {
          text,
          taskId,
          awaitingInput: prior?.status.state === 'TASK_STATE_INPUT_REQUIRED',
          message: (reply) => bus.publish(AgentEvent.message(SdkMessage.fromJSON({ messageId: id(), role: 'ROLE_AGENT', contextId, parts: [{ text: reply }] }))),
          resume: () => {
            if (ctx.task) bus.publish(AgentEvent.task(ctx.task));
          },
          submit: () =>
            bus.publish(AgentEvent.task(SdkTask.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() }, history: [SdkMessage.toJSON(ctx.userMessage)] }))),
          status: (state, note) =>
            bus.publish(
              AgentEvent.statusUpdate(
                TaskStatusUpdateEvent.fromJSON({
                  taskId,
                  contextId,
                  status: {
                    state: states[state],
                    timestamp: new Date().toISOString(),
                    ...(note ? { message: { messageId: id(), role: 'ROLE_AGENT', parts: [{ text: note }], taskId, contextId } } : {}),
                  },
                }),
              ),
            ),
          artifact: (artifactId, chunk, flags = {}) =>
            bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId, name: 'out', parts: [{ text: chunk }] }, ...flags }))),
          finished: () => {},
        },
        canceled,
      );
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      canceled.add(taskId);
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() } })));
    },
  };
}

export interface SdkServer {
  url: string;
  /** A webhook receiver for push notifications. */
  hookUrl: string;
  card: AgentCard;
  webhooks: unknown[];
  close(): Promise<void>;
}

export async function startSdkServer(): Promise<SdkServer> {
  const webhooks: unknown[] = [];
  const hookServer: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      webhooks.push(JSON.parse(body || 'null'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  const app = express();
  const http = createServer(app);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'SDK agent',
    description: 'An agent served by the official SDK',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
  };
  const handler = new DefaultRequestHandler(
    SdkAgentCard.fromJSON(card),
    new InMemoryTaskStore(),
    sdkAgent(),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    // A provider function: a static extended card is only given to authenticated users.
    async () => SdkAgentCard.fromJSON({ ...card, name: 'SDK agent (extended)' }),
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    hookUrl: `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`,
    card,
    webhooks,
    close: async () => {
      http.closeAllConnections();
      hookServer.closeAllConnections();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => hookServer.close(r))]);
    },
  };
}
