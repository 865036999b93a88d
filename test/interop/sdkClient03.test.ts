/**
 * Interop: the v0.3 A2A JS SDK client (`a2a-sdk-03` = @a2a-js/sdk@0.3.14) against our server
 * built by createA2AHandler, where 0.3 compat is on by default (issue 9; the full suites are
 * test/compat/server*.test.ts).
 *
 *  - Discovery: once the card route serves `cardForRequest` (the 0.3 SDK sends no A2A-Version,
 *    so it gets the hybrid card with `url`), ClientFactory.createFromUrl works; until then the
 *    1.0 card has no `url` and the factory finds no transport. Both are accepted here; the
 *    client below is built from `agentCardForV03(card)`, what the route serves to 0.3 clients.
 *  - JSON-RPC (0.3 method names, no A2A-Version header): every method is served through the
 *    1.0 request handler, answers in the 0.3 shapes (`kind`, lowercase states, `final`).
 *  - REST (0.3 paths under /v1/...): see the REST test below.
 *  - Whatever a 0.3 request gets, it is never a 5xx or a non-JSON answer, and 1.0 clients keep working.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentCard as AgentCard03, MessageSendParams } from 'a2a-sdk-03';
import type { Task as Task03 } from 'a2a-sdk-03';
import { A2AClient, ClientFactory, DefaultAgentCardResolver, JsonRpcTransport, RestTransport, TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-03/client';
import { agentCardForV03 } from '../../src/compat/card03.js';
import { asTask, collect, sdkClient, startDemoServer, textOf, userMessage, type Fixture } from './support.js';

function asTask03(result: unknown): Task03 {
  assert.equal((result as { kind?: string }).kind, 'task', JSON.stringify(result));
  return result as Task03;
}

/** application/json (JSON-RPC, 0.3 REST), application/a2a+json (1.0 HTTP+JSON) or SSE. */
const ANSWER_TYPE = /^(application\/(a2a\+)?json|text\/event-stream)\b/;

interface Recorded {
  url: string;
  status: number;
  contentType: string | null;
  body: string;
}

/** A fetch that keeps a copy of every non-SSE response the 0.3 SDK receives. */
function recordingFetch(log: Recorded[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const contentType = res.headers.get('content-type');
    const body = contentType?.startsWith('text/event-stream') ? '(sse)' : await res.clone().text();
    log.push({ url: String(input), status: res.status, contentType, body });
    return res;
  };
}

const params03 = (text: string): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId: `m03-${text}-${process.pid}`, parts: [{ kind: 'text', text }] },
});

