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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small agent written against the SDK: hi (echo), msg, stream, ask, slow (cancelable). */
export function sdkAgent(): AgentExecutor {
  const canceled = new Set<string>();
  let n = 0;
  const id = () => `sdk-${process.pid}-${++n}`;
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const message = SdkMessage.toJSON(ctx.userMessage) as { parts: { text?: string }[] };
      const text = message.parts.map((p) => p.text ?? '').join(' ').trim();
      const { taskId, contextId } = ctx;
      const status = (state: string, note?: string) =>
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              taskId,
              contextId,
              status: {
                state,
                timestamp: new Date().toISOString(),
                ...(note ? { message: { messageId: id(), role: 'ROLE_AGENT', parts: [{ text: note }], taskId, contextId } } : {}),
              },
            }),
          ),
        );
      const artifact = (artifactId: string, chunk: string, flags: { append?: boolean; lastChunk?: boolean } = {}) =>
        bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId, name: 'out', parts: [{ text: chunk }] }, ...flags })));

      if (text.startsWith('msg ')) {
        bus.publish(AgentEvent.message(SdkMessage.fromJSON({ messageId: id(), role: 'ROLE_AGENT', contextId, parts: [{ text: text.slice(4) }] })));
        return;
      }
      const prior = ctx.task ? (SdkTask.toJSON(ctx.task) as Task) : undefined;
      if (ctx.task && prior?.status.state === 'TASK_STATE_INPUT_REQUIRED') {
        bus.publish(AgentEvent.task(ctx.task));
        artifact('answer', text);
        status('TASK_STATE_COMPLETED');
        return;
      }
      bus.publish(AgentEvent.task(SdkTask.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() }, history: [SdkMessage.toJSON(ctx.userMessage)] })));
      status('TASK_STATE_WORKING');
      if (text.startsWith('stream ')) {
        for (let i = 1; i <= 3; i++) {
          await sleep(5);
          artifact('s', `chunk ${i} `, { append: i > 1, lastChunk: i === 3 });
        }
      } else if (text.startsWith('ask ')) {
        status('TASK_STATE_INPUT_REQUIRED', `${text.slice(4)}?`);
        return;
      } else if (text.startsWith('slow ')) {
        for (let i = 0; i < 60; i++) {
          await sleep(20);
          if (canceled.has(taskId)) return;
          if (i % 10 === 0) status('TASK_STATE_WORKING', `step ${i}`);
        }
        artifact('slow', 'done');
      } else {
        artifact('echo', text);
      }
      status('TASK_STATE_COMPLETED');
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
