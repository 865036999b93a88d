/**
 * Task.metadata written by the agent (`task.setMetadata`): an agent that calls another keeps the
 * downstream task id in its own task, durably. Over real sockets on SQLite: the metadata is in
 * GetTask, survives a restart of the server (a new process on the same database), is `ctx.task`
 * of the follow-up run and of cancel(); keys merge at the top level; a value that is not JSON is a
 * TypeError at the agent's call; no stream event carries it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../../src/client/index.js';
import type { JsonObject, StreamResponse, Task } from '../../src/protocol/types.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { eventually } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-task-metadata-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What the agent saw and what its bad write was told. */
const seen: { followUp?: JsonObject | undefined; cancel?: JsonObject | undefined; badWrite?: string } = {};

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (!ctx.task) {
      await task.setMetadata({ researcherTaskId: 'r-41', step: 1 });
      try {
        await task.setMetadata({ when: 1n as unknown as number });
      } catch (error) {
        seen.badWrite = String(error);
      }
      await task.requireInput('Which topic?');
      return;
    }
    seen.followUp = ctx.task.metadata;
    await task.setMetadata({ step: 2 });
    await task.startWork(`researching ${ctx.text}`);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
  },
  async cancel(ctx) {
    seen.cancel = ctx.task.metadata;
  },
};

async function serveOn(db: string): Promise<{ server: TestServer; store: SqliteTaskStore }> {
  const store = new SqliteTaskStore({ path: db });
  return { server: await startServer({ executor: agent, handler: { store } }), store };
}

test('Task.metadata set by the agent: in GetTask, after a restart, in ctx.task of the follow-up and of cancel(); merged by key; no event', async () => {
  const db = join(dir, 'tasks.db');
  const first = await serveOn(db);
  let taskId: string;
  const events: StreamResponse[] = [];
  try {
    const client = await createClient(first.server.url);
    for await (const event of client.streamText('research')) events.push(event);
    const task = (events[0] as { task: Task }).task;
    taskId = task.id;
    assert.equal(seen.badWrite, 'TypeError: setMetadata: metadata.when must be JSON (got a bigint)');
    const stored = await client.getTask({ id: taskId });
    assert.equal(stored.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(stored.metadata, { researcherTaskId: 'r-41', step: 1 });
  } finally {
    await first.server.close();
    await first.store.close();
  }
  assert.ok(
    events.every((e) => !('statusUpdate' in e) || e.statusUpdate.metadata === undefined),
    'no status update event carries the task metadata',
  );

  const second = await serveOn(db);
  try {
    const client = await createClient(second.server.url);
    const res = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text: 'whales' }] }, configuration: { returnImmediately: true } });
    assert.ok('task' in res);
    await eventually(async () => ((await client.getTask({ id: taskId })).metadata?.step === 2 ? true : undefined), 'the follow-up run to set step 2');
    assert.deepEqual(seen.followUp, { researcherTaskId: 'r-41', step: 1 }, 'the follow-up run, on a restarted server, sees the metadata');
    assert.deepEqual((await client.getTask({ id: taskId })).metadata, { researcherTaskId: 'r-41', step: 2 }, 'keys merge');
    const canceled = await client.cancelTask({ id: taskId });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assert.deepEqual(seen.cancel, { researcherTaskId: 'r-41', step: 2 }, 'cancel() sees it in ctx.task');
    assert.deepEqual(canceled.metadata, { researcherTaskId: 'r-41', step: 2 });
  } finally {
    await second.server.close();
    await second.store.close();
  }
});
