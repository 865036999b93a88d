/**
 * R4 / MSG-01: copies of one message (same messageId) sent blocking at the same moment all get
 * the task once it is done — the copy that runs the agent and the concurrent duplicates alike.
 * A duplicate that slips past the early check (duplicateOf) before the first copy's claim is
 * stored (SQLite commits in groups) used to answer with the task as it was at that instant
 * (WORKING). Follow-up duplicates queue on the very task whose runs they wait for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Message, SendMessageResponse } from '../../src/protocol/types.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { callAs, testCard } from './support.js';

/** Starts work, sleeps 200 ms, completes (asks for input first when told to). */
const sleeper: AgentExecutor = {
  async execute(ctx, task) {
    await task.startWork();
    await delay(200);
    if (ctx.text === 'ask') await task.requireInput('more?');
    else await task.complete();
  },
};

const stores: Array<[string, () => TaskStore]> = [
  ['memory', () => new MemoryTaskStore()],
  ['sqlite', () => new SqliteTaskStore({ path: ':memory:' })],
];

function stateOf(res: SendMessageResponse): string {
  return 'task' in res ? res.task.status.state : 'message';
}

const ROUNDS = 25;

for (const [name, open] of stores) {
  test(`R4 MSG-01 concurrent blocking copies of a new message all get the completed task (${name})`, { timeout: 30_000 }, async () => {
    const store = open();
    const h = new A2ARequestHandler({ agentCard: testCard('dup'), executor: sleeper, store });
    try {
      const rounds = await Promise.all(
        Array.from({ length: ROUNDS }, async () => {
          const message: Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'sleep 200' }] };
          const answers = await Promise.all([0, 1, 2, 3].map(() => h.unary('sendMessage', { message }, callAs())));
          const ids = new Set(answers.map((a) => ('task' in a ? a.task.id : 'message')));
          assert.equal(ids.size, 1, 'one task for all copies');
          return answers.map(stateOf);
        }),
      );
      const unfinished = rounds.flat().filter((s) => s !== 'TASK_STATE_COMPLETED');
      assert.deepEqual(unfinished, [], `${unfinished.length} of ${ROUNDS * 4} blocking answers were not the completed task`);
    } finally {
      await h.drain(1_000);
      await store.close?.();
    }
  });

  test(`R4 MSG-01 concurrent blocking copies of a follow-up all get the task once its run is done, without a deadlock (${name})`, { timeout: 30_000 }, async () => {
    // A follow-up that completes the task (the copies behind it find it terminal) or asks again
    // (the copies' claims are refused): either way each copy waits for the task it queued on.
    const store = open();
    const h = new A2ARequestHandler({ agentCard: testCard('dup'), executor: sleeper, store });
    try {
      const rounds = await Promise.all(
        Array.from({ length: ROUNDS }, async (_, i) => {
          const first = await h.unary('sendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ask' }] } }, callAs());
          assert.ok('task' in first && first.task.status.state === 'TASK_STATE_INPUT_REQUIRED');
          const [text, expected] = i % 2 === 0 ? ['sleep 200', 'TASK_STATE_COMPLETED'] : ['ask', 'TASK_STATE_INPUT_REQUIRED'];
          const message: Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], taskId: first.task.id };
          const answers = await Promise.all([0, 1, 2, 3].map(() => h.unary('sendMessage', { message }, callAs())));
          const stored = await store.get('', first.task.id);
          assert.equal(stored?.task.history?.filter((m) => m.messageId === message.messageId).length, 1, 'the follow-up joined the history once');
          return answers.map(stateOf).filter((state) => state !== expected);
        }),
      );
      const wrong = rounds.flat();
      assert.deepEqual(wrong, [], `${wrong.length} of ${ROUNDS * 4} blocking answers were not the task as the follow-up left it`);
    } finally {
      await h.drain(1_000);
      await store.close?.();
    }
  });
}
