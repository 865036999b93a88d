/**
 * R25 abuse limits through the request handler: exceeding a limit answers RESOURCE_EXHAUSTED for
 * that caller only — request rate per principal (anonymous callers by address), open streams per
 * principal, tasks run at once per context — and failed authentications per remote address (SEC-06).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import { A2AError } from '../../src/protocol/errors.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { AbuseLimits, type AbuseLimitOptions } from '../../src/server/abuseLimits.js';
import { AuthError } from '../../src/auth/authErrors.js';
import { startSecured } from '../auth/support.js';
import { startServe } from '../cli/cliHelpers.js';
import { callAs, testCard } from './support.js';

const card = testCard('limited');
const as = callAs;
const handler = (abuseLimits: AbuseLimitOptions) => new A2ARequestHandler({ agentCard: card, executor: createDemoAgent({ slowMs: 5000, tickMs: 1000 }), abuseLimits });
const msg = (text: string, extra: object = {}) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } });

async function reasonOf(p: Promise<unknown>): Promise<{ reason: string; metadata: Record<string, string> } | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    assert.ok(A2AError.is(error), String(error));
    return { reason: error.reason, metadata: error.metadata };
  }
}

test('R25 request rate per principal: the burst passes, the next is RESOURCE_EXHAUSTED with retryAfterMs; others unaffected', async () => {
  const h = handler({ requestsPerSecond: 1, requestBurst: 3 });
  for (let i = 0; i < 3; i++) assert.equal(await reasonOf(h.unary('listTasks', {}, as('alice'))), 'ok');
  const refused = await reasonOf(h.unary('listTasks', {}, as('alice')));
  assert.ok(refused !== 'ok');
  assert.equal(refused.reason, 'RESOURCE_EXHAUSTED');
  assert.equal(refused.metadata.limit, 'requests');
  assert.ok(Number(refused.metadata.retryAfterMs) > 0);
  assert.equal(await reasonOf(h.unary('listTasks', {}, as('bob'))), 'ok', 'another principal is not limited');
  // Anonymous callers are told apart by address.
  for (let i = 0; i < 3; i++) assert.equal(await reasonOf(h.unary('listTasks', {}, as(undefined, '10.0.0.1'))), 'ok');
  assert.notEqual(await reasonOf(h.unary('listTasks', {}, as(undefined, '10.0.0.1'))), 'ok');
  assert.equal(await reasonOf(h.unary('listTasks', {}, as(undefined, '10.0.0.2'))), 'ok');
  await h.drain(0);
});

test('R25 open streams per principal: the limit holds while streams are open and frees when they end', async () => {
  const h = handler({ maxStreamsPerCaller: 2 });
  const res = await h.unary('sendMessage', { ...msg('slow work'), configuration: { returnImmediately: true } }, as('alice'));
  assert.ok('task' in res);
  const open = [await h.stream('subscribeToTask', { id: res.task.id }, as('alice')), await h.stream('subscribeToTask', { id: res.task.id }, as('alice'))];
  const iterators = open.map((s) => s[Symbol.asyncIterator]());
  for (const it of iterators) await it.next();
  const third = await reasonOf(h.stream('subscribeToTask', { id: res.task.id }, as('alice')));
  assert.ok(third !== 'ok' && third.reason === 'RESOURCE_EXHAUSTED' && third.metadata.limit === 'streams');
  await iterators[0]?.return?.(undefined);
  const again = await h.stream('subscribeToTask', { id: res.task.id }, as('alice'));
  await again[Symbol.asyncIterator]().return?.(undefined);
  await iterators[1]?.return?.(undefined);
  await h.unary('cancelTask', { id: res.task.id }, as('alice'));
  await h.drain(0);
});

test('R25 tasks run at once per context', async () => {
  const h = handler({ maxActiveTasksPerContext: 1 });
  const contextId = crypto.randomUUID();
  const first = await h.unary('sendMessage', { ...msg('slow one', { contextId }), configuration: { returnImmediately: true } }, as('alice'));
  assert.ok('task' in first);
  const second = await reasonOf(h.unary('sendMessage', { ...msg('slow two', { contextId }), configuration: { returnImmediately: true } }, as('alice')));
  assert.ok(second !== 'ok' && second.reason === 'RESOURCE_EXHAUSTED' && second.metadata.limit === 'tasksPerContext');
  assert.equal(await reasonOf(h.unary('sendMessage', { ...msg('hi'), configuration: { returnImmediately: true } }, as('alice'))), 'ok', 'another context is free');
  await h.unary('cancelTask', { id: first.task.id }, as('alice'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await reasonOf(h.unary('sendMessage', { ...msg('hi again', { contextId }) }, as('alice'))), 'ok', 'the slot frees when the run ends');
  await h.drain(0);
});

test('R25 a2a serve --rate-limit answers RESOURCE_EXHAUSTED past the burst (JSON-RPC and REST with 429)', async () => {
  const { proc, urls } = await startServe(['--rate-limit', '1']);
  try {
    const rpc = async () => {
      const res = await fetch(urls.jsonrpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: { data?: Array<{ reason?: string }> } } };
    };
    assert.equal((await rpc()).body.error, undefined);
    assert.equal((await rpc()).body.error, undefined);
    const refused = await rpc();
    assert.equal(refused.body.error?.data?.find((d) => d.reason)?.reason, 'RESOURCE_EXHAUSTED');
    assert.equal(refused.status, 429, 'JSON-RPC answers an exceeded limit with HTTP 429 too');
    assert.match(refused.retryAfter ?? '', /^\d+$/);
    const rest = await fetch(`${urls.rest}/tasks`, { headers: { 'a2a-version': '1.0' } });
    assert.equal(rest.status, 429);
    assert.match(rest.headers.get('retry-after') ?? '', /^\d+$/);
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
});

test('SEC-06 failed authentications are charged to the address: past the burst RESOURCE_EXHAUSTED, and no more credentials are evaluated (JSON-RPC, REST, gRPC)', async () => {
  for (const index of [0, 1, 2]) {
    let evaluated = 0;
    const server = await startSecured({
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
      securityRequirements: [{ schemes: { key: {} } }],
      auth: { schemes: { key: { verify: () => void evaluated++ } } },
      serve: { handler: { abuseLimits: { requestsPerSecond: 0.01, requestBurst: 2 } } },
    });
    const b = server.bindings[index]!;
    try {
      const reasons: string[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await b.call('getTask', { id: `t-${i}` }, { headers: { 'X-Api-Key': `wrong-${i}` } });
        assert.equal(r.ok, false);
        if (r.ok) continue;
        reasons.push(r.error.reason);
        if (r.error.reason !== 'RESOURCE_EXHAUSTED') continue;
        assert.equal(r.error.metadata.limit, 'requests', b.name);
        assert.ok(Number(r.error.metadata.retryAfterMs) > 0, b.name);
        if (b.name === 'GRPC') assert.equal(r.error.grpcStatus, 'RESOURCE_EXHAUSTED');
        else {
          assert.equal(r.status, 429, `${b.name}: HTTP status`);
          assert.match(r.headers.get('retry-after') ?? '', /^\d+$/, `${b.name}: Retry-After`);
        }
      }
      assert.deepEqual(reasons.slice(0, 2), ['UNAUTHENTICATED', 'UNAUTHENTICATED'], b.name);
      assert.deepEqual(new Set(reasons.slice(2)), new Set(['RESOURCE_EXHAUSTED']), b.name);
      assert.equal(evaluated, 2, `${b.name}: credentials are evaluated only while the budget lasts`);
      assert.equal(server.failures.length, 2, b.name);
    } finally {
      await server.close();
    }
  }
});

test('SEC-06 guardAuthentication: an accepted or anonymous authentication costs nothing; concurrent failures cannot outrun the bucket', async () => {
  const limits = new AbuseLimits({ requestsPerSecond: 0.01, requestBurst: 3 });
  const ctx = as(undefined, '10.9.9.9');
  const fail = () => Promise.reject(new AuthError({ reason: 'UNAUTHENTICATED', message: 'no', challenges: [] }));
  for (let i = 0; i < 10; i++) assert.equal(await limits.guardAuthentication(ctx, async () => 'alice'), 'alice');
  // Ten guesses at once: three are evaluated (and fail), the rest are refused before evaluation.
  let evaluated = 0;
  const outcomes = await Promise.all(Array.from({ length: 10 }, () => reasonOf(limits.guardAuthentication(ctx, () => (evaluated++, fail())))));
  assert.equal(evaluated, 3);
  assert.deepEqual(outcomes.map((o) => (o === 'ok' ? o : o.reason)).sort(), [...Array(7).fill('RESOURCE_EXHAUSTED'), ...Array(3).fill('UNAUTHENTICATED')]);
  // The bucket is spent for that address, whatever it presents next; another address is not limited.
  assert.notEqual(await reasonOf(limits.guardAuthentication(ctx, async () => undefined)), 'ok');
  assert.equal(await limits.guardAuthentication(as(undefined, '10.9.9.7'), async () => 'bob'), 'bob');
});

test('R25 the request rate is the caller\'s across tenants: naming a new tenant per request is no fresh budget; malformed requests count too', async () => {
  const h = handler({ requestsPerSecond: 0.01, requestBurst: 2 });
  const caller = as(undefined, '10.0.0.9');
  const outcomes: Awaited<ReturnType<typeof reasonOf>>[] = [];
  for (let i = 0; i < 4; i++) outcomes.push(await reasonOf(h.unary('listTasks', { tenant: `made-up-${i}` }, caller)));
  assert.deepEqual(
    outcomes.map((o) => (o === 'ok' ? o : o.reason)),
    ['ok', 'ok', 'RESOURCE_EXHAUSTED', 'RESOURCE_EXHAUSTED'],
  );
  const other = as(undefined, '10.0.0.10');
  assert.equal((await reasonOf(h.unary('listTasks', { pageSize: 'many' }, other))) !== 'ok', true);
  assert.equal((await reasonOf(h.unary('listTasks', { pageSize: 'many' }, other))) !== 'ok', true);
  const third = await reasonOf(h.unary('listTasks', {}, other));
  assert.ok(third !== 'ok' && third.reason === 'RESOURCE_EXHAUSTED', 'two malformed requests spent the burst');
  await h.drain(0);
});

test('R25 routes of the application count against the remote address\'s request rate (429 with Retry-After), and A2A calls share that budget', async () => {
  const { serveAgent } = await import('../../src/node/serveAgent.js');
  const running = await serveAgent({
    agent: { card: testCard('routes'), executor: createDemoAgent() },
    port: 0,
    handler: { abuseLimits: { requestsPerSecond: 0.01, requestBurst: 3 } },
    routes: [{ method: 'POST', path: '/hook', handle: () => ({ status: 204, headers: {}, body: '' }) }],
  });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${running.url}/hook`, { method: 'POST', body: '{}' })).status);
    const refused = await fetch(`${running.url}/hook`, { method: 'POST', body: '{}' });
    statuses.push(refused.status);
    assert.deepEqual(statuses, [204, 204, 204, 429]);
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(((await refused.json()) as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
    const a2a = await fetch(`${running.url}/a2a/rest/tasks`, { headers: { 'a2a-version': '1.0' } });
    assert.equal(a2a.status, 429, 'the same address is out of budget for A2A calls too');
  } finally {
    await running.close();
  }
});
