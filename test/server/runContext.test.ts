/**
 * The RequestContext an agent is given (src/server/runContext.ts): every field of the request,
 * `principal` only when there is one, and a signal read from the run's abort handle only when
 * the agent asks for it — so runs that never look at it never create an AbortController.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunContext, type RequestFields } from '../../src/server/runContext.js';
import { LazyAbort } from '../../src/server/lazyAbort.js';

const message = { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }], taskId: 't1', contextId: 'c1' };
const fields: RequestFields = {
  message,
  text: 'hi',
  taskId: 't1',
  contextId: 'c1',
  task: undefined,
  request: { message },
  tenant: 'acme',
  extensions: ['https://example.com/ext'],
  protocolVersion: '1.0',
};

test('carries every field of the request, and principal only for an authenticated caller', () => {
  const ctx = new RunContext(fields, new LazyAbort());
  for (const [name, value] of Object.entries(fields)) assert.deepEqual(ctx[name as keyof RequestFields], value, name);
  assert.equal(ctx.principal, undefined);
  const withPrincipal = new RunContext({ ...fields, principal: { id: 'alice', scheme: 'bearer', scopes: [], claims: {} } }, new LazyAbort());
  assert.equal(withPrincipal.principal?.id, 'alice');
});

test('the signal comes from the abort handle, read only when asked, and follows its abort', () => {
  let reads = 0;
  const abort = new LazyAbort();
  const counted = {
    get signal() {
      reads++;
      return abort.signal;
    },
  };
  const ctx = new RunContext(fields, counted);
  assert.equal(reads, 0);
  const signal = ctx.signal;
  assert.equal(reads, 1);
  assert.equal(signal.aborted, false);
  abort.abort();
  assert.equal(ctx.signal.aborted, true);
});

test('two contexts share one shape (no per-request hidden class from a getter in a literal)', () => {
  const a = new RunContext(fields, new LazyAbort());
  const b = new RunContext({ ...fields, taskId: 't2' }, new LazyAbort());
  assert.equal(Object.getOwnPropertyDescriptor(a, 'signal'), undefined);
  assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b));
  assert.deepEqual(Object.keys(a), Object.keys(b));
});
