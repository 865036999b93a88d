/**
 * R9/R10: an SSE stream's memory does not grow with the number of events it carried. (A
 * Promise.race against a long-lived heartbeat promise once kept ~500 bytes per event alive until
 * the stream ended: 100k events ≈ 48 MiB.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sseBody } from '../../src/server/http/sse.js';
import type { StreamItem } from '../../src/server/taskStream.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function* endless(): AsyncGenerator<StreamItem> {
  for (let seq = 1; ; seq++) yield { event: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }, seq };
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test('R9 a long SSE stream retains no memory per event carried', async () => {
  const body = sseBody(endless(), { data: () => '{}', error: () => '{}' }, 60_000)[Symbol.asyncIterator]();
  for (let i = 0; i < 1000; i++) await body.next();
  const before = heapAfterGc();
  for (let i = 0; i < 100_000; i++) await body.next();
  const grown = heapAfterGc() - before;
  await body.return();
  assert.ok(grown < 8 * 1024 * 1024, `heap grew ${Math.round(grown / 1024)} KiB over 100k events`);
});
