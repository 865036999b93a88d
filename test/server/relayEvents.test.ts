/**
 * Relaying another agent's events through a TaskUpdater (STREAM-*: the relayed events are this
 * task's events). A researcher agent streams status messages and artifact chunks with all their
 * members; an orchestrator reads them with a2a-kit's client and passes each on as it came —
 * `setStatus(state, message, { eventMetadata })`, `addArtifact(artifact, { append, lastChunk,
 * eventMetadata })` — and its own caller sees them whole: the messageId, metadata, extensions and
 * referenceTaskIds of each message, every member of each artifact, each event's own metadata,
 * with this task's taskId and contextId. Real sockets, two servers in one process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskAssembler, createClient, type A2AClient } from '../../src/client/index.js';
import type { Message, StreamResponse, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../../src/protocol/types.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { startServer, type TestServer } from '../support/server.js';

const EXT = 'https://example.com/ext/citations/v1';

const researcherAgent: AgentExecutor = {
  async execute(_ctx, task) {
    await task.setStatus(
      'TASK_STATE_WORKING',
      { messageId: 'researcher-status-1', role: 'ROLE_AGENT', parts: [{ text: 'reading sources' }], metadata: { sources: 3 }, extensions: [EXT], referenceTaskIds: ['earlier-task'] },
      { eventMetadata: { progress: 0.5 } },
    );
    const artifact = { artifactId: 'report', name: 'report', description: 'The findings', parts: [{ text: 'Whales ' }], metadata: { lang: 'en' }, extensions: [EXT] };
    await task.addArtifact(artifact, { eventMetadata: { chunk: 1 } });
    await task.addArtifact({ artifactId: 'report', parts: [{ text: 'sing.' }] }, { append: true, lastChunk: true, eventMetadata: { chunk: 2 } });
    await task.complete({ role: 'ROLE_AGENT', parts: [{ text: 'done' }], metadata: { confidence: 'high' } });
  },
};

let researcher: TestServer;
let remote: A2AClient;
let orchestrator: TestServer;
let client: A2AClient;

const orchestratorAgent: AgentExecutor = {
  async execute(ctx, task) {
    await task.startWork('asking the researcher');
    for await (const event of remote.streamText(ctx.text)) {
      if ('statusUpdate' in event) {
        const { status, metadata } = event.statusUpdate;
        await task.setStatus(status.state, status.message, { eventMetadata: metadata });
      } else if ('artifactUpdate' in event) {
        const { artifact, append, lastChunk, metadata } = event.artifactUpdate;
        await task.addArtifact(artifact, { append, lastChunk, eventMetadata: metadata });
      }
    }
  },
};

before(async () => {
  researcher = await startServer({ executor: researcherAgent });
  remote = await createClient(researcher.url);
  orchestrator = await startServer({ executor: orchestratorAgent });
  client = await createClient(orchestrator.url);
});
after(async () => {
  await orchestrator.close();
  await researcher.close();
});

test('STREAM relayed status messages keep messageId, metadata, extensions and referenceTaskIds; ids become this task\'s; event metadata is relayed', async () => {
  const events: StreamResponse[] = [];
  for await (const event of client.streamText('whales')) events.push(event);
  const first = events[0];
  assert.ok(first && 'task' in first);
  const { id: taskId, contextId } = first.task;
  const statuses = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate] : [])) as TaskStatusUpdateEvent[];
  const relayed = statuses.find((s) => s.status.message?.messageId === 'researcher-status-1');
  assert.ok(relayed, `the researcher's status message is relayed: ${JSON.stringify(statuses)}`);
  assert.deepEqual(relayed.status.message, {
    messageId: 'researcher-status-1',
    contextId,
    taskId,
    role: 'ROLE_AGENT',
    parts: [{ text: 'reading sources' }],
    metadata: { sources: 3 },
    extensions: [EXT],
    referenceTaskIds: ['earlier-task'],
  } satisfies Message);
  assert.deepEqual(relayed.metadata, { progress: 0.5 }, "the event's own metadata");
  assert.equal(relayed.taskId, taskId);

  const last = statuses.at(-1);
  assert.equal(last?.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(last?.status.message?.metadata, { confidence: 'high' });
  assert.equal(last?.status.message?.taskId, taskId);
  assert.ok(last?.status.message?.messageId, 'a messageId, though the researcher\'s agent gave none');

  const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : [])) as TaskArtifactUpdateEvent[];
  assert.deepEqual(
    chunks.map((c) => [c.taskId, c.artifact.artifactId, c.append ?? false, c.lastChunk ?? false, c.metadata]),
    [
      [taskId, 'report', false, false, { chunk: 1 }],
      [taskId, 'report', true, true, { chunk: 2 }],
    ],
  );
  const assembler = new TaskAssembler();
  for (const e of events) assembler.apply(e);
  assert.deepEqual(assembler.task?.artifacts, [
    { artifactId: 'report', name: 'report', description: 'The findings', parts: [{ text: 'Whales ' }, { text: 'sing.' }], metadata: { lang: 'en' }, extensions: [EXT] },
  ]);
  const stored = await client.getTask({ id: taskId });
  assert.deepEqual(stored.artifacts, assembler.task?.artifacts, 'stored as streamed');
  assert.deepEqual(stored.status.message?.metadata, { confidence: 'high' });
});

test('a whole message given to setStatus is the agent\'s: role ROLE_AGENT, this task\'s ids; the call forms with Content still work; bad event metadata is a TypeError', async () => {
  const outcome: { error?: string } = {};
  const local = await startServer({
    executor: {
      async execute(_ctx, task) {
        try {
          await task.startWork('plain content still works');
          await task.setStatus('TASK_STATE_WORKING', 'with event metadata', { eventMetadata: { n: 1n as unknown as number } });
        } catch (error) {
          outcome.error = String(error);
        }
        await task.addArtifact('text', { name: 'plain' });
        await task.complete({ messageId: 'm-x', role: 'ROLE_USER', taskId: 'someone-else', contextId: 'elsewhere', parts: [{ text: 'relayed' }] });
      },
    },
  });
  try {
    const res = await (await createClient(local.url)).sendText('go');
    assert.ok('task' in res);
    assert.equal(outcome.error, 'TypeError: setStatus: eventMetadata.n must be JSON (got a bigint)');
    assert.deepEqual(res.task.status.message, { messageId: 'm-x', role: 'ROLE_AGENT', taskId: res.task.id, contextId: res.task.contextId, parts: [{ text: 'relayed' }] });
    assert.equal(res.task.artifacts?.[0]?.name, 'plain');
  } finally {
    await local.close();
  }
});
