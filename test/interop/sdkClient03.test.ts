/**
 * Interop: the v0.3 A2A JS SDK client (`a2a-sdk-03` = @a2a-js/sdk@0.3.14) against our server.
 * We serve A2A 1.0 only, so nothing may work — but every failure must be a clean,
 * machine-readable protocol error (JSON, no HTML, no 5xx), and the server must stay healthy.
 *
 * What the 0.3 client does (observed, asserted below):
 *  - Discovery: DefaultAgentCardResolver fetches our 1.0 card fine, but ClientFactory needs the
 *    0.3 fields `url` / `preferredTransport` → "No compatible transport found"; A2AClient.fromCardUrl
 *    → "does not contain a valid 'url'". Both fail client-side before any A2A call.
 *  - JSON-RPC (0.3 method names, no A2A-Version header): every unary method gets JSON-RPC
 *    -32601 Method not found (HTTP 200, application/json); the 0.3 SDK surfaces it as
 *    JSONRPCTransportError with the envelope in `errorResponse`. (Spec 1.0 §3.6.2 would also allow
 *    -32009 VersionNotSupported here: a missing A2A-Version means 0.3; our server resolves the
 *    method name before negotiating the version. Either code is accepted.)
 *    Streaming methods (message/stream, tasks/resubscribe) get the same JSON error instead of SSE;
 *    the 0.3 SDK then throws "Invalid response Content-Type for SSE stream" without reading it.
 *  - REST (0.3 paths under /v1/...): "v1" is taken as a tenant segment, the route matches, and version
 *    negotiation answers HTTP 400 google.rpc.Status with ErrorInfo reason VERSION_NOT_SUPPORTED
 *    (metadata requestedVersion "0.3"), Content-Type application/a2a+json. The 0.3 SDK expects a top-level `code`, so it throws a
 *    plain Error quoting the body. GET /v1/card (0.3 extended card) → 404 JSON.
 *  - A2AClient (0.3 JSON-RPC convenience client) returns the JSON-RPC error response instead of throwing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentCard as AgentCard03, MessageSendParams } from 'a2a-sdk-03';
import { A2AClient, ClientFactory, DefaultAgentCardResolver, JsonRpcTransport, RestTransport } from 'a2a-sdk-03/client';
import { asTask, collect, sdkClient, startDemoServer, textOf, userMessage, type Fixture } from './support.js';

/** application/json (JSON-RPC) or application/a2a+json (HTTP+JSON). */
const JSON_TYPE = /^application\/(a2a\+)?json\b/;

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
  message: { kind: 'message', role: 'user', messageId: `m03-${text}`, parts: [{ kind: 'text', text }] },
});

