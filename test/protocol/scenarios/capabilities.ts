/** Capability gating and extensions (CAP, XCARD, EXT), with extra servers for other cards. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectError, ok, send, uid } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import type { ScenarioEnv } from './env.js';

const EXT = 'https://example.com/extensions/audit/v1';

export function capabilityScenarios(env: ScenarioEnv): void {
  describe('Capabilities', () => {
    test('CAP-02 PUSH-01 D2 without the capability all four push config operations and an inline config are PUSH_NOTIFICATION_NOT_SUPPORTED', async () => {
      const { b, server } = await env.extra({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
      assert.equal(server.card.capabilities.pushNotifications, false);
      const { id: taskId } = ok(await b.call('sendMessage', send('hi'))).task;
      const calls = [
        b.call('createTaskPushNotificationConfig', { taskId, url: 'https://hooks.example.com/a2a' }),
        b.call('getTaskPushNotificationConfig', { taskId, id: 'cfg-1' }),
        b.call('listTaskPushNotificationConfigs', { taskId }),
        b.call('deleteTaskPushNotificationConfig', { taskId, id: 'cfg-1' }),
      ];
      for (const res of await Promise.all(calls)) expectError(res, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
      // Also for a task that does not exist: the capability check comes first.
      expectError(await b.call('listTaskPushNotificationConfigs', { taskId: uid('ghost') }), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
      // D2: an inline config is refused rather than silently ignored; no task is created.
      const contextId = uid('ctx-d2');
      const inline = send('hi', { contextId }, { taskPushNotificationConfig: { url: 'https://hooks.example.com/a2a' } });
      expectError(await b.call('sendMessage', inline), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
      expectError(await b.stream('sendStreamingMessage', inline), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
      assert.deepEqual(ok(await b.call('listTasks', { contextId })).tasks, []);
    });

    test('CAP-02 an absent pushNotifications flag means no push', async () => {
      const { b } = await env.extra({
        card: (c) => {
          const { pushNotifications: _p, ...caps } = c.capabilities;
          return { ...c, capabilities: caps };
        },
      });
      const { id: taskId } = ok(await b.call('sendMessage', send('hi'))).task;
      expectError(await b.call('listTaskPushNotificationConfigs', { taskId }), 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    test('CAP-03 XCARD-01 GetExtendedAgentCard without the capability is UNSUPPORTED_OPERATION', async () => {
      assert.notEqual(env.server.card.capabilities.extendedAgentCard, true);
      expectError(await env.b.call('getExtendedAgentCard', {}), 'UNSUPPORTED_OPERATION');
    });

    test('XCARD-02 a declared but unconfigured extended card is EXTENDED_AGENT_CARD_NOT_CONFIGURED', async () => {
      const { b } = await env.extra({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }) });
      expectError(await b.call('getExtendedAgentCard', {}), 'EXTENDED_AGENT_CARD_NOT_CONFIGURED');
    });

    test('XCARD-05 a configured extended card is returned whole', async () => {
      const { b, server } = await env.extra({
        card: (c) => ({ ...c, capabilities: { ...c.capabilities, extendedAgentCard: true } }),
        extendedCard: {
          ...server0Card(env),
          name: 'extended demo',
          skills: [{ id: 'secret', name: 'Secret skill', description: 'Only for authenticated callers', tags: ['private'] }],
        },
      });
      const card = ok(await b.call('getExtendedAgentCard', {}));
      assert.equal(card.name, 'extended demo');
      assert.deepEqual(card.skills.map((s: Json) => s.id), ['secret']);
      assert.deepEqual(card.supportedInterfaces, server.card.supportedInterfaces);
      assert.equal(card.version, server.card.version);
    });

    test('CAP-01 CAP-06 STREAM-01 without streaming both streaming ops are UNSUPPORTED_OPERATION, as plain errors', async () => {
      const { b } = await env.extra({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, streaming: false } }) });
      const streamed = await b.stream('sendStreamingMessage', send('stream x'));
      expectError(streamed, 'UNSUPPORTED_OPERATION');
      assert.ok(!streamed.contentType.startsWith('text/event-stream'));
      const task = ok(await b.call('sendMessage', send('hi'))).task;
      expectError(await b.stream('subscribeToTask', { id: task.id }), 'UNSUPPORTED_OPERATION');
      expectError(await b.stream('subscribeToTask', { id: uid('unknown') }), 'UNSUPPORTED_OPERATION');
    });

    test('CAP-01 an absent streaming flag means no streaming', async () => {
      const { b } = await env.extra({
        card: (c) => {
          const { streaming: _s, ...caps } = c.capabilities;
          return { ...c, capabilities: caps };
        },
      });
      expectError(await b.stream('sendStreamingMessage', send('stream x')), 'UNSUPPORTED_OPERATION');
    });

    describe('required extension', () => {
      const withExtension = () =>
        env.extra({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, extensions: [{ uri: EXT, description: 'audit', required: true }] } }) });

      test('CAP-04 EXT-04 a required extension that is not activated is EXTENSION_SUPPORT_REQUIRED', async () => {
        const { b } = await withExtension();
        expectError(await b.call('sendMessage', send('hi')), 'EXTENSION_SUPPORT_REQUIRED', { metadata: { extension: EXT } });
        expectError(await b.call('listTasks', {}), 'EXTENSION_SUPPORT_REQUIRED');
        expectError(await b.stream('sendStreamingMessage', send('stream x')), 'EXTENSION_SUPPORT_REQUIRED');
        const other = await b.call('listTasks', {}, { headers: { 'A2A-Extensions': 'https://example.com/other/v1' } });
        expectError(other, 'EXTENSION_SUPPORT_REQUIRED');
      });

      test('EXT-05 with A2A-Extensions the call succeeds and the response echoes the activated extension', async () => {
        const { b } = await withExtension();
        const headers = { 'A2A-Extensions': `https://unknown.example/ext/v9, ${EXT}` };
        const res = await b.call('sendMessage', send('hi'), { headers });
        assert.equal(ok(res).task.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(res.headers.get('a2a-extensions'), EXT);
        const streamed = await b.stream('sendStreamingMessage', send('hi'), { headers });
        assert.ok(streamed.ok);
        assert.equal(streamed.headers.get('a2a-extensions'), EXT);
      });
    });
  });
}

/** The shared server's card without interfaces, as a base for the extended card. */
function server0Card(env: ScenarioEnv) {
  const { supportedInterfaces: _i, ...rest } = env.server.card;
  return rest;
}