describe('@a2a-js/sdk 0.3.14 client against our server (0.3 compat on by default)', () => {
  let f: Fixture;
  const log: Recorded[] = [];

  before(async () => {
    f = await startDemoServer();
  });
  after(async () => {
    await f.close();
  });

  test('discovery: the card 0.3 clients get resolves to our JSON-RPC endpoint', async () => {
    const served = (await new DefaultAgentCardResolver().resolve(f.server.url)) as AgentCard03 & { supportedInterfaces?: unknown };
    assert.equal(served.name, 'a2a-kit demo agent');
    if (typeof served.url === 'string') {
      // The card route serves cardForRequest: the hybrid card for a request without A2A-Version.
      assert.equal(served.url, `${f.server.url}/a2a/jsonrpc`);
      const client = await new ClientFactory().createFromUrl(f.server.url);
      assert.equal(asTask03(await client.sendMessage(params03('hi via well-known'))).status.state, 'completed');
    } else {
      // The route still serves the 1.0 card only.
      assert.ok(Array.isArray(served.supportedInterfaces));
      await assert.rejects(new ClientFactory().createFromUrl(f.server.url), /No compatible transport found/);
    }
    const card03 = agentCardForV03(f.card) as unknown as AgentCard03;
    assert.equal(card03.url, `${f.server.url}/a2a/jsonrpc`);
    assert.equal(card03.preferredTransport, 'JSONRPC');
  });

  test('JSON-RPC: every 0.3 method through ClientFactory, in the 0.3 shapes', async () => {
    const client = await new ClientFactory().createFromAgentCard(agentCardForV03(f.card) as unknown as AgentCard03);
    const task = asTask03(await client.sendMessage(params03('hi')));
    assert.equal(task.status.state, 'completed');
    assert.equal(task.artifacts?.[0]?.parts[0]?.kind, 'text');
    assert.equal(asTask03(await client.getTask({ id: task.id })).id, task.id);
    await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);
    await assert.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
    const config = await client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'https://example.com/h' } });
    assert.equal(config.pushNotificationConfig.id, task.id);
    assert.equal((await client.getTaskPushNotificationConfig({ id: task.id })).pushNotificationConfig.url, 'https://example.com/h');
    assert.equal((await client.listTaskPushNotificationConfig({ id: task.id })).length, 1);
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: task.id });
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), []);
    // The demo card declares no extended card: -32004 UnsupportedOperation.
    const t = new JsonRpcTransport({ endpoint: `${f.server.url}/a2a/jsonrpc`, fetchImpl: recordingFetch(log) });
    await assert.rejects(t.getExtendedAgentCard(), (e: unknown) => (e as { errorResponse?: { error: { code: number } } }).errorResponse?.error.code === -32004);
  });

  test('JSON-RPC streaming: message/stream and tasks/resubscribe, final:true on the last status update', async () => {
    const t = new JsonRpcTransport({ endpoint: `${f.server.url}/a2a/jsonrpc` });
    const events = (await collect(t.sendMessageStream(params03('stream x')))) as { kind: string; final?: boolean; status?: { state: string } }[];
    assert.equal(events[0]?.kind, 'task');
    const last = events.at(-1);
    assert.equal(last?.kind, 'status-update');
    assert.equal(last?.status?.state, 'completed');
    assert.equal(last?.final, true);
    assert.equal(events.filter((e) => e.final === true).length, 1);
    const slow = asTask03(await t.sendMessage({ ...params03('slow resub'), configuration: { blocking: false } }));
    const resub = (await collect(t.resubscribeTask({ id: slow.id }))) as { kind: string; final?: boolean }[];
    assert.equal(resub[0]?.kind, 'task');
    assert.equal(resub.at(-1)?.final, true);
  });

  test('A2AClient (0.3) with a hand-written 0.3 card gets results', async () => {
    const card03 = { ...f.card, url: `${f.server.url}/a2a/jsonrpc`, protocolVersion: '0.3.0', preferredTransport: 'JSONRPC' } as unknown as AgentCard03;
    const client = new A2AClient(card03);
    const res = await client.sendMessage(params03('hi legacy'));
    assert.ok('result' in res, JSON.stringify(res));
    const got = await client.getTask({ id: 'x' });
    assert.ok('error' in got && got.error.code === -32001);
  });

  test('REST (0.3 /v1 paths, proto-JSON dialect): every RestTransport operation is served', async () => {
    log.length = 0;
    const t = new RestTransport({ endpoint: `${f.server.url}/a2a/rest`, fetchImpl: recordingFetch(log) });
    const task = asTask03(await t.sendMessage(params03('hi rest')));
    assert.equal(task.status.state, 'completed');
    const events = (await collect(t.sendMessageStream(params03('stream rest')))) as { kind: string; final?: boolean }[];
    assert.equal(events.at(-1)?.final, true);
    assert.equal(asTask03(await t.getTask({ id: task.id })).id, task.id);
    await assert.rejects(t.cancelTask({ id: task.id }), TaskNotCancelableError);
    await assert.rejects(collect(t.resubscribeTask({ id: task.id })), /terminal state/);
    const set = await t.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'c', url: 'https://example.com/h' } });
    assert.equal(set.pushNotificationConfig.id, 'c');
    assert.equal((await t.listTaskPushNotificationConfig({ id: task.id })).length, 1);
    assert.equal((await t.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c' })).pushNotificationConfig.url, 'https://example.com/h');
    await t.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c' });
    // The demo card declares no extended card.
    await assert.rejects(t.getExtendedAgentCard(), /UnsupportedOperation|REST error|Code: -32004|not supported/i);
    for (const r of log) assert.ok(r.status < 500, `${r.url} → ${r.status}`);
  });

  test('no 0.3 request produced a 5xx or a non-JSON answer, and 1.0 clients still work', async () => {
    const legacy = f.seen.filter((r) => r.a2aVersion === undefined && r.path !== '/.well-known/agent-card.json');
    assert.ok(legacy.length >= 15, String(legacy.length));
    for (const r of legacy) {
      assert.ok((r.status ?? 500) < 500, `${r.method} ${r.path} → ${r.status}`);
      if (r.status === 204) continue;
      assert.match(r.contentType ?? '', ANSWER_TYPE, `${r.method} ${r.path}`);
    }
    const client = await sdkClient(f, 'JSONRPC');
    const task = asTask(await client.sendMessage(userMessage('hi after 0.3')));
    assert.equal(textOf(task.artifacts[0]?.parts), 'hi after 0.3');
  });
});
