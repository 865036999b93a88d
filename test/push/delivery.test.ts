/**
 * Push delivery against real loopback receivers (R11, R12, R13, R23): outage then recovery, a
 * receiver failing every third request, hanging, redirecting, streaming forever, 410 Gone, and
 * signed deliveries checked with the exported verifier.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, ok, send } from '../support/assertions.js';
import { jsonRpcBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import { startReceiver, type ReceiverOptions, type Receiver } from '../support/webhookReceiver.js';
import { isPushStore, type PushStore } from '../../src/server/stores/pushStore.js';
import type { DeliveryReport } from '../../src/push/dispatcher.js';
import { generateWebhookSecret } from '../../src/push/webhookSignature.js';
import { readDelivery } from '../../src/webhooks/index.js';

const FAST = { retry: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 30 }, timeoutMs: 1000, pollIntervalMs: 50 };
const SECRET_TOKEN = 'tok-s3cr3t-value';
const SECRET_CREDENTIALS = 'cr3d-s3cr3t-value';

interface Env {
  server: TestServer;
  reports: DeliveryReport[];
  store: PushStore;
}

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
});

async function env(push: Record<string, unknown> = {}): Promise<Env> {
  const reports: DeliveryReport[] = [];
  const server = await startServer({ handler: { push: { ...FAST, ...push, onDelivery: (r) => reports.push(r) } } });
  closers.push(() => server.close());
  const store = server.handler.requestHandler.store;
  assert.ok(isPushStore(store));
  return { server, reports, store };
}

async function receiver(respond?: ReceiverOptions['respond']): Promise<Receiver> {
  const r = await startReceiver(respond ? { respond } : {});
  closers.push(() => r.close());
  return r;
}

/** Sends `text` with an inline push config to `url`; returns the task id. */
async function sendWithWebhook(e: Env, text: string, url: string): Promise<string> {
  const b = jsonRpcBinding(e.server.jsonRpcUrl);
  const config = { url, token: SECRET_TOKEN, authentication: { scheme: 'Bearer', credentials: SECRET_CREDENTIALS } };
  return ok(await b.call('sendMessage', send(text, {}, { taskPushNotificationConfig: config }))).task.id as string;
}

const seqOf = (r: { headers: Record<string, string | string[] | undefined> }) => Number(r.headers['a2a-event-seq']);

const isAcked = (req: { status: number }) => req.status >= 200 && req.status < 300;

/** The seqs the receiver acknowledged (answered 2xx), in arrival order. */
function acked(r: Receiver): number[] {
  return r.requests.filter(isAcked).map(seqOf);
}

/** Waits until the completed status update was acknowledged. */
async function untilCompleted(r: Receiver, timeoutMs = 15_000): Promise<void> {
  const completed = (req: Receiver['requests'][number]) =>
    isAcked(req) && (req.json as { statusUpdate?: { status: { state: string } } })?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED';
  // Polled: a request's status is known only once the receiver answered it.
  await eventually(async () => (r.requests.some(completed) ? true : undefined), 'the COMPLETED update to be acknowledged', timeoutMs);
}

function assertInOrder(seqs: number[]): void {
  assert.ok(seqs.length >= 3, `several events delivered: ${seqs.join(',')}`);
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), `acknowledged once each, in seq order: ${seqs.join(',')}`);
}

