/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): a body declared over the limit is refused with the
 * usual 413 and no 100 Continue, so the client never uploads it; a body within the limit gets
 * 100 Continue and is served as usual. Real server on a loopback socket, raw node:net clients.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoAgent } from '../../src/cli/agents/demo.js';
import { connect, rawExchange, startServer, userMessage, waitUntil, type TestServer } from './helpers.js';

const LIMIT = 1000;
const PATHS = { rpc: '/a2a/jsonrpc', rest: '/a2a/rest/message:send' };

function head(path: string, length: number, expect: boolean): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nA2A-Version: 1.0\r\ncontent-type: application/json\r\n` +
    `${expect ? 'Expect: 100-continue\r\n' : ''}content-length: ${length}\r\n\r\n`
  );
}

/** Status line and body of a raw answer (the Date header differs between answers). */
function statusAndBody(text: string): [string, string] {
  return [text.slice(0, text.indexOf('\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
}

describe('Expect: 100-continue', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(demoAgent, { maxBodyBytes: LIMIT });
  });
  after(async () => {
    await s?.close();
  });

  for (const [binding, path] of Object.entries(PATHS)) {
    test(`${binding}: Content-Length 100 MB → the usual 413 without 100 Continue, connection closed`, async () => {
      const answer = await rawExchange(s.port, head(path, 100 * 1024 * 1024, true));
      assert.match(answer, /^HTTP\/1\.1 413 /, JSON.stringify(answer.slice(0, 80)));
      assert.doesNotMatch(answer, /100 Continue/);
      assert.match(answer, /\r\nconnection: close\r\n/i);
      const usual = await rawExchange(s.port, head(path, 100 * 1024 * 1024, false));
      assert.deepEqual(statusAndBody(answer), statusAndBody(usual), 'the same 413 as without Expect');
    });

    test(`${binding}: a body within the limit → 100 Continue, then the body is served`, async () => {
      const message = userMessage('hi');
      const body = binding === 'rpc' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }) : JSON.stringify({ message });
      const socket = await connect(s.port);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
      try {
        socket.write(head(path, Buffer.byteLength(body), true));
        await waitUntil(() => received.length > 0, 2_000, '100 Continue');
        assert.equal(received, 'HTTP/1.1 100 Continue\r\n\r\n', 'only 100 Continue before the body is sent');
        socket.write(body);
        await waitUntil(() => /"TASK_STATE_COMPLETED"/.test(received), 2_000, 'the answer');
        assert.match(received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length), /^HTTP\/1\.1 200 /);
        assert.ok(received.includes(message.messageId));
      } finally {
        socket.destroy();
      }
    });
  }
});
