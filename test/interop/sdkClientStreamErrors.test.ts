/**
 * Interop: an error that ends an SSE stream *midway* must reach the official SDK client
 * (@a2a-js/sdk 1.3.0) as an error, on both bindings.
 *
 * The server's documented mid-stream failure is the slow-consumer cut-off (R10: more than
 * `maxStreamBuffer` events pending → InternalError "Stream consumer too slow"). It is induced
 * deterministically with a bus that delivers a task's events in one burst, of events large enough
 * that the socket cannot take them all at once.
 *
 * How the SDK reads mid-stream errors (dist/client/index.js):
 *  - JSON-RPC (JsonRpcTransport._processSseEventData): any `data:` frame whose envelope has
 *    `error` → throws Error("SSE event contained an error: …") with the typed error in `cause`.
 *  - HTTP+JSON (RestTransport._sendStreamingRequest): only frames with `event: error` are errors;
 *    every other frame goes through StreamResponse.fromJSON. The SDK's own server writes
 *    `event: error\ndata: {"error":{…}}` (server/express formatSSEErrorEvent(toRestErrorBody(…))).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamResponse } from '@a2a-js/sdk';
import * as sdkErrors from '@a2a-js/sdk/errors';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler } from '../../src/server/createA2AHandler.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { serve, type RunningServer } from '../../src/node/serve.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { LocalEventBus, type EventBus, type EventListener } from '../../src/server/eventBus.js';
import type { StoredEvent } from '../../src/server/stores/taskStore.js';
import { kinds, userMessage, type Binding } from './support.js';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { TEST_PUSH } from '../support/server.js';

/** Holds published events for `windowMs`, then delivers them to subscribers in one call. */
class BurstBus implements EventBus {
  private readonly inner = new LocalEventBus();
  private queue: { tenant: string; taskId: string; events: StoredEvent[] }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(private readonly windowMs: number) {}
  subscribe(tenant: string, taskId: string, listener: EventListener): () => void {
    return this.inner.subscribe(tenant, taskId, listener);
  }
  publish(tenant: string, taskId: string, events: StoredEvent[]): void {
    this.queue.push({ tenant, taskId, events });
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const byTask = new Map<string, { tenant: string; taskId: string; events: StoredEvent[] }>();
      for (const q of this.queue) {
        const key = `${q.tenant}\u0000${q.taskId}`;
        const entry = byTask.get(key) ?? { tenant: q.tenant, taskId: q.taskId, events: [] };
        entry.events.push(...q.events);
        byTask.set(key, entry);
      }
      this.queue = [];
      for (const e of byTask.values()) this.inner.publish(e.tenant, e.taskId, e.events);
    }, this.windowMs);
  }
}

/**
 * Twelve 256 KiB artifact chunks: delivered in one burst, the first fills the socket's buffer,
 * so the rest wait for the reader — more than `maxStreamBuffer` of them (a burst a reader has
 * room for is delivered, not counted against it).
 */
const bigChunks: AgentExecutor = {
  async execute(_ctx, task) {
    await task.startWork();
    const chunk = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 12; i++) await task.addArtifact([{ text: chunk }], { artifactId: 'big', append: i > 0, lastChunk: i === 11 });
    await task.complete();
  },
};

describe('mid-stream errors reach the @a2a-js/sdk client', () => {
  let server: RunningServer;
  const ref: { handler?: A2AHandler } = {};

  before(async () => {
    server = await serve({ handle: (req) => (ref.handler as A2AHandler).handle(req) }, { port: 0, shutdownTimeoutMs: 2_000 });
    const card = withInterfaces(demoCard(), { httpBaseUrl: server.url, jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH });
    ref.handler = createA2AHandler({ agentCard: card, executor: bigChunks, bus: new BurstBus(30), maxStreamBuffer: 2, push: TEST_PUSH });
  });
  after(async () => {
    await server.close();
  });

  async function run(binding: Binding): Promise<{ events: StreamResponse[]; error: unknown }> {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    const client = await factory.createFromUrl(server.url);
    const events: StreamResponse[] = [];
    try {
      for await (const e of client.sendMessageStream(userMessage('stream overflow'))) events.push(e);
    } catch (error) {
      return { events, error };
    }
    return { events, error: undefined };
  }

  test('JSON-RPC: the overflow error frame surfaces as an SDK error (typed error in cause)', async () => {
    const { events, error } = await run('JSONRPC');
    assert.ok(error instanceof Error, `expected the stream to fail, got events ${JSON.stringify(kinds(events))}`);
    assert.match(error.message, /SSE event contained an error: Stream consumer too slow.*\(Code: -32603\)/);
    const cause = (error as Error & { cause?: unknown }).cause;
    assert.ok(sdkErrors.isJsonRpcError(cause));
    assert.equal(cause.envelopeCode, -32603);
    assert.ok(!kinds(events).includes('status:COMPLETED'));
    assert.equal(kinds(events)[0], 'task:SUBMITTED');
  });

  test(
    'HTTP+JSON: the overflow error frame (event: error) surfaces as an SDK error',
    async () => {
      const { events, error } = await run('HTTP+JSON');
      assert.ok(!kinds(events).includes('empty'), `an error frame was yielded as an empty event: ${JSON.stringify(kinds(events))}`);
      assert.ok(sdkErrors.isRestError(error), `expected a Rest*Error, got ${String(error)}`);
      assert.match(error.message, /Stream consumer too slow/);
    },
  );
});
