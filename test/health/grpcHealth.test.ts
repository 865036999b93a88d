/**
 * The gRPC health checking protocol (OPS-HEALTH; grpc/doc/health-checking.md) on `serveAgent`'s
 * gRPC port, called by a generic client built only from the standard health.proto (written out
 * here) with @grpc/proto-loader: Check for "" and lf.a2a.v1.A2AService, NOT_FOUND for another
 * name; Watch sends SERVING, NOT_SERVING as soon as graceful shutdown starts (a long task keeping
 * the server draining), and ends at shutdown; SERVICE_UNKNOWN for an unknown name.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { credentials, loadPackageDefinition, status as grpcStatus, type Client, type ClientReadableStream, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { serveAgent, type RunningAgent, type ServeAgentOptions } from '../../src/node/serveAgent.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { StoreUnavailableError } from '../../src/protocol/errors.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { testCard } from '../server/support.js';
import { request, rpcBody, userMessage } from '../node/helpers.js';
import { heldAgent } from './support.js';

/** grpc/src/proto/grpc/health/v1/health.proto, as published. */
const HEALTH_PROTO = `
syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse {
  enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
  ServingStatus status = 1;
}
service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}
`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type HealthClient = Client & Record<string, any>;
let Health: ServiceClientConstructor;
let dir: string;
const servers: RunningAgent[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'health-proto-'));
  writeFileSync(join(dir, 'health.proto'), HEALTH_PROTO);
  const definition = protoLoader.loadSync('health.proto', { includeDirs: [dir], enums: String, defaults: true });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Health = (loadPackageDefinition(definition) as any).grpc.health.v1.Health as ServiceClientConstructor;
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: Partial<ServeAgentOptions> = {}): Promise<{ running: RunningAgent; client: HealthClient }> {
  const running = await serveAgent({ agent: { card: testCard('health'), executor: createDemoAgent() }, port: 0, grpc: { port: 0 }, onError: () => undefined, ...options });
  servers.push(running);
  const client = new Health(`127.0.0.1:${running.grpc?.port}`, credentials.createInsecure()) as HealthClient;
  return { running, client };
}

function check(client: HealthClient, service: string): Promise<string> {
  return new Promise((resolve, reject) => client.check({ service }, (error: ServiceError | null, res: { status: string }) => (error ? reject(error) : resolve(res.status))));
}

