/**
 * R16 history caps, unit level: the size measure (the JSON length of a message, computed
 * without serializing), what counts toward a task's history, the refusal, and the check that
 * runs with the write itself (two follow-ups racing past the early check).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoCard } from '../../src/cli/agents/demo.js';
import { A2AError } from '../../src/protocol/errors.js';
import type { Message, Task } from '../../src/protocol/types.js';
import { withInterfaces, type AgentCardBase } from '../../src/server/agentDefinition.js';
import { A2ARequestHandler, type CallContext } from '../../src/server/requestHandler.js';
import { jsonLength } from '../../src/server/jsonLength.js';
import { DEFAULT_TASK_LIMITS, followUpRefusal, historyUsage, messageSize, taskLimits } from '../../src/server/taskLimits.js';

/** The demo card without push notifications (no push runtime needed). */
function card() {
  const base = demoCard() as AgentCardBase;
  return withInterfaces({ ...base, capabilities: { ...base.capabilities, pushNotifications: false } }, { httpBaseUrl: 'http://x', jsonRpcPath: '/j', restPath: null });
}

const msg = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: `m-${text.length}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

test('R16 jsonLength is the JSON length (strings by their characters) of any value, parts of every kind', () => {
  const values: unknown[] = [
    msg('hello'),
    { messageId: 'a', role: 'ROLE_AGENT', parts: [{ raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'h.txt' }, { url: 'https://x.example/f' }] },
    { messageId: 'b', role: 'ROLE_USER', parts: [{ data: { n: 1.5, list: [true, false, null, -3], nested: { deep: ['x'] } } }], metadata: { k: 'v', e: {}, a: [] } },
    [],
    {},
    'plain',
    12345,
  ];
  for (const v of values) assert.equal(jsonLength(v), JSON.stringify(v).length, JSON.stringify(v));
  // undefined members are skipped, as JSON.stringify skips them.
  assert.equal(jsonLength({ a: 1, b: undefined }), JSON.stringify({ a: 1 }).length);
  // Escapes are not counted: a character is a character.
  assert.equal(jsonLength('a"\u0000'), 5);
});

test('R16 messageSize is remembered per message object', () => {
  const m = msg('x'.repeat(100));
  const size = messageSize(m);
  assert.equal(size, JSON.stringify(m).length);
  (m.parts[0] as { text: string }).text = 'changed';
  assert.equal(messageSize(m), size, 'a stored message never changes, so its size is measured once');
});

test('R16 history usage counts the history and the status message that a follow-up moves into it', () => {
  const question = msg('question?', { role: 'ROLE_AGENT' });
  const task: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question }, history: [msg('a'), msg('bb')] };
  assert.deepEqual(historyUsage(task), { messages: 3, chars: messageSize(msg('a')) + messageSize(msg('bb')) + messageSize(question) });
  const limits = { maxHistoryMessages: 4, maxHistoryChars: 10_000 };
  assert.equal(followUpRefusal(task, msg('ok'), limits), undefined);
  const full = followUpRefusal(task, msg('ok'), { ...limits, maxHistoryMessages: 3 });
  assert.ok(full instanceof A2AError);
  assert.equal(full.reason, 'RESOURCE_EXHAUSTED');
  assert.deepEqual(full.metadata, { limit: 'historyMessages', max: '3', taskId: 't', contextId: 'c' });
  assert.match(full.message, /start a new task in context c$/);
  const tooBig = followUpRefusal(task, msg('y'.repeat(10_000)), limits);
  assert.equal(tooBig?.metadata.limit, 'historyChars');
  assert.equal(tooBig?.metadata.max, '10000');
});

test('R16 defaults and validation of the caps', () => {
  assert.deepEqual(taskLimits(undefined), DEFAULT_TASK_LIMITS);
  assert.deepEqual(DEFAULT_TASK_LIMITS, { maxHistoryMessages: 1000, maxHistoryChars: 16 * 1024 * 1024, maxListResponseChars: 8 * 1024 * 1024 });
  assert.equal(taskLimits({ maxHistoryMessages: 5 }).maxHistoryChars, DEFAULT_TASK_LIMITS.maxHistoryChars);
  assert.throws(() => taskLimits({ maxHistoryMessages: 0 }), /limits\.maxHistoryMessages must be a positive integer/);
  assert.throws(() => taskLimits({ maxHistoryChars: 1.5 }), /limits\.maxHistoryChars/);
  assert.throws(() => taskLimits({ maxListResponseChars: 0 }), /limits\.maxListResponseChars must be a positive integer/);
  assert.throws(
    () => new A2ARequestHandler({ agentCard: card(), executor: { async execute() {} }, limits: { maxHistoryChars: -1 } }),
    /limits\.maxHistoryChars/,
  );
});

test('R16 two follow-ups racing past the early check: the write itself refuses the one that does not fit', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const handler = new A2ARequestHandler({
    agentCard: card(),
    executor: {
      async execute(ctx, task) {
        if (ctx.task) await gate;
        await task.requireInput(`more? ${ctx.text}`);
      },
    },
    limits: { maxHistoryMessages: 4 },
  });
  const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };
  const first = await handler.unary('sendMessage', { message: msg('one') }, ctx);
  assert.ok('task' in first);
  const taskId = first.task.id;
  // Both pass the early check (history 1 + question = 2); the second waits for the first run.
  const a = handler.unary('sendMessage', { message: { ...msg('two'), messageId: 'two', taskId } }, ctx);
  const b = handler.unary('sendMessage', { message: { ...msg('three'), messageId: 'three', taskId } }, ctx);
  await new Promise((r) => setTimeout(r, 50));
  release();
  const [ra, rb] = await Promise.allSettled([a, b]);
  assert.equal(ra.status, 'fulfilled');
  assert.equal(rb.status, 'rejected');
  assert.equal((rb as PromiseRejectedResult).reason.reason, 'RESOURCE_EXHAUSTED');
  const task = await handler.unary('getTask', { id: taskId }, ctx);
  assert.deepEqual(
    task.history?.map((m) => m.messageId),
    ['m-3', first.task.status.message?.messageId, 'two'],
  );
  await handler.drain(1000);
});
