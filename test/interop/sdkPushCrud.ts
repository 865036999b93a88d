/**
 * The push-config CRUD sequence (PUSH-02..07) run through the OFFICIAL A2A JS SDK `Client`, whatever
 * transport it was built on (JSON-RPC, REST, gRPC): create (server id, with token + authentication),
 * create with a client id, get, list (optionally paged), delete (twice: idempotent), create on an
 * unknown task. Binding-specific checks stay in the calling tests.
 */
import assert from 'node:assert/strict';
import {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  TaskPushNotificationConfig,
  type ListTaskPushNotificationConfigsResponse,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';

export interface SdkPushCrudOptions {
  /** Validates the binding's typed TaskNotFound error (for assert.rejects). */
  notFound: (err: unknown) => true;
  /** Also check pageSize/pageToken paging (only where the SDK transport passes them). */
  paged: boolean;
}

export interface SdkPushCrudResult {
  /** The config created with a server-assigned id (deleted by the end). */
  created: TaskPushNotificationConfig;
  /** The config created with the client id `${label}-named` (still there at the end). */
  named: TaskPushNotificationConfig;
  /** The first, unpaged list (taken while both configs existed). */
  listed: ListTaskPushNotificationConfigsResponse;
  /** What the first delete resolved to. */
  deleted: unknown;
}

/**
 * Runs the sequence on `taskId` with webhook `url`; `label` names the token (`${label}-token`),
 * credentials (`${label}-credentials`) and the client-chosen id (`${label}-named`).
 */
export async function sdkPushCrud(client: Client, taskId: string, url: string, label: string, opts: SdkPushCrudOptions): Promise<SdkPushCrudResult> {
  const { notFound } = opts;
  const authentication = { scheme: 'Bearer', credentials: `${label}-credentials` };
  const created = await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId, url, token: `${label}-token`, authentication }));
  assert.ok(created.id, 'a server-assigned id');
  assert.equal(created.taskId, taskId);
  assert.equal(created.url, url);
  assert.equal(created.token, `${label}-token`);
  assert.deepEqual(created.authentication, authentication);
  const namedId = `${label}-named`;
  const named = await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId, id: namedId, url: `${url}/named` }));
  assert.equal(named.id, namedId);

  const get = (id: string) => client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId, id }));
  const list = (extra: object = {}) => client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId, ...extra }));
  const del = (id: string) => client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId, id }));
  const both = [created.id, namedId].sort();
  assert.deepEqual(await get(created.id), created);
  const listed = await list();
  assert.deepEqual(listed.configs.map((c) => c.id).sort(), both);
  assert.equal(listed.nextPageToken, '');
  if (opts.paged) {
    const page1 = await list({ pageSize: 1 });
    assert.equal(page1.configs.length, 1);
    assert.notEqual(page1.nextPageToken, '');
    const page2 = await list({ pageSize: 1, pageToken: page1.nextPageToken });
    assert.equal(page2.nextPageToken, '');
    assert.deepEqual([...page1.configs, ...page2.configs].map((c) => c.id).sort(), both);
  }

  const deleted: unknown = await del(created.id);
  await assert.rejects(get(created.id), notFound);
  await del(created.id); // PUSH-07: idempotent
  assert.deepEqual((await list()).configs.map((c) => c.id), [namedId]);
  const ghost = TaskPushNotificationConfig.fromJSON({ taskId: 'no-such-task', url });
  await assert.rejects(client.createTaskPushNotificationConfig(ghost), notFound);
  return { created, named, listed, deleted };
}
