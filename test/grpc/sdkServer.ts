/**
 * An OFFICIAL @a2a-js/sdk 1.3 gRPC server (DefaultRequestHandler + InMemoryTaskStore +
 * `grpcService` on a grpc-js Server) with an agent that mirrors our demo agent's keywords:
 * "hi" → completed task with an "echo" artifact; "msg <t>" → a Message; "stream <t>" → WORKING,
 * 10 chunks, COMPLETED; "ask <q>" → INPUT_REQUIRED, the follow-up completes it; "slow <t>" →
 * WORKING until canceled (or `slowMs`).
 */
import { TaskState, type AgentCard, type Message } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { A2AService, UserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { agentMessage, sdkCard, status, textOf, textPart } from '../support/sdkMessages.js';


function demoLikeAgent(slowMs: number): AgentExecutor {
  const running = new Map<string, () => void>();
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const text = textOf(ctx.userMessage).trim();
      const { taskId, contextId } = ctx;
      const publishTask = (state: TaskState) =>
        bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(state), artifacts: ctx.task?.artifacts ?? [], history: ctx.task?.history ?? [ctx.userMessage], metadata: undefined }));
      const statusUpdate = (state: TaskState, message?: Message) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined }));
      const artifact = (artifactId: string, name: string, value: string, chunk: { append: boolean; lastChunk: boolean }) =>
        bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId, name, description: '', parts: [textPart(value)], metadata: undefined, extensions: [] }, ...chunk, metadata: undefined }));

      if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        publishTask(TaskState.TASK_STATE_WORKING);
        artifact(crypto.randomUUID(), 'answer', text, { append: false, lastChunk: false });
        statusUpdate(TaskState.TASK_STATE_COMPLETED, agentMessage(`Thanks, got your answer: ${text}`, contextId, taskId));
        bus.finished();
        return;
      }
      const [keyword = '', ...rest] = text.split(/\s+/);
      const restText = rest.join(' ');
      if (keyword === 'msg') {
        bus.publish(AgentEvent.message(agentMessage(restText, contextId, '')));
        bus.finished();
        return;
      }
      publishTask(TaskState.TASK_STATE_SUBMITTED);
      if (keyword === 'stream') {
        statusUpdate(TaskState.TASK_STATE_WORKING, agentMessage('Streaming 10 chunks', contextId, taskId));
        const id = crypto.randomUUID();
        for (let i = 1; i <= 10; i++) artifact(id, 'stream', `chunk ${i}/10: ${restText}\n`, { append: i > 1, lastChunk: i === 10 });
      } else if (keyword === 'ask') {
        statusUpdate(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(`${restText}?`, contextId, taskId));
        bus.finished();
        return;
      } else if (keyword === 'slow') {
        statusUpdate(TaskState.TASK_STATE_WORKING, agentMessage('working slowly', contextId, taskId));
        const canceled = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), slowMs);
          running.set(taskId, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        running.delete(taskId);
        if (canceled) return;
        artifact(crypto.randomUUID(), 'slow', `Finished slow work: ${restText}`, { append: false, lastChunk: false });
      } else {
        artifact(crypto.randomUUID(), 'echo', text, { append: false, lastChunk: false });
      }
      statusUpdate(TaskState.TASK_STATE_COMPLETED);
      bus.finished();
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
      running.get(taskId)?.();
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
      bus.finished();
    },
  };
}

export interface SdkGrpcServer {
  address: string;
  card: AgentCard;
  close(): Promise<void>;
}

export async function startSdkGrpcServer(options: { slowMs?: number } = {}): Promise<SdkGrpcServer> {
  const server = new Server();
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const address = `127.0.0.1:${port}`;
  const card = sdkCard({ name: 'SDK gRPC demo', description: 'Official SDK agent for interop tests' }, [
    { url: address, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  ]);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), demoLikeAgent(options.slowMs ?? 30_000));
  server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    address,
    card,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), 500);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
