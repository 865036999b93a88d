/** The webhook-id format (PUSH-08, R13): written and read back, dots in config ids, ids of older servers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWebhookId, webhookId } from '../../src/webhooks/webhookId.js';

test('PUSH-08 webhook-id: task, seq and config read back, whatever dots the task and config ids hold', () => {
  for (const [taskId, seq, configId] of [
    ['01a2301e-5911-7075-804d-e6d579114d48', 1, '5f0c8a9e-1b2c-4d3e-8f9a-0b1c2d3e4f5a'],
    ['t.1.c2', 12, 'my-config.1'],
    ['a.b', 3, '...'],
    ['x', 999_999_999_999_999, 'cfg:~_-'],
  ] as const) {
    const id = webhookId(taskId, seq, configId);
    assert.deepEqual(parseWebhookId(id), { taskId, seq, configId }, id);
  }
  assert.notEqual(webhookId('t', 1, 'a'), webhookId('t', 1, 'b'));
  assert.equal(webhookId('t', 4, 'my.cfg'), 't.4.cmy%2Ecfg');
});

test('ids of servers before 2026-12 (<taskId>.<seq>) are still read; other formats are not', () => {
  assert.deepEqual(parseWebhookId('task-a.7'), { taskId: 'task-a', seq: 7 });
  assert.deepEqual(parseWebhookId('t.1.c2.5'), { taskId: 't.1.c2', seq: 5 });
  for (const id of ['', 'task', 'task.', '.5', 'task.x', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W']) assert.equal(parseWebhookId(id), undefined, id);
});
