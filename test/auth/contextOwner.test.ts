/**
 * TENANT-06 / CTX-04: contexts are scoped to the caller. A new task (no taskId) whose contextId
 * names a context holding another caller's tasks is refused with InvalidParams on
 * `message.contextId` on every binding (JSON-RPC -32602, REST 400 INVALID_ARGUMENT, gRPC
 * INVALID_ARGUMENT, with a BadRequest field violation), never silently given a new context; the
 * owner continues the context, and a client-chosen new context id is still accepted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CallResult, TestBinding } from '../support/bindings.js';
import { message, startSecured, taskPerPrincipal, type SecuredAgent } from './support.js';

const ALICE = 'alice-key-83f1';
const BOB = 'bob-key-0c2d';
let server: SecuredAgent;

before(async () => {
  server = await startSecured({
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    securityRequirements: [{ schemes: {} }, { schemes: { key: {} } }],
    auth: { schemes: { key: { keys: { [ALICE]: 'alice', [BOB]: 'bob' } } } },
    executor: taskPerPrincipal,
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
