/**
 * R25 / SEC-06 behind a load balancer, where every client comes from one address. The health
 * probes and /metrics are never charged to that address's request budget, so a key guesser
 * cannot take the instance out of rotation (/readyz) or get it restarted (/healthz). With
 * `trustProxy`, the client address is the rightmost X-Forwarded-For hop (gRPC: x-forwarded-for
 * metadata) that is not a trusted proxy — believed only on connections from a trusted proxy —
 * so the guesser spends its own budget only; the abuse limits, onCall and the access log all
 * see that address. Real servers on loopback, the balancer played by the test (127.0.0.1).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TrustedProxies } from '../../src/net/trustedProxies.js';
import type { CallRecord } from '../../src/server/callObserver.js';
import { startSecured, type SecuredAgent } from '../auth/support.js';
import { request } from '../node/helpers.js';
import { runA2A, runToExit } from '../cli/cliHelpers.js';

const KEY = 'valid-key-0123456789';
const BAD = 'guessed-key-0000';

const agents: SecuredAgent[] = [];
after(async () => {
  await Promise.all(agents.map((a) => a.close()));
});

/** An agent asking for an API key (X-API-Key), 5 requests per address then (practically) none. */
async function start(trustProxy?: string[]): Promise<{ secured: SecuredAgent; calls: CallRecord[] }> {
  const calls: CallRecord[] = [];
  const secured = await startSecured({
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
    securityRequirements: [{ schemes: { key: {} } }],
    auth: { schemes: { key: { keys: { [KEY]: 'alice' } } } },
    serve: {
      metrics: true,
      ...(trustProxy ? { trustProxy } : {}),
      handler: { abuseLimits: { requestsPerSecond: 0.01, requestBurst: 5 }, onCall: (c) => void calls.push(c) },
    },
  });
  agents.push(secured);
  return { secured, calls };
}

const getTask = (url: string, key: string, forwardedFor?: string) =>
  request(`${url}/a2a/rest/tasks/nope`, { headers: { 'x-api-key': key, ...(forwardedFor !== undefined ? { 'x-forwarded-for': forwardedFor } : {}) } });

/** Bad-key requests until the address's budget is spent (429). */
async function spend(url: string, forwardedFor?: string): Promise<void> {
  for (let i = 0; i < 20; i++) if ((await getTask(url, BAD, forwardedFor)).status === 429) return;
  assert.fail('the budget was never spent');
}

describe('R25 SEC-06 one address for every client (a load balancer)', () => {
  test('R25 a key guesser spends the address budget: /healthz, /readyz and /metrics still answer 200 (without trustProxy, valid keys from the address wait: one bucket)', async () => {
    const { secured } = await start();
    const url = secured.agent.url;
    await spend(url);
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      for (let i = 0; i < 3; i++) assert.equal((await request(url + path)).status, 200, path);
    }
    assert.equal((await getTask(url, KEY)).status, 429, 'a shared address is one caller');
    assert.equal((await getTask(url, KEY, '203.0.113.7')).status, 429, 'X-Forwarded-For is not believed without trustProxy');
  });

  test('R25 SEC-06 trustProxy: the guesser behind the balancer spends its own budget; other clients, probes and spoofed chains', async () => {
    const { secured, calls } = await start(['127.0.0.1']);
    const url = secured.agent.url;
    await spend(url, '203.0.113.66');
    assert.equal((await getTask(url, BAD, '203.0.113.66')).status, 429);
    // Prepending addresses does not help: the rightmost untrusted hop is still the guesser's.
    assert.equal((await getTask(url, BAD, '198.51.100.1, 203.0.113.66')).status, 429, 'a spoofed prefix');
    assert.equal((await getTask(url, BAD, '198.51.100.2, 203.0.113.66, 127.0.0.1')).status, 429, 'through a second trusted proxy');
    // Another client behind the same balancer: its key is evaluated (404: no such task).
    assert.equal((await getTask(url, KEY, '203.0.113.7')).status, 404);
    assert.equal((await getTask(url, BAD, '203.0.113.8')).status, 401, 'another client, its own budget');
    for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal((await request(url + path)).status, 200, path);
    const mine = calls.filter((c) => c.principal === 'alice');
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.remoteAddress, '203.0.113.7', 'onCall (and so the access log) sees the resolved address');
  });

  test('R25 SEC-06 trustProxy over gRPC: x-forwarded-for metadata from a trusted peer is the client address', async () => {
    const { secured, calls } = await start(['127.0.0.1', '::1']);
    const grpc = secured.bindings.find((b) => b.name === 'GRPC');
    assert.ok(grpc);
    const r = await grpc.call('getTask', { id: 'nope' }, { headers: { 'x-api-key': KEY, 'x-forwarded-for': '198.51.100.1, 203.0.113.9' } });
    assert.equal(r.ok, false);
    assert.equal(calls.at(-1)?.binding, 'GRPC');
    assert.equal(calls.at(-1)?.remoteAddress, '203.0.113.9');
  });
});

