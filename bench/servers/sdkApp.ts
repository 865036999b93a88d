/**
 * The official @a2a-js/sdk 1.x server the benchmark loads (servers/sdk.ts with InMemoryTaskStore,
 * servers/sdkStore.ts with its DatabaseTaskStore): express 5, JSON-RPC + REST, with an echo
 * agent that mirrors src/cli/agents/demo.ts byte for byte where it can: "hi" -> completed task
 * with one artifact "echo"; "msg <t>" -> direct Message reply <t>; "stream <t>" -> task,
 * working (with a status message), 10 chunks of artifact "stream", completed (13 events).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { TaskState, type AgentCard } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { UserBuilder, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { agentMessage, sdkCard, status, textOf, textPart } from '../../test/support/sdkMessages.js';
import type { Ready } from './ipc.js';





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
  return sdkCard({ name: 'SDK echo', description: 'Echo agent for the benchmark' }, [iface(`${base}/a2a/jsonrpc`, 'JSONRPC'), iface(`${base}/a2a/rest`, 'HTTP+JSON')]);
}

export interface SdkServer {
  /** Where it listens (the fields of Ready a server reports). */
  urls: Pick<Ready, 'url' | 'jsonrpc' | 'rest'>;
  close: () => Promise<void>;
}

/** Starts the SDK's express handlers with the echo agent on `store`, on a free loopback port. */
export function listenSdk(store: TaskStore): Promise<SdkServer> {
  const server = http.createServer();
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const requestHandler = new DefaultRequestHandler(card(base), store, echoExecutor);
      const app = express();
      app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
      app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
      server.on('request', app);
      resolve({
        urls: { url: base, jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest` },
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
