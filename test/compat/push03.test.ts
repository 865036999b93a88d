/**
 * Issue 9, digest §5.7: webhooks registered by A2A 0.3 clients get 0.3 payloads — the Task in
 * the 0.3 shape (`kind: "task"`, lowercase states), `Content-Type: application/json`, the token
 * in `X-A2A-Notification-Token` — as the 0.3 SDKs send them; webhooks registered over 1.0 on the
 * same task still get StreamResponses. The official 0.3 SDK client registers them on each binding.
 */
import { parseWebhookId } from '../../src/webhooks/webhookId.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as Sdk from 'a2a-sdk-03';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhookReceiver.js';
import { asTask, params03, startSdkClientSetup, type SdkClientSetup } from './serverSupport.js';

const isTask03 = (r: ReceivedRequest) => (r.json as { kind?: string } | undefined)?.kind === 'task';
const state03 = (r: ReceivedRequest) => (r.json as Sdk.Task).status.state;

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`0.3 push payloads, config set by the 0.3 SDK client over ${transport}`, () => {
    let setup: SdkClientSetup;
    let hook03: Receiver;
    let hook10: Receiver;

    before(async () => {
      setup = await startSdkClientSetup(transport);
      hook03 = await startReceiver();
      hook10 = await startReceiver();
    });

    after(async () => {
      await setup.s.close();
      await hook03.close();
      await hook10.close();
    });

    test('§5.7: a 0.3 config gets the 0.3 Task as JSON with its token; a 1.0 config on the same task gets StreamResponses', async () => {
      const { client, v10 } = setup;
      // INPUT_REQUIRED: the task waits while both webhooks are registered.
      const task = asTask(await client.sendMessage(params03('ask what colour?')));
      assert.equal(task.status.state, 'input-required');
      await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: hook03.url, token: 'tok-03' } });
      const created = await v10.call('createTaskPushNotificationConfig', { taskId: task.id, id: 'hook-10', url: hook10.url, token: 'tok-10' });
      assert.ok(created.ok, JSON.stringify(created));

      const done = asTask(await client.sendMessage(params03('blue', { taskId: task.id, contextId: task.contextId })));
      assert.equal(done.status.state, 'completed');

      const seen03 = await hook03.waitUntil((all) => all.some((r) => isTask03(r) && state03(r) === 'completed'), 10_000);
      for (const r of seen03) {
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(r.headers['x-a2a-notification-token'], 'tok-03');
        assert.equal(r.headers['a2a-version'], undefined, 'no 1.0 version header on a 0.3 payload');
        assert.ok(isTask03(r), `a 0.3 Task: ${r.body}`);
        assert.equal((r.json as Sdk.Task).id, task.id);
        assert.equal(parseWebhookId(String(r.headers['webhook-id']))?.taskId, task.id, 'the stable delivery id is kept');
      }
      const last = seen03[seen03.length - 1] as ReceivedRequest;
      assert.equal(state03(last), 'completed');
      assert.ok(((last.json as Sdk.Task).history ?? []).every((m) => m.kind === 'message' && (m.role === 'user' || m.role === 'agent')));

      const seen10 = await hook10.waitUntil(
        (all) => all.some((r) => (r.json as { statusUpdate?: { status: { state: string } } }).statusUpdate?.status.state === 'TASK_STATE_COMPLETED'),
        10_000,
      );
      for (const r of seen10) {
        assert.equal(r.headers['content-type'], 'application/a2a+json');
        assert.equal(r.headers['a2a-version'], '1.0');
        assert.equal(r.headers['x-a2a-notification-token'], 'tok-10');
        assert.equal((r.json as { kind?: string }).kind, undefined, 'a 1.0 StreamResponse has no kind');
      }
    });

    test('§5.7: the payload dialect is internal: 1.0 and 0.3 config answers do not show it', async () => {
      const { client, v10 } = setup;
      const task = asTask(await client.sendMessage(params03('ask again?')));
      await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'c03', url: hook03.url } });
      const answer = await v10.call('listTaskPushNotificationConfigs', { taskId: task.id });
      assert.ok(answer.ok, JSON.stringify(answer));
      const listed = answer.result as { configs: Record<string, unknown>[] };
      assert.equal(listed.configs.length, 1);
      assert.equal(listed.configs[0]?.id, 'c03');
      assert.ok(!('dialect' in (listed.configs[0] as object)), JSON.stringify(listed.configs[0]));
      // The SDK's Client types this as TaskIdParams, but sends the config id along (0.3 GetTaskPushNotificationConfigParams).
      const got = await client.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c03' } as Sdk.TaskIdParams);
      assert.ok(!('dialect' in got.pushNotificationConfig), JSON.stringify(got));
    });
  });
}

test('§5.7: an inline push config of a 0.3 message/send gets 0.3 payloads', async () => {
  const setup = await startSdkClientSetup('JSONRPC');
  const hook = await startReceiver();
  try {
    const params = { ...params03('hi'), configuration: { blocking: true, pushNotificationConfig: { url: hook.url, token: 'inline-03' } } };
    const task = asTask(await setup.client.sendMessage(params));
    assert.equal(task.status.state, 'completed');
    const seen = await hook.waitUntil((all) => all.some((r) => isTask03(r) && state03(r) === 'completed'), 10_000);
    assert.ok(seen.every((r) => isTask03(r) && r.headers['x-a2a-notification-token'] === 'inline-03' && r.headers['content-type'] === 'application/json'));
    const last = seen[seen.length - 1] as ReceivedRequest;
    assert.equal((last.json as Sdk.Task).artifacts?.[0]?.parts[0]?.kind, 'text');
  } finally {
    await setup.s.close();
    await hook.close();
  }
});

test('§5.7 / compat.md: an inline 0.3 config without an id is the task\'s (id = taskId), so a later 0.3 set replaces it', async () => {
  const setup = await startSdkClientSetup('JSONRPC');
  const oldHook = await startReceiver();
  const newHook = await startReceiver();
  try {
    const params = { ...params03('ask what colour?'), configuration: { blocking: true, pushNotificationConfig: { url: oldHook.url } } };
    const task = asTask(await setup.client.sendMessage(params));
    assert.equal(task.status.state, 'input-required');
    await setup.client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: newHook.url } });
    const listed = await setup.client.listTaskPushNotificationConfig({ id: task.id });
    assert.deepEqual(
      listed.map((c) => [c.pushNotificationConfig.id, c.pushNotificationConfig.url]),
      [[task.id, newHook.url]],
      'one config, the task\'s, now pointing at the new URL',
    );
  } finally {
    await setup.s.close();
    await oldHook.close();
    await newHook.close();
  }
});
