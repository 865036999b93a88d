/**
 * A request body that is not UTF-8 is refused as unparseable JSON (RFC 8259 §8.1): -32700 with
 * id null on JSON-RPC, the 400 parse error on HTTP+JSON, never read with U+FFFD in place of the
 * bad bytes. Real server on a loopback socket, and the fetch adapter.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { demoAgent } from '../../src/cli/agents/demo.js';
import type { Task } from '../../src/protocol/types.js';
import { VERSION_HEADERS, request, startServer, type RpcEnvelope, type TestServer } from './helpers.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const message = (text: Buffer) =>
  Buffer.concat([Buffer.from('{"messageId":"u8-'), Buffer.from(String(Math.random()).slice(2)), Buffer.from('","role":"ROLE_USER","parts":[{"text":"'), text, Buffer.from('"}]}')]);
const rpcBody = (text: Buffer) =>
  Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'), message(text), Buffer.from('}}')]);
const restBody = (text: Buffer) => Buffer.concat([Buffer.from('{"message":'), message(text), Buffer.from('}')]);

/** Not UTF-8: a stray 0xFF, a truncated sequence, an overlong "/", an encoded surrogate (U+D800). */
const BAD = [Buffer.from('x \xff', 'latin1'), Buffer.from([0x78, 0xe2, 0x82]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80])];
const GOOD = 'é — 日本 😀';

/** POSTs `body` with chunked encoding, written in the pieces given (so a character can straddle two). */
function chunkedPost(url: string, pieces: Buffer[]): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...VERSION_HEADERS, ...JSON_TYPE } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.flushHeaders();
    let i = 0;
    const next = () => {
      if (i === pieces.length) req.end();
      else req.write(pieces[i++], () => setTimeout(next, 20));
    };
    next();
  });
}

function assertParseError(env: RpcEnvelope): void {
  assert.equal(env.id, null);
  assert.equal(env.error?.code, -32700, JSON.stringify(env));
  assert.match(env.error?.message ?? '', /UTF-8/);
  assert.equal(env.result, undefined);
}

describe('request bodies must be UTF-8', () => {
  let s: TestServer;
  const errors: unknown[] = [];
  before(async () => {
    s = await startServer(demoAgent, { onError: (e) => errors.push(e) });
  });
  after(async () => {
    await s?.close();
  });

  test('JSON-RPC: invalid UTF-8 → -32700 with id null, nothing is sent to the agent', async () => {
    for (const bad of BAD) {
      const res = await request(s.rpcUrl, { body: rpcBody(bad), headers: JSON_TYPE });
      assert.equal(res.status, 200);
      assertParseError(res.json as RpcEnvelope);
    }
    const listed = await request(`${s.restUrl}/tasks`);
    assert.deepEqual((listed.json as { tasks: unknown[] }).tasks, [], 'no task was created');
    assert.deepEqual(errors, [], 'a client mistake is not a server error');
  });

  test('HTTP+JSON: invalid UTF-8 → the same 400 as a JSON syntax error', async () => {
    const syntax = await request(`${s.restUrl}/message:send`, { body: '{"message":', headers: JSON_TYPE });
    assert.equal(syntax.status, 400);
    const expected = syntax.json as { error: { code: number; status: string; details: { reason?: string }[] } };
    assert.equal(expected.error.details[0]?.reason, 'PARSE_ERROR');
    for (const bad of BAD) {
      const res = await request(`${s.restUrl}/message:send`, { body: restBody(bad), headers: JSON_TYPE });
      assert.equal(res.status, 400, res.text);
      assert.match(res.headers['content-type'] ?? '', /json/);
      const body = res.json as typeof expected & { error: { message: string } };
      assert.deepEqual([body.error.code, body.error.status, body.error.details], [expected.error.code, expected.error.status, expected.error.details]);
      assert.match(body.error.message, /UTF-8/);
    }
  });

  test('valid UTF-8, a character split across two chunks, arrives intact', async () => {
    const body = rpcBody(Buffer.from(GOOD));
    const cut = body.indexOf(Buffer.from('😀')) + 2;
    const res = await chunkedPost(s.rpcUrl, [body.subarray(0, cut), body.subarray(cut)]);
    assert.equal(res.status, 200);
    const task = ((res.json as RpcEnvelope).result as { task: Task }).task;
    assert.deepEqual(task.history?.[0]?.parts, [{ text: GOOD }]);
  });

  test('the fetch adapter refuses it the same way', async () => {
    const res = await s.handler.fetch(
      new Request(s.rpcUrl, { method: 'POST', headers: { ...VERSION_HEADERS, ...JSON_TYPE }, body: rpcBody(BAD[0] as Buffer) }),
    );
    assert.equal(res.status, 200);
    assertParseError((await res.json()) as RpcEnvelope);
    const rest = await s.handler.fetch(
      new Request(`${s.restUrl}/message:send`, { method: 'POST', headers: { ...VERSION_HEADERS, ...JSON_TYPE }, body: restBody(BAD[0] as Buffer) }),
    );
    assert.equal(rest.status, 400);
  });
});