describe('push delivery', () => {
  test('PUSHD-01..03 D1 R13 every event reaches the webhook in order, with its headers', async () => {
    const e = await env();
    const r = await receiver();
    const taskId = await sendWithWebhook(e, 'stream a story', r.url);
    await untilCompleted(r);
    assertInOrder(r.requests.map(seqOf));
    const first = r.requests[0];
    assert.ok(first);
    assert.equal(first.headers['content-type'], 'application/a2a+json');
    assert.equal(first.headers.authorization, `Bearer ${SECRET_CREDENTIALS}`);
    assert.equal(first.headers['x-a2a-notification-token'], SECRET_TOKEN);
    assert.match(String(first.headers['webhook-id']), new RegExp(`^${taskId}\\.1\\.c[0-9a-f-]{36}$`), 'webhook-id <taskId>.<seq>.c<configId>');
    assert.equal(first.headers['a2a-task-id'], taskId);
    assert.deepEqual(Object.keys(first.json as object), ['task'], 'the first delivery is the created task');
    for (const req of r.requests) assert.equal(Object.keys(req.json as object).length, 1, 'PUSHD-02 exactly one member of StreamResponse');
  });

  test('PUSH-08 two configs of one task: each gets every event, under its own webhook-id', async () => {
    const e = await env();
    const r = await receiver();
    const b = jsonRpcBinding(e.server.jsonRpcUrl);
    const taskId = ok(await b.call('sendMessage', send('ask twice'))).task.id as string;
    for (const id of ['cfg.one', 'cfg-two']) ok(await b.call('createTaskPushNotificationConfig', { taskId, id, url: r.url, token: id }));
    ok(await b.call('sendMessage', send('done', { taskId })));
    await eventually(async () => (r.requests.filter(isAcked).length >= 4 ? true : undefined), 'both configs to get the answer and the completion');
    const seen = r.requests.filter(isAcked).map((q) => readDelivery({ headers: q.headers, body: q.body }));
    for (const token of ['cfg.one', 'cfg-two']) {
      const mine = seen.filter((d) => d.token === token);
      assert.ok(mine.length >= 2, `${token} got its deliveries`);
      assert.ok(mine.every((d) => d.configId === token && d.taskId === taskId), `${token}: ${mine.map((d) => d.id).join(' ')}`);
    }
    const ids = seen.map((d) => d.id);
    assert.equal(new Set(ids).size, ids.length, `no two deliveries share a webhook-id: ${ids.join(' ')}`);
  });

  test('R11 receiver down then up: every event delivered, retries share the id, order kept', async () => {
    const e = await env();
    const statusOf = (n: number) => (n <= 6 ? 503 : 200);
    const r = await receiver((_req, n) => statusOf(n));
    await sendWithWebhook(e, 'stream a story', r.url);
    await untilCompleted(r);
    assertInOrder(acked(r));
    const failedIds = r.requests.slice(0, 6).map((q) => q.headers['webhook-id']);
    const ackedIds = new Set(r.requests.filter(isAcked).map((q) => q.headers['webhook-id']));
    for (const id of failedIds) assert.ok(ackedIds.has(id), `the retry of ${String(id)} carries the same id`);
    assert.ok(e.reports.some((x) => x.verdict.action === 'retry'), 'retries were reported');
  });

  test('R13 a receiver failing every third request still ends with seq order intact', async () => {
    const e = await env();
    const statusOf = (n: number) => (n % 3 === 0 ? 500 : 200);
    const r = await receiver((_req, n) => statusOf(n));
    await sendWithWebhook(e, 'stream a story', r.url);
    await untilCompleted(r);
    assertInOrder(acked(r));
  });

  test('R11 410 Gone disables the config: nothing more is sent, Get answers TASK_NOT_FOUND', async () => {
    const e = await env();
    const r = await receiver(() => 410);
    const taskId = await sendWithWebhook(e, 'stream a story', r.url);
    const b = jsonRpcBinding(e.server.jsonRpcUrl);
    await eventually(async () => (e.reports.some((x) => x.verdict.action === 'disable') ? true : undefined), 'the config to be disabled');
    const configs = ok(await b.call('listTaskPushNotificationConfigs', { taskId })).configs as unknown[] | undefined;
    assert.equal(configs?.length ?? 0, 0);
    const seen = r.requests.length;
    await eventually(async () => (ok(await b.call('getTask', { id: taskId })).status.state === 'TASK_STATE_COMPLETED' ? true : undefined), 'the task to complete');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(r.requests.length, seen, 'no delivery after 410');
    assert.equal((await e.store.listDeadLetters('', { taskId })).length, 1);
  });

  test('R12 a hanging receiver times out and, after max attempts, becomes a dead letter', async () => {
    const e = await env({ timeoutMs: 200, retry: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 } });
    const hang = await rawServer((_req, _res) => undefined);
    const taskId = await sendWithWebhook(e, 'hi', hang.url);
    const dead = await eventually(async () => {
      const d = await e.store.listDeadLetters('', { taskId });
      return d.length > 0 ? d : undefined;
    }, 'a dead letter');
    assert.match(dead[0]?.error ?? '', /did not answer in time/);
    assert.equal(dead[0]?.attempts, 2);
  });

  /**
   * Sends 40 tasks pushing to `hungUrls` (cycled), then one to a healthy receiver on another
   * address (127.0.0.1; the hung ones are on 127.0.0.2), and checks the healthy one was served
   * before any attempt on the hung ones ended (they time out after 8 s).
   */
  async function healthyServedFirst(e: Env, hungUrls: string[]): Promise<void> {
    // More heads of line for the hanging side than the dispatcher claims at once (32).
    for (let i = 0; i < 40; i++) await sendWithWebhook(e, 'hi', hungUrls[i % hungUrls.length] as string);
    const r = await receiver();
    const started = Date.now();
    await sendWithWebhook(e, 'stream a story', r.url);
    await untilCompleted(r);
    const healthy = new URL(r.url).host;
    const hungOutcomes = e.reports.filter((x) => new URL(x.url).host !== healthy);
    assert.deepEqual(hungOutcomes, [], 'the healthy host was served before any attempt on the hanging side ended');
    assert.ok(Date.now() - started < 4000, `the healthy host was served promptly (${Date.now() - started} ms)`);
    assertInOrder(r.requests.map(seqOf));
  }

  const SLOW_HANG = { timeoutMs: 8000, retry: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 } };

  test('R12 a hanging webhook host does not hold up deliveries to other hosts', async () => {
    const e = await env(SLOW_HANG);
    const hang = await rawServer((_req, _res) => undefined, '127.0.0.2');
    // Before R12 was kept this way, the claimed deliveries of the hanging host waited for its
    // four slots while holding every claim, so the healthy host waited for their timeouts.
    await healthyServedFirst(e, [hang.url]);
  });

  test('R12 one host on 40 ports is one host: its hanging ports do not hold up other hosts', async () => {
    // The address cap, which would catch this too, is lifted: the host name alone must.
    const e = await env({ ...SLOW_HANG, perAddressConcurrency: 32 });
    const ports: string[] = [];
    for (let i = 0; i < 40; i++) ports.push((await rawServer((_req, _res) => undefined, '127.0.0.2')).url);
    // Before, the cap was per host:port: 40 ports took all 32 delivery slots.
    await healthyServedFirst(e, ports);
  });

  test('R12 40 names resolving to one address share its slots: they do not hold up other hosts', async () => {
    const lookup = async (hostname: string) => {
      assert.match(hostname, /^h\d+\.hang\.test$/);
      return [{ address: '127.0.0.2', family: 4 as const }];
    };
    const e = await env({ ...SLOW_HANG, lookup });
    const hang = new URL((await rawServer((_req, _res) => undefined, '127.0.0.2')).url);
    const names = Array.from({ length: 40 }, (_, i) => {
      const url = new URL(hang);
      url.hostname = `h${i}.hang.test`;
      return url.href;
    });
    // Before, each name had its own four slots (wildcard DNS: a1.evil.example, a2…).
    await healthyServedFirst(e, names);
  });

  test('R11 a failed DNS lookup (EAI_AGAIN) is retried like a network error, not dead-lettered', async () => {
    let failures = 0;
    const lookup = async (hostname: string) => {
      if (hostname === 'flaky-dns.test' && failures++ < 2) throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
      return [{ address: '127.0.0.1', family: 4 as const }];
    };
    const e = await env({ lookup });
    const r = await receiver();
    const url = new URL(r.url);
    url.hostname = 'flaky-dns.test';
    const taskId = await sendWithWebhook(e, 'stream a story', url.href);
    await untilCompleted(r);
    assertInOrder(acked(r));
    assert.deepEqual(await e.store.listDeadLetters('', { taskId }), []);
    const retried = e.reports.filter((x) => x.verdict.action === 'retry');
    assert.equal(retried.length, 2, 'the two failed lookups were retries');
    assert.match(JSON.stringify(retried[0]?.verdict), /EAI_AGAIN/);
  });

  test('R12 R14 a redirect is not followed: the target sees nothing and the delivery is dead', async () => {
    const e = await env();
    const target = await receiver();
    const redirect = await rawServer((_req, res) => {
      res.writeHead(302, { location: target.url }).end();
    });
    const taskId = await sendWithWebhook(e, 'hi', redirect.url);
    const dead = await eventually(async () => {
      const d = await e.store.listDeadLetters('', { taskId });
      return d.length > 0 ? d : undefined;
    }, 'a dead letter');
    assert.match(dead[0]?.error ?? '', /HTTP 302/);
    assert.equal(target.requests.length, 0);
  });

  test('PUSHD-05 a 2xx whose body never ends is delivered once: not timed out, not retried', async () => {
    const e = await env({ timeoutMs: 500 });
    const ids: string[] = [];
    const hanging = await rawServer((req, res) => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'); // and never ends
    });
    const taskId = await sendWithWebhook(e, 'stream a story', hanging.url);
    await eventually(async () => (e.reports.some((x) => x.verdict.action === 'complete' && x.seq >= 5) ? true : undefined), 'the last events to be delivered');
    await new Promise((resolve) => setTimeout(resolve, 700)); // longer than the timeout: a retry would show
    assert.deepEqual(
      e.reports.map((x) => x.verdict.action),
      e.reports.map(() => 'complete'),
      JSON.stringify(e.reports.map((x) => x.verdict)),
    );
    assert.equal(new Set(ids).size, ids.length, `each event sent once: ${ids.join(' ')}`);
    assert.deepEqual(
      e.reports.map((x) => x.seq),
      e.reports.map((_, i) => i + 1),
    );
    assert.deepEqual(await e.store.listDeadLetters('', { taskId }), []);
  });

  test('R12 a receiver streaming forever counts as acknowledged (its status decides, its body is not read)', async () => {
    const e = await env();
    let served = 0;
    const endless = await rawServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(512);
      const timer = setInterval(() => res.write(chunk), 1);
      res.on('close', () => clearInterval(timer));
    });
    await sendWithWebhook(e, 'hi', endless.url);
    await eventually(async () => (e.reports.filter((x) => x.verdict.action === 'complete').length >= 3 ? true : undefined), 'deliveries to complete');
    assert.ok(served >= 3);
  });

  test('signed deliveries verify with the exported verifier, also across a key rotation', async () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const e = await env({ signingSecrets: [newSecret, oldSecret] });
    const r = await receiver();
    const taskId = await sendWithWebhook(e, 'hi', r.url);
    await untilCompleted(r);
    for (const req of r.requests) {
      for (const secrets of [[oldSecret], [newSecret]]) {
        const d = readDelivery({ headers: req.headers, body: req.body, secrets });
        assert.equal(d.taskId, taskId);
        assert.equal(d.verified, true);
      }
      assert.throws(() => readDelivery({ headers: req.headers, body: req.body, secrets: [generateWebhookSecret()] }));
    }
  });

  test('R23 push secrets, the capability path of the URL included, never reach reports or server errors', async () => {
    const e = await env();
    const r = await receiver((_req, n) => (n <= 2 ? 500 : 200));
    const pathSecret = 'p4th-s3cr3t-value';
    await sendWithWebhook(e, 'hi', `${r.url}/services/T0/B0/${pathSecret}?q=qu3ry-s3cr3t`);
    await untilCompleted(r);
    const text = JSON.stringify(e.reports) + e.server.errors.map(String).join('\n');
    assert.doesNotMatch(text, new RegExp(`${SECRET_TOKEN}|${SECRET_CREDENTIALS}|${pathSecret}|qu3ry-s3cr3t`));
    assert.ok(e.reports.length >= 3);
    for (const report of e.reports) assert.equal(report.url, `${new URL(r.url).origin}/…`);
  });
});

async function rawServer(handler: Parameters<typeof createServer>[1], host = '127.0.0.1'): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://${host}:${(server.address() as AddressInfo).port}/hook`, server };
}