describe('@a2a-js/sdk 0.3.14 client against our 1.0-only server', () => {
  let f: Fixture;
  const log: Recorded[] = [];

  before(async () => {
    f = await startDemoServer();
  });
  after(async () => {
    await f.close();
  });

  test('discovery: our 1.0 card resolves, but the 0.3 factory and A2AClient find no 0.3 endpoint', async () => {
    const card = (await new DefaultAgentCardResolver().resolve(f.server.url)) as AgentCard03 & { supportedInterfaces?: unknown };
    assert.equal(card.name, 'a2a-kit demo agent');
    assert.equal(card.url, undefined);
    assert.ok(Array.isArray(card.supportedInterfaces));
    await assert.rejects(new ClientFactory().createFromUrl(f.server.url), /No compatible transport found/);
    await assert.rejects(A2AClient.fromCardUrl(`${f.server.url}/.well-known/agent-card.json`), /does not contain a valid 'url'/);
  });

  test('JSON-RPC unary methods → -32601 Method not found (or -32009), as a clean JSON-RPC error', async () => {
    const t = new JsonRpcTransport({ endpoint: `${f.server.url}/a2a/jsonrpc`, fetchImpl: recordingFetch(log) });
    const calls: [string, () => Promise<unknown>][] = [
      ['message/send', () => t.sendMessage(params03('hi'))],
      ['tasks/get', () => t.getTask({ id: 'x' })],
      ['tasks/cancel', () => t.cancelTask({ id: 'x' })],
      ['tasks/pushNotificationConfig/set', () => t.setTaskPushNotificationConfig({ taskId: 'x', pushNotificationConfig: { url: 'https://example.com/h' } })],
      ['tasks/pushNotificationConfig/get', () => t.getTaskPushNotificationConfig({ id: 'x', pushNotificationConfigId: 'c' })],
      ['tasks/pushNotificationConfig/list', () => t.listTaskPushNotificationConfig({ id: 'x' })],
      ['tasks/pushNotificationConfig/delete', () => t.deleteTaskPushNotificationConfig({ id: 'x', pushNotificationConfigId: 'c' })],
      ['agent/getAuthenticatedExtendedCard', () => t.getExtendedAgentCard()],
    ];
    for (const [method, call] of calls) {
      await assert.rejects(call(), (err: unknown) => {
        const envelope = (err as { errorResponse?: { jsonrpc: string; id: unknown; error: { code: number; message: string } } }).errorResponse;
        assert.ok(envelope, `${method}: expected a JSON-RPC error envelope, got ${String(err)}`);
        assert.equal(envelope.jsonrpc, '2.0');
        assert.equal(typeof envelope.id, 'number');
        assert.ok([-32601, -32009].includes(envelope.error.code), `${method}: code ${envelope.error.code}`);
        if (envelope.error.code === -32601) assert.ok(envelope.error.message.includes(method), envelope.error.message);
        return true;
      });
    }
    assert.equal(log.length, calls.length);
    for (const r of log) {
      assert.equal(r.status, 200);
      assert.equal(r.contentType, 'application/json');
    }
  });

  test('JSON-RPC streaming methods → the same JSON error instead of SSE (the 0.3 SDK does not read it)', async () => {
    log.length = 0;
    const t = new JsonRpcTransport({ endpoint: `${f.server.url}/a2a/jsonrpc`, fetchImpl: recordingFetch(log) });
    await assert.rejects(collect(t.sendMessageStream(params03('stream x'))), /Invalid response Content-Type for SSE stream for message\/stream/);
    await assert.rejects(collect(t.resubscribeTask({ id: 'x' })), /Invalid response Content-Type for SSE stream for tasks\/resubscribe/);
    assert.equal(log.length, 2);
    for (const [i, method] of ['message/stream', 'tasks/resubscribe'].entries()) {
      const r = log[i] as Recorded;
      assert.equal(r.status, 200);
      assert.equal(r.contentType, 'application/json');
      const body = JSON.parse(r.body) as { jsonrpc: string; error: { code: number; message: string } };
      assert.equal(body.jsonrpc, '2.0');
      assert.ok([-32601, -32009].includes(body.error.code));
      if (body.error.code === -32601) assert.ok(body.error.message.includes(method));
    }
  });

  test('A2AClient (0.3) with a hand-written 0.3 card returns the JSON-RPC error response', async () => {
    const card03 = { ...f.card, url: `${f.server.url}/a2a/jsonrpc`, protocolVersion: '0.3.0', preferredTransport: 'JSONRPC' } as unknown as AgentCard03;
    const client = new A2AClient(card03);
    const res = await client.sendMessage(params03('hi'));
    assert.ok('error' in res, JSON.stringify(res));
    assert.ok([-32601, -32009].includes(res.error.code));
    const got = await client.getTask({ id: 'x' });
    assert.ok('error' in got && [-32601, -32009].includes(got.error.code));
  });

  test('REST (0.3 /v1 paths) → HTTP 400 VERSION_NOT_SUPPORTED, as google.rpc.Status JSON', async () => {
    log.length = 0;
    const t = new RestTransport({ endpoint: `${f.server.url}/a2a/rest`, fetchImpl: recordingFetch(log) });
    const calls: [string, () => Promise<unknown>][] = [
      ['/v1/message:send', () => t.sendMessage(params03('hi'))],
      ['/v1/message:stream', () => collect(t.sendMessageStream(params03('stream x')))],
      ['/v1/tasks/x', () => t.getTask({ id: 'x' })],
      ['/v1/tasks/x:cancel', () => t.cancelTask({ id: 'x' })],
      ['/v1/tasks/x:subscribe', () => collect(t.resubscribeTask({ id: 'x' }))],
      ['/v1/tasks/x/pushNotificationConfigs', () => t.setTaskPushNotificationConfig({ taskId: 'x', pushNotificationConfig: { url: 'https://example.com/h' } })],
      ['/v1/tasks/x/pushNotificationConfigs', () => t.listTaskPushNotificationConfig({ id: 'x' })],
      ['/v1/tasks/x/pushNotificationConfigs/c', () => t.getTaskPushNotificationConfig({ id: 'x', pushNotificationConfigId: 'c' })],
      ['/v1/tasks/x/pushNotificationConfigs/c', () => t.deleteTaskPushNotificationConfig({ id: 'x', pushNotificationConfigId: 'c' })],
    ];
    for (const [path, call] of calls) {
      await assert.rejects(call(), (err: unknown) => {
        assert.match(String(err), new RegExp(`HTTP error for ${path.replace(/[/:]/g, '\\$&')}! Status: 400`));
        assert.match(String(err), /VERSION_NOT_SUPPORTED/);
        return true;
      });
    }
    assert.equal(log.length, calls.length);
    for (const r of log) {
      assert.equal(r.status, 400, r.url);
      assert.equal(r.contentType, 'application/a2a+json');
      const body = JSON.parse(r.body) as { error: { code: number; status: string; details: { reason: string; domain: string; metadata: Record<string, string> }[] } };
      assert.equal(body.error.code, 400);
      assert.equal(body.error.status, 'FAILED_PRECONDITION');
      assert.equal(body.error.details[0]?.reason, 'VERSION_NOT_SUPPORTED');
      assert.equal(body.error.details[0]?.domain, 'a2a-protocol.org');
      assert.equal(body.error.details[0]?.metadata.requestedVersion, '0.3');
      assert.equal(body.error.details[0]?.metadata.supportedVersions, '1.0');
    }
    log.length = 0;
    await assert.rejects(t.getExtendedAgentCard(), /HTTP error for \/v1\/card! Status: 404/);
    assert.match(log[0]?.contentType ?? '', JSON_TYPE);
    assert.ok(JSON.parse(log[0]?.body ?? '{}').error);
  });

  test('no 0.3 request produced a 5xx or a non-JSON answer, and 1.0 clients still work', async () => {
    const legacy = f.seen.filter((r) => r.a2aVersion === undefined && r.path !== '/.well-known/agent-card.json');
    assert.ok(legacy.length >= 20);
    for (const r of legacy) {
      assert.ok((r.status ?? 500) < 500, `${r.method} ${r.path} → ${r.status}`);
      assert.match(r.contentType ?? '', JSON_TYPE, `${r.method} ${r.path}`);
    }
    const client = await sdkClient(f, 'JSONRPC');
    const task = asTask(await client.sendMessage(userMessage('hi after 0.3')));
    assert.equal(textOf(task.artifacts[0]?.parts), 'hi after 0.3');
  });
});
