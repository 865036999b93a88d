/**
 * OBS-03: `a2a serve --access-log` whose stdout reader goes away (EPIPE) keeps serving: the
 * access log stops, stderr says so once, and calls are still answered (it used to exit 0
 * silently on the first line written after the reader closed its end).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServe, type A2AProcess } from '../cli/cliHelpers.js';

let proc: A2AProcess | undefined;
after(() => proc?.kill());

async function getTask(url: string, id: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
  });
  await res.text();
  return res.status;
}

test('OBS-03 a2a serve --access-log: stdout closed by its reader stops the log, not the server', async () => {
  const started = await startServe(['--access-log']);
  proc = started.proc;
  const url = started.urls.jsonrpc as string;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  // The reader goes away after the listening line: the next access-log line meets EPIPE.
  proc.child.stdout?.destroy();
  for (let i = 0; i < 5; i++) {
    assert.equal(await getTask(url, `gone-${i}`), 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(exited, false, `the server exited: ${proc.stderr}`);
  assert.equal(await getTask(url, 'still-there'), 200);
  const notices = proc.stderr.split('\n').filter((l) => l.includes('access log stopped'));
  assert.equal(notices.length, 1, proc.stderr);
});
