/**
 * The unary answer batch of the Node host (src/node/responseBatch.ts): answers finished in one
 * turn of the event loop are written together at its end, in full, to the right clients; an
 * answer that cannot be written becomes a 500 (never a crash); a client gone before the flush
 * costs nothing.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseBatch } from '../../src/node/responseBatch.js';

const servers: http.Server[] = [];
after(() => {
  for (const s of servers) s.closeAllConnections();
  for (const s of servers) s.close();
});

async function listen(onRequest: (res: ServerResponse, path: string) => void): Promise<string> {
  const server = http.createServer((req, res) => onRequest(res, req.url ?? '/'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('answers added in one turn are written only at its end, each to its own client', async () => {
  const errors: unknown[] = [];
  const batch = new ResponseBatch((e) => errors.push(e));
  const held: ServerResponse[] = [];
  let endedInTurn = 0;
  const base = await listen((res, path) => {
    held.push(res);
    batch.add({ res, status: 200, headers: ['content-type', 'text/plain'], body: `answer ${path}` });
    // Still in the turn that added it: nothing written yet.
    if (res.writableEnded) endedInTurn++;
  });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(`${base}/r${i}`).then(async (r) => [r.status, await r.text()])));
  assert.deepEqual(
    answers,
    Array.from({ length: 20 }, (_, i) => [200, `answer /r${i}`]),
  );
  assert.equal(endedInTurn, 0);
  assert.equal(held.length, 20);
  assert.ok(held.every((r) => r.writableEnded));
  assert.deepEqual(errors, []);
});

test('a full batch is written at once, without waiting for the end of the turn', async () => {
  const batch = new ResponseBatch(undefined, 2);
  const pending: ServerResponse[] = [];
  const states: boolean[][] = [];
  const base = await listen((res) => {
    pending.push(res);
    if (pending.length < 2) return;
    batch.add({ res: pending[0] as ServerResponse, status: 200, headers: [], body: 'a' });
    states.push([(pending[0] as ServerResponse).writableEnded]);
    batch.add({ res: pending[1] as ServerResponse, status: 200, headers: [], body: 'b' });
    states.push([(pending[0] as ServerResponse).writableEnded, (pending[1] as ServerResponse).writableEnded]);
  });
  const bodies = await Promise.all([fetch(`${base}/1`).then((r) => r.text()), fetch(`${base}/2`).then((r) => r.text())]);
  assert.deepEqual(bodies.sort(), ['a', 'b']);
  assert.deepEqual(states, [[false], [true, true]]);
});

test('an answer whose headers cannot be written becomes a 500 with a JSON error body, and the error is reported', async () => {
  const errors: unknown[] = [];
  const batch = new ResponseBatch((e) => errors.push(e));
  const base = await listen((res) => batch.add({ res, status: 200, headers: ['x-bad', 'line\nbreak'], body: '{"ok":true}' }));
  const response = await fetch(base);
  assert.equal(response.status, 500);
  assert.deepEqual(await response.json(), { error: { code: 500, status: 'INTERNAL', message: 'Internal error' } });
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /Invalid character/);
});

test('a client gone before the flush is skipped and the others still get their answers', async () => {
  const batch = new ResponseBatch(undefined);
  const base = await listen((res, path) => {
    if (path === '/gone') {
      res.destroy();
      batch.add({ res, status: 200, headers: [], body: 'never' });
      return;
    }
    batch.add({ res, status: 200, headers: [], body: 'here' });
  });
  await assert.rejects(fetch(`${base}/gone`));
  assert.equal(await (await fetch(`${base}/ok`)).text(), 'here');
});
