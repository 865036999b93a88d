/**
 * `a2a serve --tenants FILE` as a real process: one server, two agents (a builtin and a module
 * whose path is relative to FILE), each card at /{tenant}/.well-known/agent-card.json with its
 * tenant on every interface, the default tenant's card at the root, tasks isolated per tenant.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { AgentCard } from '../../src/protocol/types.js';
import { runA2A, type A2AProcess } from '../cli/cliHelpers.js';

const FILE = fileURLToPath(new URL('./fixtures/tenants.json', import.meta.url));
const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

test('a2a serve --tenants: one process serves each tenant its own agent and card', async () => {
  const proc = runA2A(['serve', '--port', '0', '--store', 'memory', '--json', '--tenants', FILE]);
  procs.push(proc);
  const out = JSON.parse(await proc.waitForLine(/^\{/)) as { card: string; jsonrpc: string; tenants: Record<string, string> };
  assert.deepEqual(Object.keys(out.tenants), ['demo', 'echo']);
  const echo = (await (await fetch(out.tenants.echo as string)).json()) as AgentCard;
  assert.equal(echo.name, 'fixture echo agent');
  assert.ok(echo.supportedInterfaces.length >= 2 && echo.supportedInterfaces.every((i) => i.tenant === 'echo'));
  const root = (await (await fetch(out.card)).json()) as AgentCard;
  assert.ok(root.supportedInterfaces.every((i) => i.tenant === 'demo'));
  const call = async (params: object, method = 'SendMessage') => {
    const res = await fetch(out.jsonrpc, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: { task?: { id: string; artifacts?: { parts: { text?: string }[] }[] }; id?: string }; error?: { code: number } };
  };
  const sent = await call({ tenant: 'echo', message: { messageId: `cli-t-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
  assert.equal(sent.result?.task?.artifacts?.[0]?.parts[0]?.text, 'fixture: hi');
  const id = sent.result?.task?.id as string;
  assert.equal((await call({ tenant: 'echo', id }, 'GetTask')).result?.id, id);
  assert.equal((await call({ tenant: 'demo', id }, 'GetTask')).error?.code, -32001);
  assert.equal((await call({ id }, 'GetTask')).error?.code, -32001, 'no tenant = the default tenant, demo');
});

test('a2a serve: --agent and --tenants exclude each other', async () => {
  const proc = runA2A(['serve', '--port', '0', '--agent', 'demo', '--tenants', FILE]);
  procs.push(proc);
  const { code } = await proc.exited;
  assert.notEqual(code, 0);
  assert.match(proc.stderr, /--agent and --tenants exclude each other/);
});
