/**
 * Receiving push notifications in an agent's own process (PUSHD-05, PUSHD-07): an agent with
 * signed push delivers to a second serveAgent that mounts `webhookHandler()` on a route of its
 * own (`serveAgent({ routes })`), over real loopback sockets (the private-webhooks opt-in).
 * Signed deliveries are handed to onDelivery once each; forged, unauthenticated, malformed,
 * oversized and non-POST requests are refused with the status the sender and docs/push.md expect.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import { generateWebhookSecret, signWebhook } from '../../src/push/webhookSignature.js';
import { readDelivery, webhookHandler, WEBHOOK_HEADERS, type WebhookDelivery } from '../../src/webhooks/index.js';
import { eventually, ok, send } from '../support/assertions.js';
import { jsonRpcBinding } from '../support/bindings.js';

const SECRET = generateWebhookSecret();
const TOKEN = 'receiver-token-1';
const PATH = '/webhooks/a2a';
const FAST = { retry: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 30 }, timeoutMs: 2000, pollIntervalMs: 50 };

const demo = { card: demoCard(), executor: createDemoAgent({ slowMs: 300, tickMs: 50 }) };
const received: WebhookDelivery[] = [];
const refusals: string[] = [];
let sender: RunningAgent;
let receiver: RunningAgent;

before(async () => {
  receiver = await serveAgent({
    agent: demo,
    port: 0,
    handler: { maxBodyBytes: 64 * 1024 },
    routes: [
      {
        method: 'POST',
        path: PATH,
        handle: webhookHandler({
          secrets: [SECRET],
          token: TOKEN,
          onDelivery: (delivery) => void received.push(delivery),
          onRefusal: (refusal) => void refusals.push(`${refusal.status} ${refusal.message}`),
        }),
      },
    ],
  });
  sender = await serveAgent({
    agent: demo,
    port: 0,
    // Loopback webhooks need the documented opt-in (docs/push.md, SSRF guard).
    handler: { push: { ...FAST, signingSecrets: [SECRET], allowPrivateWebhooks: true } },
  });
});

after(async () => {
  await Promise.all([sender?.close(), receiver?.close()]);
});

const webhookUrl = () => `${receiver.url}${PATH}`;
const completed = (d: WebhookDelivery) => 'statusUpdate' in d.event && d.event.statusUpdate.status.state === 'TASK_STATE_COMPLETED';

/** A delivery as the sender would make it, signed with `secret`. */
function signed(body: string, options: { id?: string; secret?: string; token?: string } = {}): RequestInit {
  const id = options.id ?? `task-x.1.cfg`;
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/a2a+json',
      [WEBHOOK_HEADERS.id]: id,
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signature]: signWebhook({ id, timestamp, body, secrets: [options.secret ?? SECRET] }),
      ...(options.token === '' ? {} : { [WEBHOOK_HEADERS.token]: options.token ?? TOKEN }),
    },
    body,
  };
}

const statusEvent = (taskId: string) =>
  JSON.stringify({ statusUpdate: { taskId, contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } });

