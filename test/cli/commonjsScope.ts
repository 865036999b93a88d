/**
 * A project whose package.json has no "type" (as `npm init -y` writes it) holding the
 * fixtures/commonjsScope modules, and the checks on the agent served from it: shared by the
 * checkout's bin (checkoutBin.test.ts) and the installed package's (test/package.test.ts).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawRpc } from '../support/jsonrpc.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/commonjsScope/', import.meta.url));

/** Writes the project into `dir`; `links` maps node_modules entries to the directories they link to. */
export function writeCommonJsScopeProject(dir: string, links: Record<string, string>): void {
  cpSync(FIXTURES, dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'commonjs-scope', version: '1.0.0', main: 'agent.ts' }));
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(dir, 'node_modules', name), 'dir');
}

/** The served agent's card says format.cts is CommonJS, and SendMessage (to `tenant`, if given) gets the greeting. */
export async function assertCommonJsScopeAgent(card: string, jsonrpc: string, tenant?: string): Promise<void> {
  const served = (await (await fetch(card)).json()) as { name: string; description: string };
  assert.deepEqual([served.name, served.description], ['fixture commonjs-scope agent', 'format.cts loaded as CommonJS']);
  const params = { ...(tenant ? { tenant } : {}), message: { messageId: `commonjs-scope-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'Ada' }] } };
  const answer = (await rawRpc(jsonrpc, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }))).json as {
    result?: { message?: { parts: { text?: string }[] } };
  };
  assert.equal(answer.result?.message?.parts[0]?.text, 'Hello, Ada!', JSON.stringify(answer));
}
