/** CancelTask (CANCEL, LIFE-05, A11). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deferred, eventually, expectError, ok, okStream, send, trace, uid } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import type { ScenarioEnv } from './env.js';

export function cancelScenarios(env: ScenarioEnv): void {
  async function working(): Promise<Json> {
    return ok(await env.b.call('sendMessage', send('slow job', {}, { returnImmediately: true }))).task;
  }

  describe('CancelTask', () => {
    test('CANCEL-01 CANCEL-05 canceling a working task: CANCELED, and a subscriber sees it and its stream ends', async () => {
      const { id } = await working();
      const subscribed = deferred();
      const streaming = env.b.stream('subscribeToTask', { id }, { onEvent: () => subscribed.resolve() });
      await Promise.race([subscribed.promise, streaming]);
      const canceled = ok(await env.b.call('cancelTask', { id }));
      assert.equal(canceled.id, id);
      assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
      const events = okStream(await streaming);
      const t = trace(events);
      assert.ok(t[0]?.startsWith('task:'), `SUB-01: starts with the task, got ${t.join(' ')}`);
      assert.equal(t[t.length - 1], 'status:CANCELED', t.join(' '));
      assert.equal(t.filter((e) => e === 'status:CANCELED').length, 1);
      assert.equal(ok(await env.b.call('getTask', { id })).status.state, 'TASK_STATE_CANCELED');
    });

    test('CANCEL-02 A11 canceling an already canceled task is TASK_NOT_CANCELABLE', async () => {
      const { id } = await working();
      assert.equal(ok(await env.b.call('cancelTask', { id })).status.state, 'TASK_STATE_CANCELED');
      expectError(await env.b.call('cancelTask', { id }), 'TASK_NOT_CANCELABLE', { metadata: { taskId: id } });
      assert.equal(ok(await env.b.call('getTask', { id })).status.state, 'TASK_STATE_CANCELED');
    });

    test('CANCEL-03 canceling an unknown task is TASK_NOT_FOUND', async () => {
      expectError(await env.b.call('cancelTask', { id: uid('nope') }), 'TASK_NOT_FOUND');
    });

    test('LIFE-05 canceling a completed task is TASK_NOT_CANCELABLE and changes nothing', async () => {
      const task = ok(await env.b.call('sendMessage', send('hi'))).task;
      expectError(await env.b.call('cancelTask', { id: task.id }), 'TASK_NOT_CANCELABLE');
      assert.equal(ok(await env.b.call('getTask', { id: task.id })).status.state, 'TASK_STATE_COMPLETED');
    });

    test('CANCEL-01 an INPUT_REQUIRED task can be canceled', async () => {
      const task = ok(await env.b.call('sendMessage', send('ask something'))).task;
      assert.equal(ok(await env.b.call('cancelTask', { id: task.id })).status.state, 'TASK_STATE_CANCELED');
    });

    test(
      'MSG-01 a blocking SendMessage whose task gets canceled returns the CANCELED task',
      async () => {
        const contextId = uid('ctx-block');
        const blocking = env.b.call('sendMessage', send('slow job', { contextId }));
        const id = await eventually(async () => ok(await env.b.call('listTasks', { contextId })).tasks[0]?.id as string | undefined, 'the task');
        ok(await env.b.call('cancelTask', { id }));
        const task = ok(await blocking).task;
        assert.equal(task.id, id);
        assert.equal(task.status.state, 'TASK_STATE_CANCELED');
      },
    );
  });
}
