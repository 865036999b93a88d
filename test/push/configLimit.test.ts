/**
 * PUSH limits: at most 10 push configs per task, also when the creates race (the store counts
 * and writes atomically; test/stores/pushContract.ts checks each store with 30 concurrent puts).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, send } from '../support/assertions.js';
import { jsonRpcBinding } from '../support/bindings.js';
import { startServer } from '../support/server.js';

const server = await startServer({ handler: { push: { allowPrivateWebhooks: true, deliver: false } } });
after(() => server.close());

test('PUSH limits 30 concurrent CreateTaskPushNotificationConfig on one task: 10 stored, 20 refused as invalid params', async () => {
  const b = jsonRpcBinding(server.jsonRpcUrl);
  const taskId = ok(await b.call('sendMessage', send('hi'))).task.id as string;
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) => b.call('createTaskPushNotificationConfig', { taskId, id: `c${i}`, url: `https://hooks.example/${i}` })),
  );
  const refused = results.filter((r) => !r.ok);
  assert.equal(refused.length, 20);
  for (const r of refused) if (!r.ok) assert.match(r.error.message + JSON.stringify(r.error.raw), /already has 10 push notification configs/);
  const listed = ok(await b.call('listTaskPushNotificationConfigs', { taskId })).configs as unknown[];
  assert.equal(listed.length, 10);
});