describe('R25 TrustedProxies', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);

  test('R25 a connection from an untrusted address is its own client, whatever it sends', () => {
    assert.equal(proxies.clientAddress('203.0.113.1', '198.51.100.1'), '203.0.113.1');
    assert.equal(proxies.clientAddress('192.0.2.8', '198.51.100.1'), '192.0.2.8');
    assert.equal(proxies.clientAddress(undefined, '198.51.100.1'), undefined);
  });

  test('R25 from a trusted proxy: the rightmost untrusted hop; all trusted: the leftmost; none or garbage: the last trusted', () => {
    assert.equal(proxies.clientAddress('10.1.2.3', '203.0.113.5'), '203.0.113.5');
    assert.equal(proxies.clientAddress('10.1.2.3', '1.1.1.1, 203.0.113.5'), '203.0.113.5');
    assert.equal(proxies.clientAddress('10.1.2.3', '1.1.1.1, 203.0.113.5, 10.9.9.9, 192.0.2.7'), '203.0.113.5');
    assert.equal(proxies.clientAddress('10.1.2.3', '10.0.0.9, 10.0.0.8'), '10.0.0.9');
    assert.equal(proxies.clientAddress('10.1.2.3', undefined), '10.1.2.3');
    assert.equal(proxies.clientAddress('10.1.2.3', ''), '10.1.2.3');
    assert.equal(proxies.clientAddress('10.1.2.3', '203.0.113.5, unknown'), '10.1.2.3');
    assert.equal(proxies.clientAddress('10.1.2.3', 'unknown, 10.0.0.4'), '10.0.0.4');
  });

  test('R25 address forms: ::ffff:-mapped IPv4, IPv6 ranges, ports and brackets, quotes', () => {
    assert.equal(proxies.clientAddress('::ffff:10.1.2.3', '203.0.113.5'), '203.0.113.5');
    assert.equal(proxies.clientAddress('fd12::1', '[2001:db8::1]:4711'), '2001:db8::1');
    assert.equal(proxies.clientAddress('10.1.2.3', '203.0.113.5:5555, "::ffff:10.0.0.2"'), '203.0.113.5');
    assert.equal(proxies.clientAddress('fe80::1', '203.0.113.5'), 'fe80::1');
  });

  test('R25 malformed entries are refused at construction', () => {
    for (const entry of ['10.0.0.0/33', 'fd00::/129', 'proxy.internal', '10.0.0.0/', '10.0.0.0/x', '']) {
      assert.throws(() => new TrustedProxies([entry]), /trustProxy: .* is not an IP address or CIDR range/, entry);
    }
  });
});

describe('R25 a2a serve --trust-proxy', () => {
  test('R25 malformed → exit 2, one line; with --access-log, remote_address is the forwarded client', { timeout: 60_000 }, async () => {
    const bad = await runToExit(['serve', '--store', 'memory', '--port', '0', '--trust-proxy', '10.0.0.0/8,nope']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^a2a serve: --trust-proxy: "nope" is not an IP address or CIDR range/);
    const proc = runA2A(['serve', '--store', 'memory', '--port', '0', '--json', '--access-log', '--rate-limit', '20', '--trust-proxy', '127.0.0.1', '--trust-proxy', '::1']);
    try {
      const { rest } = JSON.parse(await proc.waitForLine(/^\{"/)) as { rest: string };
      const res = await request(`${rest}/tasks/nope`, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.42' } });
      assert.equal(res.status, 404);
      const line = await proc.waitForLine(/"operation":"getTask"/);
      assert.equal((JSON.parse(line) as { remote_address: string }).remote_address, '203.0.113.42');
    } finally {
      proc.kill();
    }
  });
});
