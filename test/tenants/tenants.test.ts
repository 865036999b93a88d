/**
 * Multi-tenancy (issue 8): two agents with their own cards behind one server (JSON-RPC, REST and
 * gRPC listeners), one store. Each card lists the server's interfaces with its `tenant`; a task of
 * one tenant does not exist for the other (TENANT-06) on every binding; our client and the
 * official @a2a-js/sdk client, given a tenant's card, land on that tenant's agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { Role, SendMessageRequest } from '@a2a-js/sdk';
import * as sdkErrors from '@a2a-js/sdk/errors';
import { grpcTransport } from '../../src/bindings/grpc/client.js';
import { createClient } from '../../src/client/client.js';
import { serveAgent, type RunningTenants } from '../../src/node/serveAgent.js';
import { TaskNotFoundError } from '../../src/protocol/errors.js';
import type { AgentCard, SendMessageResponse, Task } from '../../src/protocol/types.js';
import type { AgentDefinition } from '../../src/server/agentDefinition.js';
import { namedAgent } from './support.js';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import { createTenantRouter } from '../../src/server/tenantRouter.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { createPushRuntime } from '../../src/push/pushOptions.js';

function artifactText(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => ('text' in p ? p.text : ''))).join('');
}

function taskOf(res: SendMessageResponse): Task {
  assert.ok('task' in res, `expected a task: ${JSON.stringify(res)}`);
  return res.task;
}

const V1 = { 'a2a-version': '1.0' };
const V1_JSON = { ...V1, 'content-type': 'application/json' };
const get = (url: string) => fetch(url, { headers: V1 });

let seq = 0;
function message(text: string) {
  return { messageId: `m-${process.pid}-${++seq}`, role: 'ROLE_USER' as const, parts: [{ text }] };
}

async function rpc(url: string, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

describe('multi-tenancy: two agents on one server', () => {
  let running: RunningTenants;
  let jsonRpcUrl: string;
  let restUrl: string;

  before(async () => {
    running = await serveAgent({
      tenants: { acme: namedAgent('Acme agent', 'anvils'), globex: namedAgent('Globex agent', 'domination') },
      port: 0,
      grpc: { port: 0 },
      shutdownTimeoutMs: 500,
      handler: { store: new MemoryTaskStore(), push: { allowPrivateWebhooks: true, deliver: false } },
    });
    jsonRpcUrl = `${running.baseUrl}/a2a/jsonrpc`;
    restUrl = `${running.baseUrl}/a2a/rest`;
  });
  after(() => running.close());

  test('each tenant has its own card at /{tenant}/.well-known/agent-card.json, listing every interface with its tenant', async () => {
    for (const [tenant, name] of [
      ['acme', 'Acme agent'],
      ['globex', 'Globex agent'],
    ] as const) {
      const url = running.cardUrls.get(tenant) as string;
      assert.equal(url, `${running.baseUrl}/${tenant}/.well-known/agent-card.json`);
      const res = await fetch(url);
      assert.equal(res.status, 200);
      const card = (await res.json()) as AgentCard;
      assert.equal(card.name, name);
      assert.deepEqual(card, running.cards.get(tenant));
      assert.deepEqual(
        card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.tenant]),
        [
          ['JSONRPC', jsonRpcUrl, tenant],
          ['HTTP+JSON', restUrl, tenant],
          ['GRPC', running.grpc?.address.replace('127.0.0.1', 'localhost'), tenant],
        ],
      );
    }
    // No default tenant: the root names none of them.
    const root = await fetch(`${running.baseUrl}/.well-known/agent-card.json`);
    assert.equal(root.status, 404);
    const body = await root.text();
    assert.ok(!body.includes('acme') && !body.includes('globex'), body);
    assert.equal((await fetch(`${running.baseUrl}/initech/.well-known/agent-card.json`)).status, 404);
  });

  test('JSON-RPC (params.tenant): a task of tenant A is not found from tenant B and not listed there', async () => {
    const sent = await rpc(jsonRpcUrl, 'SendMessage', { tenant: 'acme', message: message('hello') });
    const task = (sent.result as { task: Task }).task;
    assert.equal(artifactText(task), 'Acme agent|acme|hello');
    const mine = await rpc(jsonRpcUrl, 'GetTask', { tenant: 'acme', id: task.id });
    assert.equal((mine.result as Task).id, task.id);
    const other = await rpc(jsonRpcUrl, 'GetTask', { tenant: 'globex', id: task.id });
    assert.equal(other.error?.code, -32001);
    const listed = await rpc(jsonRpcUrl, 'ListTasks', { tenant: 'globex' });
    assert.ok(!(listed.result as { tasks: Task[] }).tasks.some((t) => t.id === task.id));
    const cancel = await rpc(jsonRpcUrl, 'CancelTask', { tenant: 'globex', id: task.id });
    assert.equal(cancel.error?.code, -32001);
    // A follow-up message naming the task from the other tenant: not found either.
    const follow = await rpc(jsonRpcUrl, 'SendMessage', { tenant: 'globex', message: { ...message('again'), taskId: task.id } });
    assert.equal(follow.error?.code, -32001);
  });

  test('unknown or missing tenant without a default: InvalidParams on `tenant`, naming no tenant', async () => {
    for (const params of [{ tenant: 'initech', id: 'x' }, { id: 'x' }]) {
      const res = await rpc(jsonRpcUrl, 'GetTask', params);
      assert.equal(res.error?.code, -32602, JSON.stringify(res));
      const text = JSON.stringify(res.error);
      assert.match(text, /tenant/);
      assert.ok(!text.includes('acme') && !text.includes('globex'), text);
    }
    const card = await rpc(jsonRpcUrl, 'GetExtendedAgentCard', undefined);
    assert.equal(card.error?.code, -32602);
    const rest = await get(`${restUrl}/initech/tasks`);
    assert.equal(rest.status, 400);
  });

  test('REST (path prefix): /{tenant}/tasks/{id} finds only the own tenant’s task; a mismatching body tenant is refused', async () => {
    const res = await fetch(`${restUrl}/globex/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: message('over rest') }),
    });
    assert.equal(res.status, 200);
    const task = ((await res.json()) as { task: Task }).task;
    assert.equal(artifactText(task), 'Globex agent|globex|over rest');
    assert.equal((await get(`${restUrl}/globex/tasks/${task.id}`)).status, 200);
    assert.equal((await get(`${restUrl}/acme/tasks/${task.id}`)).status, 404);
    const listed = (await (await get(`${restUrl}/acme/tasks`)).json()) as { tasks: Task[] };
    assert.ok(!listed.tasks.some((t) => t.id === task.id));
    const mine = (await (await get(`${restUrl}/globex/tasks`)).json()) as { tasks: Task[] };
    assert.ok(mine.tasks.some((t) => t.id === task.id));
    // TENANT-04 (rec.): a body tenant that differs from the path is refused.
    const mismatch = await fetch(`${restUrl}/globex/message:send`, {
      method: 'POST',
      headers: V1_JSON,
      body: JSON.stringify({ tenant: 'acme', message: message('mismatch') }),
    });
    assert.equal(mismatch.status, 400);
    // Without a prefix there is no tenant (and no default).
    assert.equal((await get(`${restUrl}/tasks/${task.id}`)).status, 400);
  });

  test('push configs are per tenant: another tenant cannot see, list or delete them', async () => {
    const task = taskOf((await rpc(jsonRpcUrl, 'SendMessage', { tenant: 'acme', message: message('push') })).result as SendMessageResponse);
    const created = await rpc(jsonRpcUrl, 'CreateTaskPushNotificationConfig', { tenant: 'acme', taskId: task.id, url: 'http://127.0.0.1:9/hook' });
    const config = created.result as { id: string };
    assert.ok(config?.id, JSON.stringify(created));
    const listOther = await rpc(jsonRpcUrl, 'ListTaskPushNotificationConfigs', { tenant: 'globex', taskId: task.id });
    assert.equal(listOther.error?.code, -32001);
    const getOther = await rpc(jsonRpcUrl, 'GetTaskPushNotificationConfig', { tenant: 'globex', taskId: task.id, id: config.id });
    assert.equal(getOther.error?.code, -32001);
    const deleteOther = await rpc(jsonRpcUrl, 'DeleteTaskPushNotificationConfig', { tenant: 'globex', taskId: task.id, id: config.id });
    assert.equal(deleteOther.error?.code, -32001);
    const listMine = await rpc(jsonRpcUrl, 'ListTaskPushNotificationConfigs', { tenant: 'acme', taskId: task.id });
    assert.deepEqual(
      (listMine.result as { configs: { id: string }[] }).configs.map((c) => c.id),
      [config.id],
    );
  });

  test('our client from each tenant card (JSON-RPC, REST, gRPC) talks to that tenant’s agent only', async () => {
    const grpc = grpcTransport();
    try {
      const ids: Record<string, string> = {};
      for (const tenant of ['acme', 'globex']) {
        for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
          const client = await createClient(running.cardUrls.get(tenant) as string, { bindings: [binding], transports: [grpc], cardCache: false });
          assert.equal(client.agentInterface.tenant, tenant);
          const task = taskOf(await client.sendText(`via ${binding}`));
          assert.equal(artifactText(task), `${tenant === 'acme' ? 'Acme agent' : 'Globex agent'}|${tenant}|via ${binding}`);
          assert.equal((await client.getTask({ id: task.id })).id, task.id);
          ids[`${tenant} ${binding}`] = task.id;
        }
      }
      // gRPC carries the tenant in the request field: globex cannot reach acme's tasks.
      const globex = await createClient(running.cardUrls.get('globex') as string, { bindings: ['GRPC'], transports: [grpc], cardCache: false });
      await assert.rejects(globex.getTask({ id: ids['acme GRPC'] as string }), TaskNotFoundError);
      await assert.rejects(globex.getTask({ id: ids['acme JSONRPC'] as string }), TaskNotFoundError);
      const listed = await globex.listTasks({});
      const acmeIds = Object.entries(ids).filter(([k]) => k.startsWith('acme')).map(([, id]) => id);
      assert.ok(listed.tasks.length >= 3);
      assert.ok(!listed.tasks.some((t) => acmeIds.includes(t.id)));
      const acme = await createClient(running.cardUrls.get('acme') as string, { bindings: ['GRPC'], transports: [grpc], cardCache: false });
      assert.ok((await acme.listTasks({})).tasks.every((t) => !Object.entries(ids).some(([k, id]) => k.startsWith('globex') && id === t.id)));
      // Streams too.
      const events = [];
      for await (const e of globex.streamText('streamed')) events.push(e);
      const last = events.at(-1);
      assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');
    } finally {
      grpc.close();
    }
  });

  test('the official @a2a-js/sdk client sends the interface tenant (JSON-RPC field, REST prefix)', async () => {
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
      const globex = await factory.createFromUrl(running.cardUrls.get('globex') as string, '');
      const acme = await factory.createFromUrl(running.cardUrls.get('acme') as string, '');
      const request = SendMessageRequest.fromJSON({ message: { ...message(`sdk ${binding}`), role: 'ROLE_USER' } });
      assert.equal(request.message?.role, Role.ROLE_USER);
      const result = (await globex.sendMessage(request)) as { id: string; artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[] };
      const text = result.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');
      assert.equal(text, `Globex agent|globex|sdk ${binding}`);
      assert.equal((await globex.getTask({ tenant: '', id: result.id, historyLength: undefined })).id, result.id);
      await assert.rejects(acme.getTask({ tenant: '', id: result.id, historyLength: undefined }), (e: unknown) => e instanceof sdkErrors.TaskNotFoundError);
    }
  });
});

describe('multi-tenancy: default tenant, createA2AHandler({ tenants })', () => {
  const handler = createA2AHandler({
    tenants: { acme: namedAgent('Acme agent', 'anvils'), globex: namedAgent('Globex agent', 'domination') },
    defaultTenant: 'acme',
    interfaces: { httpBaseUrl: 'https://agents.example', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' },
    push: { runtime: createPushRuntime, deliver: false },
  });
  const call = async (body: object) => {
    const res = await handler.fetch(
      new Request('https://agents.example/a2a/jsonrpc', { method: 'POST', headers: V1_JSON, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }) }),
    );
    return (await res.json()) as { result?: unknown; error?: { code: number } };
  };

  test('the root card is the default tenant’s; a request without tenant is stored under the default tenant', async () => {
    const root = (await (await handler.fetch(new Request('https://agents.example/.well-known/agent-card.json'))).json()) as AgentCard;
    assert.equal(root.name, 'Acme agent');
    assert.ok(root.supportedInterfaces.every((i) => i.tenant === 'acme'));
    const globex = (await (await handler.fetch(new Request('https://agents.example/globex/.well-known/agent-card.json'))).json()) as AgentCard;
    assert.deepEqual(
      globex.supportedInterfaces.map((i) => [i.url, i.tenant]),
      [
        ['https://agents.example/a2a/jsonrpc', 'globex'],
        ['https://agents.example/a2a/rest', 'globex'],
      ],
    );
    const sent = await call({ method: 'SendMessage', params: { message: message('no tenant') } });
    const task = (sent.result as { task: Task }).task;
    assert.equal(artifactText(task), 'Acme agent|acme|no tenant');
    assert.equal(((await call({ method: 'GetTask', params: { tenant: 'acme', id: task.id } })).result as Task).id, task.id);
    assert.equal(((await call({ method: 'GetTask', params: { id: task.id } })).result as Task).id, task.id);
    assert.equal((await call({ method: 'GetTask', params: { tenant: 'globex', id: task.id } })).error?.code, -32001);
    const rest = await handler.fetch(new Request(`https://agents.example/a2a/rest/acme/tasks/${task.id}`, { headers: V1 }));
    assert.equal(rest.status, 200);
    assert.equal((await handler.fetch(new Request(`https://agents.example/a2a/rest/tasks/${task.id}`, { headers: V1 }))).status, 200);
  });

  test('tenant names that would shadow REST literals are refused, as are cards with different security', () => {
    const agent = namedAgent('X', 'x');
    for (const bad of ['tasks', 'message:send', 'extendedAgentCard', 'a/b', '', '..']) {
      assert.throws(() => createTenantRouter({ tenants: { [bad]: agent } }), /Tenant/);
    }
    assert.throws(() => createTenantRouter({ tenants: { a: agent }, defaultTenant: 'b' }), /defaultTenant/);
    const secured: AgentDefinition = {
      ...agent,
      card: { ...agent.card, securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } } }, securityRequirements: [{ schemes: { key: { list: [] } } }] },
    };
    assert.throws(() => createA2AHandler({ tenants: { a: agent, b: secured }, push: { runtime: createPushRuntime, deliver: false } }), /different securitySchemes/);
  });
});
