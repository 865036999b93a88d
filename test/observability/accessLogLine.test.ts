/**
 * OBS-03: an access-log line stays one short line whatever the request held: every string field
 * taken from the call (task id, tenant, principal, remote address, …) is capped at
 * ACCESS_LOG_FIELD_MAX characters with a truncation marker, so a 900,000-character task id or
 * tenant never makes a 900 KB line (container log drivers split lines over 16 KiB).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS_LOG_FIELD_MAX, accessLog, accessLogLine } from '../../src/observability/accessLog.js';
import type { CallRecord } from '../../src/server/callObserver.js';
import { startServer, type TestServer } from '../support/server.js';

const LINE_LIMIT = 16 * 1024;
const HUGE = 900_000;

test('OBS-03 accessLogLine caps every caller-controlled string field, with a marker', () => {
  const huge = (c: string) => c.repeat(HUGE);
  const call: CallRecord = {
    binding: 'JSONRPC',
    operation: huge('o'),
    protocolVersion: huge('v'),
    tenant: huge('t'),
    principal: huge('p'),
    outcome: huge('O'),
    durationMs: 1.5,
    taskId: huge('\u0001'), // six characters each in JSON: the worst case
    remoteAddress: huge('r'),
  };
  const line = accessLogLine(call);
  assert.ok(Buffer.byteLength(line) < LINE_LIMIT, `${Buffer.byteLength(line)} bytes`);
  const parsed = JSON.parse(line) as Record<string, string>;
  for (const [field, char] of [['operation', 'o'], ['version', 'v'], ['tenant', 't'], ['principal', 'p'], ['outcome', 'O'], ['task_id', '\u0001'], ['remote_address', 'r']] as const) {
    const value = parsed[field] as string;
    assert.equal(value, `${char.repeat(ACCESS_LOG_FIELD_MAX)}…[truncated ${HUGE - ACCESS_LOG_FIELD_MAX} chars]`, field);
  }
});

test('OBS-03 accessLogLine keeps values up to the cap and never cuts a surrogate pair', () => {
  const exact = 'x'.repeat(ACCESS_LOG_FIELD_MAX);
  const emoji = `${'a'.repeat(ACCESS_LOG_FIELD_MAX - 1)}😀tail`;
  const line = JSON.parse(accessLogLine({ operation: 'getTask', protocolVersion: '1.0', tenant: exact, outcome: 'ok', durationMs: 1, taskId: emoji })) as Record<string, string>;
  assert.equal(line.tenant, exact);
  assert.equal(line.task_id, `${'a'.repeat(ACCESS_LOG_FIELD_MAX - 1)}…[truncated 6 chars]`);
  assert.equal(line.principal, null);
});

let server: TestServer;
const lines: string[] = [];
before(async () => {
  server = await startServer({ handler: { onCall: accessLog((line) => lines.push(line)) } });
});
after(() => server.close());

async function getTask(params: object): Promise<string> {
  const before = lines.length;
  const res = await fetch(server.jsonRpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params }),
  });
  assert.equal(res.status, 200);
  await res.text();
  for (let i = 0; i < 100 && lines.length === before; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(lines.length, before + 1, 'one line');
  const line = lines[before] as string;
  assert.ok(Buffer.byteLength(line) < LINE_LIMIT, `${Buffer.byteLength(line)} bytes`);
  assert.equal(line.indexOf('\n'), line.length - 1, 'one line, ending in its newline');
  return line;
}

test('OBS-03 GetTask with a 900,000-character id, then tenant: access-log lines under 16 KiB', async () => {
  const byId = JSON.parse(await getTask({ id: 'i'.repeat(HUGE) })) as Record<string, string>;
  assert.match(byId.task_id as string, /^i{256}…\[truncated 899744 chars\]$/);
  const byTenant = JSON.parse(await getTask({ id: 'x', tenant: 't'.repeat(HUGE) })) as Record<string, string>;
  assert.match(byTenant.tenant as string, /^t{256}…\[truncated 899744 chars\]$/);
});
