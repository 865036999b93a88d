/**
 * R16: response bodies are read with a size limit. A unary answer (JSON-RPC or HTTP+JSON) larger
 * than `maxResponseBytes` (default 16 MiB) fails with INVALID_RESPONSE once that much arrived —
 * not downloaded further, not retried — and an error body is read up to 64 KiB only, the status
 * then speaking for it. Bodies that never end are what a hostile agent would send.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { A2AClientError, createClient } from '../../src/client/index.js';
import { cardAt, rpcId, startFakeAgent, task, type FakeAgent, type FakeRequest } from './fakeAgent.js';

/** Bytes of endless bodies written so far. */
let written = 0;

/** Starts a JSON body and pads it without end (up to 512 MiB), chunked, until the client goes away. */
function endless(res: ServerResponse, status: number, head: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.write(head);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = () => {
    while (!res.destroyed && written < 512 * 1024 * 1024) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  pump();
}

let agent: FakeAgent;

before(async () => {
  agent = await startFakeAgent((req: FakeRequest, res) => {
    const id = req.body ? rpcId(req) : undefined;
    if (req.url.startsWith('/rpc/big')) {
      // A whole, valid answer of 100 KB, with Content-Length.
      const body = JSON.stringify({ jsonrpc: '2.0', id, result: { ...task('t1'), metadata: { padding: 'x'.repeat(100_000) } } });
      return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
    }
    if (req.url.startsWith('/rpc/endless')) return endless(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"id":"t1","padding":"`);
    if (req.url.startsWith('/rpc/error')) return endless(res, 500, '{"jsonrpc":"2.0","error":{"code":-32603,"message":"');
    if (req.url.startsWith('/rest/tasks/')) return endless(res, 200, '{"id":"t1","padding":"');
    res.writeHead(404).end();
  });
});
after(() => agent?.close());

function tooLarge(limit: number) {
  return (error: unknown) => {
    assert.ok(A2AClientError.is(error, 'INVALID_RESPONSE'), String(error));
    assert.equal(error.message, `The response is larger than maxResponseBytes (${limit} bytes)`);
    return true;
  };
}

const calls = (prefix: string) => agent.requests.filter((r) => r.url.startsWith(prefix)).length;

describe('R16 unary answers are read up to maxResponseBytes', () => {
  test('an answer over the limit (by Content-Length) is INVALID_RESPONSE, and getTask is not retried', async () => {
    const client = await createClient(cardAt(`${agent.url}/rpc/big`), { maxResponseBytes: 64 * 1024 });
    await assert.rejects(client.getTask({ id: 't1' }), tooLarge(64 * 1024));
    assert.equal(calls('/rpc/big'), 1);
    const roomy = await createClient(cardAt(`${agent.url}/rpc/big`), { maxResponseBytes: 200 * 1024 });
    assert.equal((await roomy.getTask({ id: 't1' })).id, 't1');
  });

  test('an endless JSON-RPC answer: INVALID_RESPONSE at the default 16 MiB, the download stopped there', async () => {
    written = 0;
    const client = await createClient(cardAt(`${agent.url}/rpc/endless`), { timeoutMs: 20_000 });
    await assert.rejects(client.getTask({ id: 't1' }), tooLarge(16 * 1024 * 1024));
    assert.equal(calls('/rpc/endless'), 1, 'not retried');
    assert.ok(written < 64 * 1024 * 1024, `${written} bytes written`);
  });

  test('an endless HTTP+JSON answer: the same', async () => {
    written = 0;
    const client = await createClient(cardAt(`${agent.url}/rest`, { binding: 'HTTP+JSON' }), { maxResponseBytes: 1024 * 1024, timeoutMs: 20_000 });
    await assert.rejects(client.getTask({ id: 't1' }), tooLarge(1024 * 1024));
    assert.equal(calls('/rest/tasks/'), 1, 'not retried');
    assert.ok(written < 32 * 1024 * 1024, `${written} bytes written`);
  });

  test('an endless error body is read up to 64 KiB: the status speaks (HTTP 500)', async () => {
    written = 0;
    const client = await createClient(cardAt(`${agent.url}/rpc/error`), { timeoutMs: 10_000 });
    await assert.rejects(client.getTask({ id: 't1' }), (error: unknown) => A2AClientError.is(error, 'HTTP') && error.status === 500);
    assert.ok(written < 32 * 1024 * 1024, `${written} bytes written`);
  });
});
