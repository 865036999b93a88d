/**
 * R3 and R5 on one instance: many concurrent SendMessage follow-ups and CancelTask calls on one
 * task leave a gapless event log with exactly one terminal transition, on every store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { isTerminalState } from '../../src/protocol/taskStates.js';
import type { Task } from '../../src/protocol/types.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { stateAfter } from '../../src/server/taskStream.js';
import { TEST_PUSH } from '../support/server.js';

const ctx = { protocolVersion: '1.0', requestedExtensions: [] };
const card = withInterfaces(demoCard(), { httpBaseUrl: 'http://localhost', jsonRpcPath: '/a2a/jsonrpc', restPath: null });
let n = 0;
const message = (text: string, taskId?: string) => ({
  message: { messageId: `cc-${process.pid}-${++n}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) },
});

async function scenario(store: TaskStore): Promise<void> {
  const handler = new A2ARequestHandler({ agentCard: card, executor: createDemoAgent(), store, push: TEST_PUSH });
  const asked = (await handler.unary('sendMessage', message('ask are you there'), ctx)) as { task: Task };
  const id = asked.task.id;
  assert.equal(asked.task.status.state, 'TASK_STATE_INPUT_REQUIRED');

  const followUps = Array.from({ length: 30 }, (_, i) => handler.unary('sendMessage', message(`answer ${i}`, id), ctx));
  const cancels = Array.from({ length: 3 }, () => handler.unary('cancelTask', { id }, ctx));
  const results = await Promise.allSettled([...followUps, ...cancels]);

  const events = await store.events('', id, 0);
  assert.deepEqual(events.map((e) => e.seq), Array.from({ length: events.length }, (_, i) => i + 1), 'R3: seq is gapless');
  const terminal = events.filter((e) => {
    const state = stateAfter(e.event);
    return state !== undefined && isTerminalState(state);
  });
  assert.equal(terminal.length, 1, 'R3/R5: exactly one terminal transition');
  const final = (await store.get('', id))?.task;
  assert.ok(final && isTerminalState(final.status.state));

  for (const r of results.slice(0, 30)) {
    if (r.status === 'rejected') assert.equal((r.reason as { reason?: string }).reason, 'UNSUPPORTED_OPERATION', String(r.reason));
  }
  const cancelOutcomes = results.slice(30);
  for (const r of cancelOutcomes) {
    if (r.status === 'fulfilled') assert.equal((r.value as Task).status.state, 'TASK_STATE_CANCELED');
    else assert.equal((r.reason as { reason?: string }).reason, 'TASK_NOT_CANCELABLE', String(r.reason));
  }
  // Whoever won, the final state is the one the log ends with.
  assert.equal(stateAfter(terminal[0]!.event), final.status.state);
}

test('R3 R5 30 follow-ups and 3 cancels at once on one task (memory store)', () => scenario(new MemoryTaskStore()));

test('R3 R5 30 follow-ups and 3 cancels at once on one task (SQLite store)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-cc-'));
  const store = new SqliteTaskStore({ path: join(dir, 'tasks.db') });
  try {
    await scenario(store);
  } finally {
    await store.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
});