/** A Watch call: the statuses received so far, and its end (the status it ended with). */
function watch(client: HealthClient, service: string): { statuses: string[]; ended: Promise<number>; call: ClientReadableStream<{ status: string }> } {
  const call = client.watch({ service }) as ClientReadableStream<{ status: string }>;
  const statuses: string[] = [];
  call.on('data', (m: { status: string }) => statuses.push(m.status));
  const ended = new Promise<number>((resolve) => {
    call.on('status', (s: { code: number }) => resolve(s.code));
    call.on('error', () => undefined);
  });
  return { statuses, ended, call };
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('OPS-HEALTH grpc.health.v1.Health', () => {
  test('Check: SERVING for "" and lf.a2a.v1.A2AService (and the 0.3 service); NOT_FOUND for another name; NOT_SERVING when the store check fails', async () => {
    const state = { down: false };
    const store = new MemoryTaskStore();
    store.ping = async () => {
      if (state.down) throw StoreUnavailableError.from(new Error('gone'));
    };
    const { client } = await start({ handler: { store }, health: { checkCacheMs: 0 } });
    assert.equal(await check(client, ''), 'SERVING');
    assert.equal(await check(client, 'lf.a2a.v1.A2AService'), 'SERVING');
    assert.equal(await check(client, 'a2a.v1.A2AService'), 'SERVING');
    await assert.rejects(check(client, 'no.such.Service'), (e: ServiceError) => e.code === grpcStatus.NOT_FOUND);
    state.down = true;
    assert.equal(await check(client, ''), 'NOT_SERVING');
    state.down = false;
    assert.equal(await check(client, 'lf.a2a.v1.A2AService'), 'SERVING');
    client.close();
  });

  test('Watch: SERVICE_UNKNOWN for an unknown name (the call stays open); SERVING, then NOT_SERVING as soon as the drain starts, then the end at shutdown', async () => {
    const agent = heldAgent();
    const { running, client } = await start({ agent: { card: testCard('health'), executor: agent.executor }, shutdownDelayMs: 500, shutdownTimeoutMs: 5000 });
    const unknown = watch(client, 'no.such.Service');
    const whole = watch(client, '');
    const a2a = watch(client, 'lf.a2a.v1.A2AService');
    await until(() => whole.statuses.length > 0 && a2a.statuses.length > 0 && unknown.statuses.length > 0, 'the first statuses');
    assert.deepEqual(unknown.statuses, ['SERVICE_UNKNOWN']);
    assert.deepEqual(whole.statuses, ['SERVING']);
    assert.deepEqual(a2a.statuses, ['SERVING']);

    const send = request(running.url + '/a2a/jsonrpc', { body: rpcBody('SendMessage', { message: userMessage('hold') }), headers: { 'content-type': 'application/json' } });
    await agent.started;
    const closed = running.close();
    await until(() => whole.statuses.length === 2 && a2a.statuses.length === 2, 'NOT_SERVING');
    assert.deepEqual(whole.statuses, ['SERVING', 'NOT_SERVING']);
    assert.deepEqual(a2a.statuses, ['SERVING', 'NOT_SERVING']);
    // A Check during the drain says the same.
    assert.equal(await check(client, ''), 'NOT_SERVING');
    agent.release();
    await send;
    await closed;
    assert.equal(await whole.ended, grpcStatus.OK, 'the watch ended at shutdown');
    assert.equal(await unknown.ended, grpcStatus.OK);
    client.close();
  });

  test('OPS-HEALTH many Watch starts and Checks share one store check (a flood cannot exhaust the pool and flip readiness)', { timeout: 15_000 }, async () => {
    let pings = 0;
    let release = (): void => undefined;
    const store = new MemoryTaskStore();
    store.ping = async () => {
      pings++;
      await new Promise<void>((resolve) => (release = resolve));
    };
    const { client } = await start({ handler: { store } });
    const watches = Array.from({ length: 50 }, () => watch(client, ''));
    const checks = Array.from({ length: 50 }, () => check(client, ''));
    await until(() => pings > 0, 'the first check');
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    assert.deepEqual(new Set(await Promise.all(checks)), new Set(['SERVING']));
    await until(() => watches.every((w) => w.statuses.length === 1), 'every watch answered');
    assert.equal(pings, 1, 'one store check for 50 Watches and 50 Checks');
    for (const w of watches) w.call.cancel();
    client.close();
  });

  test('OPS-HEALTH Watch streams are capped per connection and in all: RESOURCE_EXHAUSTED past a cap, the slot back when a stream ends', { timeout: 15_000 }, async () => {
    const { running, client } = await start({ grpc: { port: 0, healthWatches: { perConnection: 3, total: 5 } } });
    const mine = Array.from({ length: 3 }, () => watch(client, ''));
    await until(() => mine.every((w) => w.statuses.length === 1), 'three watches');
    const refused = watch(client, 'no.such.Service');
    assert.equal(await refused.ended, grpcStatus.RESOURCE_EXHAUSTED, 'the fourth on one connection');
    // A connection of its own (grpc-js shares one between clients of the same target otherwise).
    const other = new Health(`127.0.0.1:${running.grpc?.port}`, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }) as HealthClient;
    const theirs = Array.from({ length: 2 }, () => watch(other, ''));
    await until(() => theirs.every((w) => w.statuses.length === 1), 'two more on another connection');
    assert.equal(await watch(other, '').ended, grpcStatus.RESOURCE_EXHAUSTED, 'the sixth in all');
    (mine[0] as { call: { cancel(): void } }).call.cancel();
    // The server hears of the cancellation a moment after the client: ask until the slot is back.
    let again = watch(other, '');
    for (let tries = 0; ; tries++) {
      const answer = await Promise.race([again.ended, until(() => again.statuses.length === 1, 'an answer').then(() => 'SERVING')]);
      if (answer === 'SERVING') break;
      assert.equal(answer, grpcStatus.RESOURCE_EXHAUSTED);
      assert.ok(tries < 50, 'the slot of the cancelled watch is given back');
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = watch(other, '');
    }
    assert.equal(await check(other, ''), 'SERVING', 'Check is not a stream and is not capped');
    for (const w of [...mine, ...theirs, again]) w.call.cancel();
    client.close();
    other.close();
  });

  test('OPS-HEALTH R25: Check and Watch are not counted against the per-address request rate, and answer while the address has spent it', { timeout: 15_000 }, async () => {
    const { running, client } = await start({ handler: { abuseLimits: { requestsPerSecond: 0.01, requestBurst: 3 } } });
    for (let i = 0; i < 5; i++) assert.equal(await check(client, ''), 'SERVING');
    const watching = watch(client, '');
    await until(() => watching.statuses.length === 1, 'the watch');
    // The address's budget spent by A2A calls over HTTP: the gRPC probes still answer.
    const calls: number[] = [];
    for (let i = 0; i < 4; i++) calls.push((await request(running.url + '/a2a/rest/tasks/nope', { method: 'GET', headers: { 'a2a-version': '1.0' } })).status);
    assert.equal(calls.at(-1), 429, `calls ${calls.join(',')}`);
    const concurrent = await Promise.all(Array.from({ length: 50 }, () => check(client, '')));
    assert.ok(concurrent.every((s) => s === 'SERVING'), 'a burst of Checks is answered');
    const again = watch(client, '');
    await until(() => again.statuses.length === 1, 'a new watch');
    watching.call.cancel();
    again.call.cancel();
    client.close();
  });

  test('health: false serves no health service on the gRPC port', async () => {
    const { client } = await start({ health: false });
    await assert.rejects(check(client, ''), (e: ServiceError) => e.code === grpcStatus.UNIMPLEMENTED);
    client.close();
  });
});
