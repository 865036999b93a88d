/**
 * JSON-03 / JSON-04: ProtoJSON integers and timestamps as the decoder reads them, over REST
 * query parameters and JSON-RPC bodies. A string integer is decimal (exponent notation allowed,
 * as the ProtoJSON spec says); "0x10" or "0b11", which Number() would take, are refused. A
 * timestamp must be a real date and time: February 30 and hour 24 are refused, not rolled over.
 * JSON-05: bytes are read in any base64 form and kept and emitted as standard padded base64.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { standardBase64 } from '../../src/protocol/base64.js';
import { protoInt32 } from '../../src/protocol/protoNumber.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const V = { 'a2a-version': '1.0' };

async function restList(query: string): Promise<{ status: number; json: { error?: { details?: Array<Record<string, unknown>> } } }> {
  const res = await fetch(`${server.restUrl}/tasks?${query}`, { headers: V });
  return { status: res.status, json: (await res.json()) as never };
}

async function rpc(method: string, params: unknown): Promise<{ error?: { code: number }; result?: unknown }> {
  const res = await fetch(server.jsonRpcUrl, { method: 'POST', headers: { ...V, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as never;
}

describe('JSON-03 ProtoJSON int32', () => {
  test('numbers and decimal strings are integers; other number syntaxes are not', () => {
    for (const [input, expected] of [[16, 16], ['16', 16], ['-3', -3], ['1e1', 10], ['2.0', 2], ['2147483647', 2147483647]] as const) assert.equal(protoInt32(input), expected, String(input));
    for (const input of ['0x10', '0b11', '0o7', ' 3', '3 ', '', '1.5', '2147483648', 'Infinity', '1_000', '+', 1.5, true, null]) assert.equal(protoInt32(input), undefined, String(input));
  });

  test('REST query: pageSize=0x10 and historyLength=0b11 are INVALID_PARAMS, pageSize=16 is served', async () => {
    assert.equal((await restList('pageSize=16')).status, 200);
    for (const query of ['pageSize=0x10', 'historyLength=0b11', 'pageSize=%2016']) {
      const res = await restList(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.json.error?.details?.[0]?.reason, 'INVALID_PARAMS', query);
    }
  });

  test('JSON-RPC: historyLength "0x10" is -32602, "1e1" is served', async () => {
    assert.equal((await rpc('ListTasks', { historyLength: '0x10' })).error?.code, -32602);
    assert.ok((await rpc('ListTasks', { historyLength: '1e1' })).result);
  });
});

describe('JSON-04 timestamps', () => {
  test('REST query: impossible dates and hour 24 are INVALID_PARAMS; a leap day is served', async () => {
    assert.equal((await restList('statusTimestampAfter=2024-02-29T00:00:00Z')).status, 200);
    assert.equal((await restList('statusTimestampAfter=2024-02-29T01:00:00%2B01:00')).status, 200);
    for (const t of ['2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2026-01-05T24:00:00Z', '2026-04-31T00:00:00Z']) {
      const res = await restList(`statusTimestampAfter=${t}`);
      assert.equal(res.status, 400, t);
      assert.equal(res.json.error?.details?.[0]?.reason, 'INVALID_PARAMS', t);
    }
  });

  test('JSON-RPC: statusTimestampAfter 2024-02-30 is -32602', async () => {
    assert.equal((await rpc('ListTasks', { statusTimestampAfter: '2024-02-30T00:00:00Z' })).error?.code, -32602);
    assert.ok((await rpc('ListTasks', { statusTimestampAfter: '2024-02-28T23:59:59.123456789Z' })).result);
  });
});

describe('JSON-05 bytes', () => {
  test('standard, URL-safe, padded and unpadded input give the standard padded form; broken input none', () => {
    for (const [input, expected] of [['_-8', '/+8='], ['/+8=', '/+8='], ['QUJD', 'QUJD'], ['QQ', 'QQ=='], ['QQ==', 'QQ=='], ['QUI', 'QUI='], ['', '']] as const) {
      assert.equal(standardBase64(input), expected, input);
    }
    for (const input of ['Q', 'QUJDR', 'QQ=', 'Q===', 'QU=I', 'a b', '@@@@', '=']) assert.equal(standardBase64(input), undefined, input);
  });

  test('JSON-RPC: a URL-safe unpadded raw part is stored and answered as standard padded base64', async () => {
    const sent = await rpc('SendMessage', { message: { messageId: `b64-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }, { raw: '_-8', mediaType: 'application/octet-stream' }] } });
    const task = (sent.result as { task: { id: string } }).task;
    const got = (await rpc('GetTask', { id: task.id })).result as { history: Array<{ parts: Array<{ raw?: string }> }> };
    assert.deepEqual(got.history[0]?.parts.map((p) => p.raw), [undefined, '/+8=']);
    assert.equal((await rpc('SendMessage', { message: { messageId: `b64x-${Date.now()}`, role: 'ROLE_USER', parts: [{ raw: 'QQ=' }] } })).error?.code, -32602);
  });
});
