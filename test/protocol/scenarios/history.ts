/**
 * R16 caps on a task's history (`limits.maxHistoryMessages`, `limits.maxHistoryChars`): a
 * follow-up that would pass one is refused with RESOURCE_EXHAUSTED naming the cap and the
 * context to start a new task in; the task keeps everything it had, and a new task in the
 * same context is accepted. Before, a multi-turn task grew without bound.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentExecutor } from '../../../src/server/agentExecutor.js';
import { expectError, ok, send, textOf } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import type { ScenarioEnv } from './env.js';

/** Asks again after every message: a conversation that never ends by itself. */
const keepsAsking: AgentExecutor = {
  async execute(ctx, task) {
    await task.requireInput(`got ${ctx.text.length}; more?`);
  },
};

export function historyScenarios(env: ScenarioEnv): void {
  describe('history caps (R16)', () => {
    test('R16 the follow-up past maxHistoryMessages is RESOURCE_EXHAUSTED; nothing is lost; a new task in the context works', async () => {
      const { b } = await env.extra({ executor: keepsAsking, handler: { limits: { maxHistoryMessages: 6 } } });
      const first = ok(await b.call('sendMessage', send('one'))).task;
      assert.equal(first.status.state, 'TASK_STATE_INPUT_REQUIRED');
      // history [u1] + the question: 2. Each follow-up adds itself and moves the question in.
      for (const text of ['two', 'three']) {
        const t = ok(await b.call('sendMessage', send(text, { taskId: first.id }))).task;
        assert.equal(t.status.state, 'TASK_STATE_INPUT_REQUIRED');
      }
      const before = ok(await b.call('getTask', { id: first.id }));
      assert.equal(before.history.length, 5);
      const error = expectError(await b.call('sendMessage', send('four', { taskId: first.id })), 'RESOURCE_EXHAUSTED', {
        metadata: { limit: 'historyMessages', max: '6', taskId: first.id, contextId: first.contextId },
      });
      assert.match(error.message, new RegExp(`6 messages.*start a new task in context ${first.contextId}`));
      // The streaming form is refused the same way, before any event.
      expectError(await b.stream('sendStreamingMessage', send('four', { taskId: first.id })), 'RESOURCE_EXHAUSTED', { metadata: { limit: 'historyMessages' } });
      const after = ok(await b.call('getTask', { id: first.id }));
      assert.deepEqual(after.history, before.history, 'the refused message changed nothing');
      assert.equal(after.status.state, 'TASK_STATE_INPUT_REQUIRED');
      assert.deepEqual(after.status.message, before.status.message);
      const next = ok(await b.call('sendMessage', send('four', { contextId: first.contextId }))).task;
      assert.notEqual(next.id, first.id);
      assert.equal(next.contextId, first.contextId);
    });

    test('R16 the follow-up past maxHistoryChars is RESOURCE_EXHAUSTED, measured over the whole history', async () => {
      const { b } = await env.extra({ executor: keepsAsking, handler: { limits: { maxHistoryChars: 20_000 } } });
      const big = 'x'.repeat(6_000);
      const first = ok(await b.call('sendMessage', send(big))).task;
      ok(await b.call('sendMessage', send(big, { taskId: first.id })));
      ok(await b.call('sendMessage', send(big, { taskId: first.id })));
      const error = expectError(await b.call('sendMessage', send(big, { taskId: first.id })), 'RESOURCE_EXHAUSTED', {
        metadata: { limit: 'historyChars', max: '20000', taskId: first.id },
      });
      assert.match(error.message, /over the limit of 20000; start a new task in context/);
      // A small message still fits.
      const t = ok(await b.call('sendMessage', send('ok', { taskId: first.id }))).task;
      assert.equal(textOf(t.history.at(-1).parts), 'ok');
      assert.equal(t.history.filter((m: Json) => m.role === 'ROLE_USER').length, 4);
    });
  });
}
