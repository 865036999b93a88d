/**
 * Interop: an agent that writes malformed output (a 0.3-style part, a state without its prefix)
 * over a real socket to the OFFICIAL @a2a-js/sdk client. The malformed write is refused at the
 * agent's call, so the client receives a clean FAILED task (it used to throw TypeError on the
 * malformed artifact, LIFE-01), on both HTTP bindings, unary and streaming, and can read it back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { GetTaskRequest } from '@a2a-js/sdk';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler } from '../../src/server/createA2AHandler.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { serve, type RunningServer } from '../../src/node/serve.js';
import type { Part, TaskState } from '../../src/protocol/types.js';
import { asTask, collect, kinds, stateName, textOf, userMessage, type Binding } from './support.js';

describe('@a2a-js/sdk client: an agent writing malformed output ends the task cleanly FAILED', () => {
  let server: RunningServer;
  const errors: unknown[] = [];
  before(async () => {
    const ref: { handler?: A2AHandler } = {};
    server = await serve({ handle: (req) => (ref.handler as A2AHandler).handle(req) }, { port: 0, shutdownTimeoutMs: 2_000 });
    ref.handler = createA2AHandler({
      agentCard: withInterfaces(
        {
          name: 'careless',
          description: 'writes what a JS author might',
          version: '1',
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        },
        { httpBaseUrl: server.url, jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH },
      ),
      executor: {
        async execute(ctx, task) {
          await task.startWork('working');
          if (ctx.text === 'kind') await task.addArtifact({ kind: 'text', text: 'x' } as unknown as Part);
          else await task.setStatus('WORKING' as TaskState);
          await task.complete();
        },
      },
      onError: (error) => errors.push(error),
    });
  });
  after(() => server.close());

  const client = (binding: Binding): Promise<Client> =>
    new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] })).createFromUrl(server.url);

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    for (const text of ['kind', 'state']) {
      test(`${binding} ${text}: sendMessage → FAILED with the generic message; getTask reads it back`, async () => {
        const c = await client(binding);
        const task = asTask(await c.sendMessage(userMessage(text)));
        assert.equal(stateName(task.status?.state), 'TASK_STATE_FAILED');
        assert.equal(textOf(task.status?.message?.parts), 'The agent failed while processing this message');
        assert.equal(task.artifacts.length, 0);
        const again = await c.getTask(GetTaskRequest.fromJSON({ id: task.id }));
        assert.equal(stateName(again.status?.state), 'TASK_STATE_FAILED');
        assert.ok(errors.some((e) => e instanceof TypeError));
      });

      test(`${binding} ${text}: sendMessageStream → task, WORKING, FAILED; every event decodes`, async () => {
        const c = await client(binding);
        const events = await collect(c.sendMessageStream(userMessage(text)));
        assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'status:FAILED']);
      });
    }
  }
});
