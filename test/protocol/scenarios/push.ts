/**
 * Push notification configs (PUSH-02..09, D3) and webhook delivery (MSG-07, PUSHD-01..03, D1) on
 * the shared server, whose demo card declares `capabilities.pushNotifications`. Every config
 * points at one loopback receiver (answers 200), so stray deliveries never leave the machine.
 * The not-declared case (CAP-02, PUSH-01, D2) is in capabilities.ts.
 */
import { parseWebhookId } from '../../../src/webhooks/webhookId.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, ok, send, uid } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../../support/webhookReceiver.js';
import type { ScenarioEnv } from './env.js';

const MAX_CONFIGS = 10;
const STREAM_RESPONSE_KEYS = ['task', 'message', 'statusUpdate', 'artifactUpdate'];

export function pushScenarios(env: ScenarioEnv): void {
  describe('Push notification configs', () => {
    let hook: Receiver;
    before(async () => {
      hook = await startReceiver();
    });
    after(() => hook.close());

    /** A distinct webhook URL on the receiver. */
    const hookUrl = (label = 'cfg') => `${hook.url}/${uid(label)}`;
    /** A task that stays open (INPUT_REQUIRED), so its configs live as long as the test. */
    const openTask = async (): Promise<string> => ok(await env.b.call('sendMessage', send('ask for push'))).task.id;
    const create = async (taskId: string, config: object = {}): Promise<Json> =>
      ok(await env.b.call('createTaskPushNotificationConfig', { taskId, url: hookUrl(), ...config }));
    const listAll = async (taskId: string): Promise<Json[]> => ok(await env.b.call('listTaskPushNotificationConfigs', { taskId })).configs;
    const ids = (configs: Json[]) => configs.map((c) => c.id).sort();

    test('PUSH-02 create returns the stored config with a server-assigned id', async () => {
      const taskId = await openTask();
      const url = hookUrl();
      const created = ok(await env.b.call('createTaskPushNotificationConfig', { taskId, url }));
      assert.equal(typeof created.id, 'string');
      assert.ok(created.id.length > 0, 'a server-assigned id');
      assert.equal(created.taskId, taskId);
      assert.equal(created.url, url);
      const other = await create(taskId);
      assert.notEqual(other.id, created.id, 'each config gets its own id');
    });

    test('PUSH-02 D3 a client-supplied id is kept; creating it again replaces that config (upsert)', async () => {
      const taskId = await openTask();
      const first = await create(taskId, { id: 'my-config.1', token: 'tok-one' });
      assert.equal(first.id, 'my-config.1');
      const url = hookUrl('replaced');
      const second = await create(taskId, { id: 'my-config.1', url, authentication: { scheme: 'Bearer', credentials: 'c2' } });
      assert.equal(second.id, 'my-config.1');
      assert.equal(second.url, url);
      const configs = await listAll(taskId);
      assert.equal(configs.length, 1, `one config after the upsert: ${JSON.stringify(configs)}`);
      assert.equal(configs[0].url, url);
      assert.equal(configs[0].token ?? '', '', 'the replaced config does not keep the old token');
      assert.deepEqual(configs[0].authentication, { scheme: 'Bearer', credentials: 'c2' });
    });

    test('PUSH-05 get returns the config whole (url, token, authentication)', async () => {
      const taskId = await openTask();
      const created = await create(taskId, { token: 'tok-get', authentication: { scheme: 'Bearer', credentials: 'secret-get' } });
      const got = ok(await env.b.call('getTaskPushNotificationConfig', { taskId, id: created.id }));
      assert.deepEqual(got, created);
      assert.equal(got.token, 'tok-get');
      assert.deepEqual(got.authentication, { scheme: 'Bearer', credentials: 'secret-get' });
    });

    test('PUSH-06 PUSH-08 list returns every config of the task, and only those', async () => {
      const taskId = await openTask();
      const otherTask = await openTask();
      const made = [await create(taskId), await create(taskId, { id: 'listed-b' }), await create(taskId)];
      await create(otherTask);
      const listed = ok(await env.b.call('listTaskPushNotificationConfigs', { taskId }));
      assert.deepEqual(ids(listed.configs), ids(made));
      assert.ok(listed.configs.every((c: Json) => c.taskId === taskId));
      assert.equal(listed.nextPageToken ?? '', '');
      for (const c of listed.configs) assert.deepEqual(c, made.find((m) => m.id === c.id));
      assert.equal((await listAll(otherTask)).length, 1);
    });

    test('PUSH-06 pageSize 1 walks every config exactly once; nextPageToken "" at the end', async () => {
      const taskId = await openTask();
      const made = [];
      for (let i = 0; i < 4; i++) made.push(await create(taskId));
      const seen: string[] = [];
      let pageToken = '';
      for (let page = 0; page < 10; page++) {
        const res = ok(await env.b.call('listTaskPushNotificationConfigs', { taskId, pageSize: 1, ...(pageToken ? { pageToken } : {}) }));
        assert.equal(res.configs.length, 1, `page ${page}: ${JSON.stringify(res)}`);
        seen.push(res.configs[0].id);
        // next_page_token is not a REQUIRED proto field: gRPC's JSON form omits it when ''.
        pageToken = res.nextPageToken ?? '';
        assert.equal(typeof pageToken, 'string');
        if (pageToken === '') break;
      }
      assert.equal(pageToken, '', 'the walk ended');
      assert.equal(new Set(seen).size, seen.length, `duplicates in ${JSON.stringify(seen)}`);
      assert.deepEqual([...seen].sort(), ids(made));
    });

    test('PUSH-06 a pageToken issued for another task is INVALID_PARAMS', async () => {
      const taskId = await openTask();
      const otherTask = await openTask();
      await create(taskId);
      await create(taskId);
      await create(otherTask);
      const { nextPageToken } = ok(await env.b.call('listTaskPushNotificationConfigs', { taskId, pageSize: 1 }));
      assert.notEqual(nextPageToken, '');
      const res = await env.b.call('listTaskPushNotificationConfigs', { taskId: otherTask, pageSize: 1, pageToken: nextPageToken });
      expectError(res, 'INVALID_PARAMS', { field: 'pageToken' });
      expectError(await env.b.call('listTaskPushNotificationConfigs', { taskId, pageToken: 'not-a-token!' }), 'INVALID_PARAMS', { field: 'pageToken' });
      // Forged: an empty or non-string id, an extra field, a field missing.
      for (const forged of [{ i: '', f: taskId }, { i: 3, f: taskId }, { i: 'x', f: taskId, t: '' }, { i: 'x' }]) {
        const pageToken = Buffer.from(JSON.stringify(forged)).toString('base64url');
        expectError(await env.b.call('listTaskPushNotificationConfigs', { taskId, pageToken }), 'INVALID_PARAMS', { field: 'pageToken' });
      }
    });

    test('PUSH-07 delete removes the config (get → TASK_NOT_FOUND); deleting again succeeds', async () => {
      const taskId = await openTask();
      const kept = await create(taskId);
      const gone = await create(taskId);
      assert.deepEqual(ok(await env.b.call('deleteTaskPushNotificationConfig', { taskId, id: gone.id })), {});
      expectError(await env.b.call('getTaskPushNotificationConfig', { taskId, id: gone.id }), 'TASK_NOT_FOUND');
      assert.deepEqual(ids(await listAll(taskId)), [kept.id]);
      assert.deepEqual(ok(await env.b.call('deleteTaskPushNotificationConfig', { taskId, id: gone.id })), {});
      assert.deepEqual(ok(await env.b.call('deleteTaskPushNotificationConfig', { taskId, id: 'never-existed' })), {});
      assert.deepEqual(ids(await listAll(taskId)), [kept.id]);
    });

    test('PUSH-03 an unknown task is TASK_NOT_FOUND for all four operations; an unknown config id on get too', async () => {
      const ghost = uid('ghost-task');
      expectError(await env.b.call('createTaskPushNotificationConfig', { taskId: ghost, url: hookUrl() }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('getTaskPushNotificationConfig', { taskId: ghost, id: 'c1' }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('listTaskPushNotificationConfigs', { taskId: ghost }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('deleteTaskPushNotificationConfig', { taskId: ghost, id: 'c1' }), 'TASK_NOT_FOUND');
      const taskId = await openTask();
      await create(taskId);
      expectError(await env.b.call('getTaskPushNotificationConfig', { taskId, id: 'no-such-config' }), 'TASK_NOT_FOUND');
    });

    describe('validation', () => {
      let taskId: string;
      before(async () => {
        taskId = await openTask();
      });
      const createRaw = (config: object) => env.b.call('createTaskPushNotificationConfig', { taskId, ...config });

      test('a missing url is INVALID_PARAMS (url)', async () => {
        expectError(await createRaw({ token: 'no-url' }), 'INVALID_PARAMS', { field: 'url' });
        expectError(await createRaw({ url: '' }), 'INVALID_PARAMS', { field: 'url' });
      });

      test('PUSH-10 a non-HTTP url and a url with userinfo are INVALID_PARAMS (url)', async () => {
        expectError(await createRaw({ url: 'ftp://127.0.0.1/hook' }), 'INVALID_PARAMS', { field: 'url' });
        expectError(await createRaw({ url: 'not a url' }), 'INVALID_PARAMS', { field: 'url' });
        const port = new URL(hook.url).port;
        expectError(await createRaw({ url: `http://user:pw@127.0.0.1:${port}/hook` }), 'INVALID_PARAMS', { field: 'url' });
      });

      test('PUSHD-03 an authentication scheme with a space is INVALID_PARAMS (authentication.scheme)', async () => {
        const res = await createRaw({ url: hookUrl(), authentication: { scheme: 'Bearer x', credentials: 'c' } });
        expectError(res, 'INVALID_PARAMS', { field: 'authentication.scheme' });
      });

      test('PUSH-11 a token with CR/LF is INVALID_PARAMS (token), and the error does not echo it', async () => {
        const secret = uid('s3cret-token-value');
        for (const token of [`${secret}\r\nX-Injected: 1`, `${secret}\nx`]) {
          const res = await createRaw({ url: hookUrl(), token });
          const error = expectError(res, 'INVALID_PARAMS', { field: 'token' });
          assert.ok(!JSON.stringify(error.raw).includes(secret), `the error must not contain the token: ${JSON.stringify(error.raw)}`);
          assert.ok(!error.message.includes(secret));
        }
        const creds = uid('cr3dential');
        const res = await createRaw({ url: hookUrl(), authentication: { scheme: 'Bearer', credentials: `${creds}\r\n` } });
        const error = expectError(res, 'INVALID_PARAMS', { field: 'authentication.credentials' });
        assert.ok(!JSON.stringify(error.raw).includes(creds), 'the error must not contain the credentials');
      });

      test(`at most ${MAX_CONFIGS} configs per task: one more is INVALID_PARAMS; replacing one (D3) still works`, async () => {
        const full = await openTask();
        for (let i = 0; i < MAX_CONFIGS; i++) await create(full, { id: `slot-${i}` });
        expectError(await env.b.call('createTaskPushNotificationConfig', { taskId: full, url: hookUrl() }), 'INVALID_PARAMS');
        const replaced = await create(full, { id: 'slot-3', token: 'new' });
        assert.equal(replaced.id, 'slot-3');
        assert.equal((await listAll(full)).length, MAX_CONFIGS);
        ok(await env.b.call('deleteTaskPushNotificationConfig', { taskId: full, id: 'slot-0' }));
        await create(full, { id: 'slot-10' });
        assert.equal((await listAll(full)).length, MAX_CONFIGS);
      });
    });

    test('PUSH-09 MSG-07 an inline config on SendMessage is listed for the task it created', async () => {
      const url = hookUrl('inline');
      const config = { url, token: 'inline-token' };
      const task = ok(await env.b.call('sendMessage', send('ask inline', {}, { taskPushNotificationConfig: config }))).task;
      const configs = await listAll(task.id);
      assert.equal(configs.length, 1, JSON.stringify(configs));
      assert.equal(configs[0].url, url);
      assert.equal(configs[0].token, 'inline-token');
      assert.equal(configs[0].taskId, task.id);
      assert.ok(configs[0].id, 'the inline config got an id');
      assert.deepEqual(ok(await env.b.call('getTaskPushNotificationConfig', { taskId: task.id, id: configs[0].id })), configs[0]);
    });

    test('PUSH-07 PUSH-08 each config gets its own deliveries; a deleted one gets nothing more', async () => {
      const taskId = await openTask();
      const origin = new URL(hook.url).origin;
      const [kept, gone] = [`/webhook/${uid('kept')}`, `/webhook/${uid('gone')}`];
      await create(taskId, { url: origin + kept });
      const deleted = await create(taskId, { url: origin + gone });
      ok(await env.b.call('deleteTaskPushNotificationConfig', { taskId, id: deleted.id }));
      const answered = ok(await env.b.call('sendMessage', send('Ada', { taskId }))).task;
      assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
      const completed = (r: ReceivedRequest) => r.path === kept && r.json?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED';
      await hook.waitUntil((all) => all.some(completed), 10_000);
      assert.ok(hook.requests.filter((r) => r.path === kept).every((r) => r.headers['a2a-task-id'] === taskId));
      assert.deepEqual(hook.requests.filter((r) => r.path === gone).map((r) => r.body), [], 'nothing for the deleted config');
    });

    test('PUSH-09 an inline config on a follow-up message registers on the existing task and gets its completion', async () => {
      const taskId = await openTask();
      const path = `/webhook/${uid('follow-up')}`;
      const config = { url: new URL(hook.url).origin + path };
      ok(await env.b.call('sendMessage', send('Ada', { taskId }, { taskPushNotificationConfig: config })));
      assert.deepEqual((await listAll(taskId)).map((c) => c.url), [config.url]);
      const got = await hook.waitUntil((all) => all.some((r) => r.path === path && r.json?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), 10_000);
      assert.ok(got.filter((r) => r.path === path).every((r) => r.headers['a2a-task-id'] === taskId));
    });

    test('PUSH-12 TENANT configs of a tenant’s task are not reachable without the tenant', async () => {
      const task = ok(await env.b.call('sendMessage', { tenant: 'push-tenant', ...send('ask tenant') })).task;
      const created = ok(await env.b.call('createTaskPushNotificationConfig', { tenant: 'push-tenant', taskId: task.id, url: hookUrl() }));
      assert.equal(created.tenant ?? 'push-tenant', 'push-tenant');
      const listed = ok(await env.b.call('listTaskPushNotificationConfigs', { tenant: 'push-tenant', taskId: task.id }));
      assert.deepEqual(ids(listed.configs), [created.id]);
      expectError(await env.b.call('listTaskPushNotificationConfigs', { taskId: task.id }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('getTaskPushNotificationConfig', { taskId: task.id, id: created.id }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('createTaskPushNotificationConfig', { tenant: 'other-tenant', taskId: task.id, url: hookUrl() }), 'TASK_NOT_FOUND');
    });

    test('MSG-07 PUSHD-01 PUSHD-02 PUSHD-03 D1 the webhook receives every event of "hi" as a StreamResponse', async () => {
      const path = `/webhook/${uid('deliver')}`;
      const token = uid('notify-token');
      const config = { url: `${new URL(hook.url).origin}${path}`, token, authentication: { scheme: 'Bearer', credentials: 'webhook-cred' } };
      const task = ok(await env.b.call('sendMessage', send('hi push', {}, { taskPushNotificationConfig: config }))).task;
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      const mine = (all: ReceivedRequest[]) => all.filter((r) => r.path === path);
      const completed = (r: ReceivedRequest) => r.json?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED';
      await hook.waitUntil((all) => mine(all).some(completed), 10_000);
      const got = mine(hook.requests);
      const bodies = got.map((r) => r.json);
      for (const r of got) {
        assert.equal(r.method, 'POST');
        assert.equal(r.headers['content-type'], 'application/a2a+json');
        assert.equal(r.headers.authorization, 'Bearer webhook-cred');
        assert.equal(r.headers['x-a2a-notification-token'], token);
        assert.equal(r.headers['a2a-task-id'], task.id);
        const keys = Object.keys(r.json ?? {});
        assert.equal(keys.length, 1, `exactly one StreamResponse member: ${r.body}`);
        assert.ok(STREAM_RESPONSE_KEYS.includes(keys[0] as string), `a StreamResponse: ${r.body}`);
      }
      assert.ok('task' in bodies[0], `the first delivery is {task}: ${got[0]?.body}`);
      assert.equal(bodies[0].task.id, task.id);
      assert.ok(completed(got[got.length - 1] as ReceivedRequest), `the last delivery is the COMPLETED status: ${got.at(-1)?.body}`);
      assert.equal(bodies[bodies.length - 1].statusUpdate.taskId, task.id);
      const seqs = got.map((r) => Number(r.headers['a2a-event-seq']));
      assert.ok(seqs.every((s) => Number.isInteger(s)), `a2a-event-seq: ${JSON.stringify(seqs)}`);
      for (let i = 1; i < seqs.length; i++) assert.ok((seqs[i] as number) > (seqs[i - 1] as number), `a2a-event-seq strictly increasing: ${JSON.stringify(seqs)}`);
      const configIds = new Set<string | undefined>();
      got.forEach((r, i) => {
        const id = parseWebhookId(String(r.headers['webhook-id']));
        assert.deepEqual([id?.taskId, id?.seq], [task.id, seqs[i]], `webhook-id <taskId>.<seq>.c<configId>: ${String(r.headers['webhook-id'])}`);
        configIds.add(id?.configId);
      });
      assert.equal(configIds.size, 1, 'one config: one config id in every webhook-id');
      assert.notEqual([...configIds][0], undefined);
      const now = Date.now() / 1000;
      for (const r of got) assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - now) < 300, 'webhook-timestamp in seconds, now');
    });
  });
}
