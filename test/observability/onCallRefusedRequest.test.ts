/**
 * OBS-01: a call authenticated and then refused while its request is read — before a handler call
 * took it over — is reported once, with the error's reason, on every binding: an HTTP+JSON body
 * whose id differs from the path (it used to go unreported: no access-log line, no
 * a2a_calls_total), a gRPC request message that does not decode, a 0.3 JSON-RPC request that does
 * not translate; and no call, accepted or refused, is reported twice.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import type { CallRecord } from '../../src/server/callObserver.js';
import { message, startSecured, type SecuredAgent } from '../auth/support.js';

const KEY = 'obs-key-5d2e91';
const records: CallRecord[] = [];
let server: SecuredAgent;

before(async () => {
  server = await startSecured({
    securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: { apiKey: {} } }],
    auth: { schemes: { apiKey: { keys: { [KEY]: 'obs-client' } } } },
    serve: { handler: { onCall: (call) => records.push(call) } },
  });
});
after(() => server?.close());

/** The records of one call: what `call` produced, once its hook calls had time to come. */
async function recordsOf(call: () => Promise<unknown>): Promise<CallRecord[]> {
  const from = records.length;
  await call();
  await new Promise((r) => setTimeout(r, 100));
  return records.slice(from);
}

function assertOneRefusal(got: CallRecord[], expected: { binding: string; operation: string; outcome: string }): void {
  assert.equal(got.length, 1, JSON.stringify(got));
  const [record] = got as [CallRecord];
  assert.equal(record.binding, expected.binding);
  assert.equal(record.operation, expected.operation);
  assert.equal(record.outcome, expected.outcome);
  assert.equal(record.principal, 'obs-client');
}

test('OBS-01 every binding: accepted, unauthenticated and invalid calls are each reported exactly once', async () => {
  for (const b of server.bindings) {
    const auth = { headers: { 'X-Api-Key': KEY } };
    const ok = await recordsOf(() => b.call('sendMessage', message(), auth));
    assert.deepEqual(ok.map((r) => [r.binding, r.outcome]), [[b.name, 'ok']]);
    const refused = await recordsOf(() => b.call('getTask', { id: 'x' }, { headers: { 'X-Api-Key': 'wrong' } }));
    assert.deepEqual(refused.map((r) => [r.binding, r.outcome]), [[b.name, 'UNAUTHENTICATED']]);
    const invalid = await recordsOf(() => b.call('getTask', { id: 'x', historyLength: -1 }, auth));
    assertOneRefusal(invalid, { binding: b.name, operation: 'getTask', outcome: 'INVALID_PARAMS' });
  }
});

test('OBS-01 HTTP+JSON: an id in the body that differs from the path is reported once, INVALID_PARAMS', async () => {
  const got = await recordsOf(async () => {
    const res = await fetch(`${server.agent.url}/a2a/rest/tasks/x:cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': KEY },
      body: JSON.stringify({ id: 'y' }),
    });
    assert.equal(res.status, 400);
    await res.text();
  });
  assertOneRefusal(got, { binding: 'HTTP+JSON', operation: 'cancelTask', outcome: 'INVALID_PARAMS' });
});

test('OBS-01 HTTP+JSON: a body that is not JSON, after authentication, is reported once', async () => {
  const got = await recordsOf(async () => {
    const res = await fetch(`${server.agent.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': KEY },
      body: '{not json',
    });
    assert.equal(res.ok, false);
    await res.text();
  });
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0]?.operation, 'sendMessage');
  assert.notEqual(got[0]?.outcome, 'ok');
});

test('OBS-01 gRPC: a request message that does not decode, after authentication, is reported once', async () => {
  const client = new Client(server.agent.grpc?.address as string, credentials.createInsecure());
  try {
    const got = await recordsOf(
      () =>
        new Promise<void>((resolve) => {
          const metadata = new Metadata();
          metadata.set('a2a-version', '1.0');
          metadata.set('x-api-key', KEY);
          // Field 1 (id) as a length-delimited string whose length runs past the end.
          const bytes = Buffer.from([0x0a, 0x7f, 0x61]);
          client.makeUnaryRequest('/lf.a2a.v1.A2AService/GetTask', (b: Buffer) => b, (b: Buffer) => b, bytes, metadata, (error: ServiceError | null) => {
            assert.ok(error, 'refused');
            resolve();
          });
        }),
    );
    assert.equal(got.length, 1, JSON.stringify(got));
    assert.equal(got[0]?.binding, 'GRPC');
    assert.equal(got[0]?.operation, 'getTask');
    assert.notEqual(got[0]?.outcome, 'ok');
  } finally {
    client.close();
  }
});

test('OBS-01 JSON-RPC 0.3: a request that does not translate, after authentication, is reported once', async () => {
  const got = await recordsOf(async () => {
    const res = await fetch(`${server.agent.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: 5 } }),
    });
    const body = (await res.json()) as { error?: unknown };
    assert.ok(body.error, JSON.stringify(body));
  });
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0]?.binding, 'JSONRPC');
  assert.equal(got[0]?.protocolVersion, '0.3');
  assert.notEqual(got[0]?.outcome, 'ok');
});

test('OBS-01 without authentication too: a request refused while it is read is reported once (HTTP+JSON id mismatch, gRPC message that does not decode)', async () => {
  const { startServer } = await import('../support/server.js');
  const { serveGrpc } = await import('../../src/bindings/grpc/listener.js');
  const open = await startServer({ handler: { onCall: (call) => records.push(call) } });
  const grpc = await serveGrpc(open.handler.requestHandler, { port: 0, host: '127.0.0.1' });
  const client = new Client(grpc.address, credentials.createInsecure());
  try {
    const rest = await recordsOf(async () => {
      const res = await fetch(`${open.restUrl}/tasks/x:cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ id: 'y' }),
      });
      assert.equal(res.status, 400);
      await res.text();
    });
    assert.deepEqual(rest.map((r) => [r.binding, r.operation, r.outcome]), [['HTTP+JSON', 'cancelTask', 'INVALID_PARAMS']]);
    const rpc = await recordsOf(
      () =>
        new Promise<void>((resolve) => {
          const metadata = new Metadata();
          metadata.set('a2a-version', '1.0');
          client.makeUnaryRequest('/lf.a2a.v1.A2AService/GetTask', (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0x7f, 0x61]), metadata, (error: ServiceError | null) => {
            assert.ok(error, 'refused');
            resolve();
          });
        }),
    );
    assert.equal(rpc.length, 1, JSON.stringify(rpc));
    assert.deepEqual([rpc[0]?.binding, rpc[0]?.operation], ['GRPC', 'getTask']);
    assert.notEqual(rpc[0]?.outcome, 'ok');
  } finally {
    client.close();
    await grpc.close();
    await open.close();
  }
});
