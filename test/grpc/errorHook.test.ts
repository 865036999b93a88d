/**
 * serveAgent has one error hook for the HTTP host, the gRPC listener and the agent: a response
 * that cannot be encoded to protobuf (unary or mid-stream) reaches `handler.onError` (where an
 * older program passed it) as well as the top-level `onError`, with the rpc's operation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAgent } from '../../src/node/serveAgent.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { ErrorContext, ErrorHook } from '../../src/server/errorHook.js';
import { GetTaskRequestSchema, SubscribeToTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { jsonToBinary } from '../../src/bindings/grpc/codec.js';
import type { Task, TaskState } from '../../src/protocol/types.js';
import { demoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { rawCall } from './wire.js';

const INTERNAL = 13;

/** A task no agent could write any more (a store filled by something else): its state cannot be encoded. */
const broken: Task = { id: 'broken-1', contextId: 'ctx-1', status: { state: 'WORKING' as TaskState } };

async function withServer(hooks: { onError?: ErrorHook; handlerOnError?: ErrorHook }, run: (grpcAddress: string, httpUrl: string) => Promise<void>): Promise<void> {
  const store = new MemoryTaskStore();
  await store.create('', broken);
  const running = await serveAgent({
    agent: {
      card: demoCard(),
      executor: {
        execute: async (ctx, task) => {
          if (ctx.text === 'throw') throw new Error('agent bug');
          await demoAgent.execute(ctx, task);
        },
      },
    },
    port: 0,
    grpc: { port: 0 },
    ...(hooks.onError ? { onError: hooks.onError } : {}),
    handler: { store, ...(hooks.handlerOnError ? { onError: hooks.handlerOnError } : {}) },
  });
  try {
    await run(running.grpc?.address as string, running.url);
  } finally {
    await running.close();
  }
}

for (const where of ['handler.onError', 'onError'] as const) {
  test(`serveAgent: gRPC encode failures (GetTask, SubscribeToTask mid-stream) reach ${where}, with the operation`, async () => {
    const seen: { error: unknown; context: ErrorContext | undefined }[] = [];
    const hook: ErrorHook = (error, context) => seen.push({ error, context });
    await withServer(where === 'onError' ? { onError: hook } : { handlerOnError: hook }, async (address) => {
      const unary = await rawCall(address, 'GetTask', { body: jsonToBinary(GetTaskRequestSchema, { id: broken.id }) });
      assert.equal(unary.code, INTERNAL);
      assert.equal(unary.details, 'Internal error');
      const stream = await rawCall(address, 'SubscribeToTask', { body: jsonToBinary(SubscribeToTaskRequestSchema, { id: broken.id }), stream: true });
      assert.equal(stream.code, INTERNAL);
    });
    assert.deepEqual(
      seen.map((s) => s.context?.operation),
      ['getTask', 'subscribeToTask'],
    );
  });
}

test('serveAgent: one hook hears of agent errors too (with the task id); given both, each hook hears of each failure once', async () => {
  const top: ErrorContext[] = [];
  const inner: ErrorContext[] = [];
  await withServer({ onError: (_e, c) => void top.push(c ?? {}), handlerOnError: (_e, c) => void inner.push(c ?? {}) }, async (_address, url) => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'h-1', role: 'ROLE_USER', parts: [{ text: 'throw' }] } }),
    });
    const { task } = (await res.json()) as { task: Task };
    assert.equal(task.status.state, 'TASK_STATE_FAILED');
    assert.deepEqual(top, [{ operation: 'execute', tenant: '', taskId: task.id, contextId: task.contextId }]);
    assert.deepEqual(inner, top);
  });
});
