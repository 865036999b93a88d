/**
 * TENANT-06 / CTX-04: contexts are scoped to the caller. A new task (no taskId) whose contextId
 * names a context holding another caller's tasks is refused with InvalidParams on
 * `message.contextId` on every binding (JSON-RPC -32602, REST 400 INVALID_ARGUMENT, gRPC
 * INVALID_ARGUMENT, with a BadRequest field violation), never silently given a new context; the
 * owner continues the context, and a client-chosen new context id is still accepted. A context
 * that holds no task — one the agent answered with a message only — is its caller's all the same.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { CallResult, TestBinding } from '../support/bindings.js';
import { message, startSecured, taskPerPrincipal, type SecuredAgent } from './support.js';

/** Answers "say …" with a message only (no task), anything else with a task per principal. */
const sayOrTask: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text.startsWith('say ')) return task.reply(`${ctx.principal?.id ?? '-'}|${ctx.text}`);
    return taskPerPrincipal.execute(ctx, task);
  },
};

const ALICE = 'alice-key-83f1';
const BOB = 'bob-key-0c2d';
let server: SecuredAgent;

before(async () => {
  server = await startSecured({
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: {} }, { schemes: { key: {} } }],
    auth: { schemes: { key: { keys: { [ALICE]: 'alice', [BOB]: 'bob' } } } },
    executor: sayOrTask,
  });
});

after(() => server?.close());

const as = (key?: string) => (key ? { headers: { 'X-Api-Key': key } } : {});
const inContext = (text: string, contextId: string) => {
  const m = message(text) as { message: object };
  return { message: { ...m.message, contextId } };
};

function assertContextRefused(b: TestBinding, r: CallResult): void {
  assert.equal(r.ok, false, `${b.name}: expected a refusal, got ${JSON.stringify(r.ok && r.result)}`);
  if (r.ok) return;
  assert.equal(r.error.reason, 'INVALID_PARAMS', b.name);
  if (b.name === 'JSONRPC') assert.equal(r.error.jsonRpcCode, -32602);
  else assert.equal(r.error.grpcStatus, 'INVALID_ARGUMENT', b.name);
  if (b.name === 'HTTP+JSON') assert.equal(r.status, 400);
  assert.deepEqual(r.error.fieldViolations.map((v) => v.field), ['message.contextId'], b.name);
  assert.match(r.error.message, /belongs to another caller/, b.name);
  assert.ok(!JSON.stringify(r.error.raw).includes('alice'), `${b.name}: the owner is not named`);
}

test("TENANT-06 CTX-04 a new task in another caller's context is INVALID_PARAMS on message.contextId on every binding", async () => {
  for (const b of server.bindings) {
    const first = await b.call('sendMessage', message('alice starts'), as(ALICE));
    assert.ok(first.ok, `${b.name}: ${JSON.stringify(!first.ok && first.error.raw)}`);
    const contextId = first.result.task.contextId as string;
    assertContextRefused(b, await b.call('sendMessage', inContext('bob joins', contextId), as(BOB)));
    assertContextRefused(b, await b.call('sendMessage', inContext('anonymous joins', contextId)));
    // The owner continues the context with a new task.
    const again = await b.call('sendMessage', inContext('alice continues', contextId), as(ALICE));
    assert.ok(again.ok, `${b.name}: ${JSON.stringify(!again.ok && again.error.raw)}`);
    assert.equal(again.result.task.contextId, contextId);
    assert.notEqual(again.result.task.id, first.result.task.id);
    // A context id the client picks for a new conversation is still accepted.
    const fresh = crypto.randomUUID();
    const own = await b.call('sendMessage', inContext('bob starts his own', fresh), as(BOB));
    assert.ok(own.ok, `${b.name}: ${JSON.stringify(!own.ok && own.error.raw)}`);
    assert.equal(own.result.task.contextId, fresh);
    assert.equal(own.result.task.artifacts[0].parts[0].text, 'bob|bob starts his own');
  }
});

test("TENANT-06 CTX-04 the context of a message-only reply is its caller's: another caller's new task in it is INVALID_PARAMS on every binding", async () => {
  for (const b of server.bindings) {
    const said = await b.call('sendMessage', message('say hello'), as(ALICE));
    assert.ok(said.ok, `${b.name}: ${JSON.stringify(!said.ok && said.error.raw)}`);
    assert.equal(said.result.message.parts[0].text, 'alice|say hello', b.name);
    assert.equal(said.result.task, undefined, `${b.name}: no task holds the context`);
    const contextId = said.result.message.contextId as string;
    assert.ok(contextId, b.name);
    assertContextRefused(b, await b.call('sendMessage', inContext('bob joins', contextId), as(BOB)));
    assertContextRefused(b, await b.call('sendMessage', inContext('say bob joins', contextId), as(BOB)));
    assertContextRefused(b, await b.call('sendMessage', inContext('anonymous joins', contextId)));
    // Alice goes on in it, with a message or a task.
    const more = await b.call('sendMessage', inContext('say more', contextId), as(ALICE));
    assert.ok(more.ok, `${b.name}: ${JSON.stringify(!more.ok && more.error.raw)}`);
    assert.equal(more.result.message.contextId, contextId);
    const task = await b.call('sendMessage', inContext('alice works', contextId), as(ALICE));
    assert.ok(task.ok, `${b.name}: ${JSON.stringify(!task.ok && task.error.raw)}`);
    assert.equal(task.result.task.contextId, contextId);
  }
});

test('TENANT-06 a context id unknown to everyone, first used by a message-only exchange, is that caller\'s', async () => {
  for (const b of server.bindings) {
    const fresh = crypto.randomUUID();
    const said = await b.call('sendMessage', inContext('say mine', fresh), as(BOB));
    assert.ok(said.ok, `${b.name}: ${JSON.stringify(!said.ok && said.error.raw)}`);
    assert.equal(said.result.message.contextId, fresh);
    assertContextRefused(b, await b.call('sendMessage', inContext('alice joins', fresh), as(ALICE)));
  }
});