describe('webhookHandler on a serveAgent route', () => {
  test('PUSHD-05 PUSHD-07 signed deliveries of a real agent reach onDelivery, verified, once each, in order', async () => {
    const b = jsonRpcBinding(`${sender.url}/a2a/jsonrpc`);
    const config = { url: webhookUrl(), token: TOKEN };
    const taskId = ok(await b.call('sendMessage', send('stream one two three', {}, { taskPushNotificationConfig: config }))).task.id as string;
    await eventually(async () => (received.some((d) => d.taskId === taskId && completed(d)) ? true : undefined), 'the completed update to be received', 15_000);
    const mine = received.filter((d) => d.taskId === taskId);
    assert.ok(mine.length >= 3, `several events: ${mine.map((d) => d.seq).join(',')}`);
    assert.deepEqual(mine.map((d) => d.seq), mine.map((_, i) => i + 1), 'each event once, in seq order');
    assert.ok(mine.every((d) => d.verified && d.token === TOKEN), 'signature checked, token carried');
    assert.deepEqual(Object.keys(mine[0]?.event ?? {}), ['task'], 'the first event is the created task');
    assert.deepEqual(refusals, [], 'nothing the real sender sent was refused');
  });

  test('PUSHD-07 a forged delivery (signed with another secret) is refused 401 and never handed over', async () => {
    const before = received.length;
    const res = await fetch(webhookUrl(), signed(statusEvent('forged-1'), { id: 'forged-1.1.cx', secret: generateWebhookSecret() }));
    assert.equal(res.status, 401);
    assert.match(await res.text(), /bad-signature/);
    const unsigned = await fetch(webhookUrl(), { method: 'POST', headers: { [WEBHOOK_HEADERS.token]: TOKEN }, body: statusEvent('forged-2') });
    assert.equal(unsigned.status, 401, 'no signature at all');
    assert.equal(received.length, before);
    assert.ok(refusals.some((r) => r.startsWith('401 bad-signature')), refusals.join('\n'));
  });

  test('PUSHD-07 a signed delivery without the expected token is refused 401', async () => {
    const missing = await fetch(webhookUrl(), signed(statusEvent('t-1'), { id: 't-1.1.cx', token: '' }));
    assert.equal(missing.status, 401);
    const wrong = await fetch(webhookUrl(), signed(statusEvent('t-1'), { id: 't-1.1.cx', token: 'guess' }));
    assert.equal(wrong.status, 401);
    assert.ok(!received.some((d) => d.taskId === 't-1'));
  });

  test('PUSHD-02 a signed body that is not a StreamResponse is refused 400', async () => {
    const res = await fetch(webhookUrl(), signed(JSON.stringify({ hello: 'world' }), { id: 'b-1.1.cx' }));
    assert.equal(res.status, 400);
    assert.match(await res.text(), /bad-body/);
  });

  test('PUSHD-07 a retry of a handled webhook-id is answered 204 and not handed over twice', async () => {
    const body = statusEvent('dup-1');
    const first = await fetch(webhookUrl(), signed(body, { id: 'dup-1.1.cx' }));
    const retry = await fetch(webhookUrl(), signed(body, { id: 'dup-1.1.cx' }));
    assert.deepEqual([first.status, retry.status], [204, 204]);
    assert.equal(received.filter((d) => d.id === 'dup-1.1.cx').length, 1);
  });

  test('R15 the route answers 405 to another method and 413 past the server maxBodyBytes', async () => {
    const get = await fetch(webhookUrl());
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const big = JSON.stringify({ statusUpdate: { taskId: 'big', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { pad: 'x'.repeat(100 * 1024) } } });
    const res = await fetch(webhookUrl(), signed(big, { id: 'big.1.cx' }));
    assert.equal(res.status, 413, 'handler.maxBodyBytes (64 KiB) caps the route below webhookHandler’s own 1 MiB');
  });

  test('the card and the A2A bindings keep their paths; other paths are still 404', async () => {
    assert.equal((await fetch(`${receiver.url}/.well-known/agent-card.json`)).status, 200);
    const rpc = jsonRpcBinding(`${receiver.url}/a2a/jsonrpc`);
    assert.ok(ok(await rpc.call('sendMessage', send('msg hi'))));
    assert.equal((await fetch(`${receiver.url}/webhooks/other`, { method: 'POST' })).status, 404);
  });

  test('a route on a path of the agent, or a webhookHandler that checks nothing, is refused at construction', async () => {
    await assert.rejects(
      serveAgent({ agent: demo, port: 0, routes: [{ path: '/a2a/jsonrpc', handle: () => ({ status: 204, headers: {} }) }] }),
      /\/a2a\/jsonrpc is a path of the agent/,
    );
    await assert.rejects(
      serveAgent({ agent: demo, port: 0, routes: [{ path: '/a2a/rest/hook', handle: () => ({ status: 204, headers: {} }) }] }),
      /is a path of the agent/,
    );
    assert.throws(() => webhookHandler({ onDelivery: () => undefined }), /secrets, token or authorization/);
    assert.throws(() => webhookHandler({ secrets: ['nope'], onDelivery: () => undefined }), /secrets\[0\]/);
  });

  test('PUSHD-05 onDelivery failing answers 500, so the sender retries; the retry is handed over again', async () => {
    let calls = 0;
    const flaky = await serveAgent({
      agent: demo,
      port: 0,
      onError: () => undefined,
      routes: [
        {
          method: 'POST',
          path: PATH,
          handle: webhookHandler({
            secrets: [SECRET],
            onDelivery: () => {
              calls++;
              if (calls === 1) throw new Error('database down');
            },
          }),
        },
      ],
    });
    try {
      const body = statusEvent('flaky-1');
      const first = await fetch(`${flaky.url}${PATH}`, signed(body, { id: 'flaky-1.1.cx' }));
      const retry = await fetch(`${flaky.url}${PATH}`, signed(body, { id: 'flaky-1.1.cx' }));
      assert.deepEqual([first.status, retry.status, calls], [500, 204, 2]);
    } finally {
      await flaky.close();
    }
  });

  test('readDelivery reads the headers of an HttpRequest (a header(name) getter) directly', () => {
    const init = signed(statusEvent('getter-1'), { id: 'getter-1.1.cx' });
    const headers = init.headers as Record<string, string>;
    const request = { header: (name: string) => headers[name] };
    const delivery = readDelivery({ headers: request, body: init.body as string, secrets: [SECRET] });
    assert.deepEqual([delivery.id, delivery.taskId, delivery.verified, delivery.token], ['getter-1.1.cx', 'getter-1', true, TOKEN]);
  });
});
