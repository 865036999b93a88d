/**
 * IDEM-02 / ERR-04 on a real server with two API-key callers (and anonymous ones), on every
 * binding, over the memory store and SQLite: message ids are deduplicated per tenant and caller.
 * Bob's message under an id Alice used is processed as any new message (a task of his own), so
 * nobody learns which ids others used and two clients with simple ids never block each other;
 * each caller's retry is R4 as before (the same task), and a different message under the
 * caller's own used id is still INVALID_PARAMS on `message.messageId`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import type { CallResult, TestBinding } from '../support/bindings.js';
import { startSecured, taskPerPrincipal, type SecuredAgent } from './support.js';

const ALICE = 'alice-key-5a1e';
const BOB = 'bob-key-9b0b';
const as = (key?: string) => (key ? { headers: { 'X-Api-Key': key } } : {});
const send = (messageId: string, text: string) => ({ message: { messageId, role: 'ROLE_USER', parts: [{ text }] } });

function taskOf(b: TestBinding, r: CallResult): { id: string; text: string } {
  assert.ok(r.ok, `${b.name}: ${JSON.stringify(!r.ok && r.error.raw)}`);
  return { id: String(r.result.task.id), text: String(r.result.task.artifacts[0].parts[0].text) };
}

function assertUsedIdRefused(b: TestBinding, r: CallResult, secret: string): void {
  assert.equal(r.ok, false, `${b.name}: expected a refusal, got ${JSON.stringify(r.ok && r.result)}`);
  if (r.ok) return;
  assert.equal(r.error.reason, 'INVALID_PARAMS', b.name);
  if (b.name === 'JSONRPC') assert.equal(r.error.jsonRpcCode, -32602);
  assert.deepEqual(r.error.fieldViolations.map((v) => v.field), ['message.messageId'], b.name);
  assert.ok(!JSON.stringify(r.error.raw).includes(secret), `${b.name}: the refusal names no task`);
}

for (const storeName of ['memory', 'sqlite'] as const) {
  describe(`IDEM-02 ERR-04 message ids per caller (${storeName} store)`, () => {
    let server: SecuredAgent;
    let dir: string | undefined;

    before(async () => {
      let store: SqliteTaskStore | undefined;
      if (storeName === 'sqlite') {
        dir = await mkdtemp(join(tmpdir(), 'a2a-msgid-'));
        store = new SqliteTaskStore({ path: join(dir, 'tasks.db') });
      }
      server = await startSecured({
        securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
        securityRequirements: [{ schemes: {} }, { schemes: { key: {} } }],
        auth: { schemes: { key: { keys: { [ALICE]: 'alice', [BOB]: 'bob' } } } },
        executor: taskPerPrincipal,
        ...(store ? { serve: { handler: { store } } } : {}),
      });
    });

    after(async () => {
      await server?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test("IDEM-02 ERR-04 bob's message under an id alice used is processed as his own on every binding; nobody is refused for another caller's id", async () => {
      for (const b of server.bindings) {
        const id = `a1-${b.name}`;
        const alice = taskOf(b, await b.call('sendMessage', send(id, 'alice secret'), as(ALICE)));
        assert.equal(alice.text, 'alice|alice secret', b.name);
        // Bob, with another body or the very same one, and an anonymous caller: each a new task of their own.
        const bob = taskOf(b, await b.call('sendMessage', send(id, 'bob asks'), as(BOB)));
        assert.equal(bob.text, 'bob|bob asks', b.name);
        assert.notEqual(bob.id, alice.id, b.name);
        const anonymous = taskOf(b, await b.call('sendMessage', send(id, 'alice secret'), as()));
        assert.equal(anonymous.text, '-|alice secret', b.name);
        assert.ok(![alice.id, bob.id].includes(anonymous.id), b.name);
        // Alice's task stays hers alone.
        const peek = await b.call('getTask', { id: alice.id }, as(BOB));
        assert.equal(!peek.ok && peek.error.reason, 'TASK_NOT_FOUND', b.name);
      }
    });

    test('IDEM-02 R4 each caller retrying its own message id gets its own task back; a different message under its own used id is INVALID_PARAMS on every binding', async () => {
      for (const b of server.bindings) {
        const id = `retry-${b.name}`;
        const alice = taskOf(b, await b.call('sendMessage', send(id, 'alice once'), as(ALICE)));
        const bob = taskOf(b, await b.call('sendMessage', send(id, 'bob once'), as(BOB)));
        assert.deepEqual(taskOf(b, await b.call('sendMessage', send(id, 'alice once'), as(ALICE))), alice, `${b.name}: alice's retry`);
        assert.deepEqual(taskOf(b, await b.call('sendMessage', send(id, 'bob once'), as(BOB))), bob, `${b.name}: bob's retry`);
        assertUsedIdRefused(b, await b.call('sendMessage', send(id, 'alice changed'), as(ALICE)), bob.id);
        assertUsedIdRefused(b, await b.call('sendMessage', send(id, 'alice once, said by bob'), as(BOB)), alice.id);
        // Retries ran the agent once per caller: each still holds one artifact.
        const got = await b.call('getTask', { id: bob.id }, as(BOB));
        assert.ok(got.ok, b.name);
        assert.equal(got.result.artifacts.length, 1, b.name);
      }
    });
  });
}
