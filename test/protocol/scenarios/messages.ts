/** SendMessage, GetTask and history semantics (MSG, CTX, LIFE, HIST, TENANT). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_SLOW_MS } from '../../support/server.js';
import { expectError, ok, send, textOf, uid, userMessage } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import type { ScenarioEnv } from './env.js';

export function messageScenarios(env: ScenarioEnv): void {
  /** An `ask` task answered once: history = [ask, question, answer]. */
  async function answeredTask(): Promise<Json> {
    const asked = ok(await env.b.call('sendMessage', send('ask what is your name'))).task;
    return ok(await env.b.call('sendMessage', send('Ada', { taskId: asked.id }))).task;
  }

  describe('SendMessage', () => {
    test('MSG-01 RPC-04 blocking SendMessage returns the completed task, wrapped as {task}', async () => {
      const res = ok(await env.b.call('sendMessage', send('hi there')));
      assert.deepEqual(Object.keys(res), ['task']);
      const task = res.task;
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
      assert.match(task.id, /\S/);
      assert.match(task.contextId, /\S/, 'CTX-03: a server-generated contextId is returned');
      assert.equal(task.kind, undefined, 'JSON-08: no kind in 1.0');
      assert.match(task.status.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'JSON-04');
      assert.equal(task.artifacts.length, 1);
      assert.equal(task.artifacts[0].name, 'echo');
      assert.equal(textOf(task.artifacts[0].parts), 'hi there');
      assert.equal(task.history[0].role, 'ROLE_USER');
      assert.equal(task.history[0].taskId, task.id, 'CTX-11');
      assert.equal(task.history[0].contextId, task.contextId, 'CTX-11');
    });

    test('LIFE-11 CTX-09 a `msg` request gets a Message reply without a task', async () => {
      const res = ok(await env.b.call('sendMessage', send('msg hello back')));
      assert.deepEqual(Object.keys(res), ['message']);
      assert.equal(res.message.role, 'ROLE_AGENT');
      assert.equal(textOf(res.message.parts), 'hello back');
      assert.match(res.message.contextId, /\S/);
      assert.equal(res.message.taskId, undefined);
    });

    test('MSG-02 returnImmediately returns the task before the work is done', async () => {
      const started = Date.now();
      const task = ok(await env.b.call('sendMessage', send('slow job', {}, { returnImmediately: true }))).task;
      assert.ok(Date.now() - started < DEFAULT_SLOW_MS / 2, `took ${Date.now() - started} ms`);
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(task.status.state), task.status.state);
      const now = ok(await env.b.call('getTask', { id: task.id }));
      assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(now.status.state), now.status.state);
      ok(await env.b.call('cancelTask', { id: task.id }));
    });

    test('MSG-03 returnImmediately has no effect on a `msg` request: the Message reply, no task', async () => {
      const res = ok(await env.b.call('sendMessage', send('msg hello now', {}, { returnImmediately: true })));
      assert.deepEqual(Object.keys(res), ['message']);
      assert.equal(res.message.role, 'ROLE_AGENT');
      assert.equal(textOf(res.message.parts), 'hello now');
      assert.equal(res.message.taskId, undefined);
    });

    test('MSG-01 blocking SendMessage returns at INPUT_REQUIRED', async () => {
      const task = ok(await env.b.call('sendMessage', send('ask what is your name'))).task;
      assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(task.status.message.role, 'ROLE_AGENT');
      assert.equal(textOf(task.status.message.parts), 'what is your name?');
    });

    test('LIFE-06 CTX-06 a follow-up completes the INPUT_REQUIRED task; history is question then answer', async () => {
      const asked = ok(await env.b.call('sendMessage', send('ask what is your name'))).task;
      const done = ok(await env.b.call('sendMessage', send('Ada', { taskId: asked.id }))).task;
      assert.equal(done.id, asked.id);
      assert.equal(done.contextId, asked.contextId, 'CTX-06: contextId inferred from the task');
      assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(done.artifacts[0].name, 'answer');
      assert.equal(textOf(done.artifacts[0].parts), 'Ada');
      assert.deepEqual(
        done.history.map((m: Json) => [m.role, textOf(m.parts)]),
        [
          ['ROLE_USER', 'ask what is your name'],
          ['ROLE_AGENT', 'what is your name?'],
          ['ROLE_USER', 'Ada'],
        ],
      );
      assert.equal(done.history[2].contextId, asked.contextId, 'CTX-11');
    });

    test('CTX-02 C4 a message with an unknown taskId is TASK_NOT_FOUND and creates nothing', async () => {
      const taskId = uid('no-such-task');
      expectError(await env.b.call('sendMessage', send('hi', { taskId })), 'TASK_NOT_FOUND');
      expectError(await env.b.call('getTask', { id: taskId }), 'TASK_NOT_FOUND');
    });

    test('LIFE-03 a message to a terminal task is UNSUPPORTED_OPERATION and leaves the task unchanged', async () => {
      const task = ok(await env.b.call('sendMessage', send('hi'))).task;
      const before = ok(await env.b.call('getTask', { id: task.id }));
      expectError(await env.b.call('sendMessage', send('again', { taskId: task.id })), 'UNSUPPORTED_OPERATION', { metadata: { taskId: task.id } });
      assert.deepEqual(ok(await env.b.call('getTask', { id: task.id })), before);
    });

    test('CTX-07 C1 a taskId with a different contextId is INVALID_PARAMS on message.contextId', async () => {
      const asked = ok(await env.b.call('sendMessage', send('ask anything'))).task;
      const res = await env.b.call('sendMessage', send('answer', { taskId: asked.id, contextId: uid('other-ctx') }));
      expectError(res, 'INVALID_PARAMS', { field: 'message.contextId' });
      assert.equal(ok(await env.b.call('getTask', { id: asked.id })).status.state, 'TASK_STATE_INPUT_REQUIRED');
    });

    test('CTX-04 CTX-01 a client contextId is kept; task ids are server-generated and distinct', async () => {
      const contextId = uid('client-ctx');
      const m1 = userMessage('hi one', { contextId });
      const t1 = ok(await env.b.call('sendMessage', { message: m1 })).task;
      const t2 = ok(await env.b.call('sendMessage', send('hi two', { contextId }))).task;
      assert.equal(t1.contextId, contextId);
      assert.equal(t2.contextId, contextId);
      assert.notEqual(t1.id, t2.id);
      assert.notEqual(t1.id, m1.messageId);
    });

    test('C3 a client message with ROLE_AGENT is INVALID_PARAMS on message.role', async () => {
      const res = await env.b.call('sendMessage', { message: userMessage('hi', { role: 'ROLE_AGENT' }) });
      expectError(res, 'INVALID_PARAMS', { field: 'message.role' });
    });

    test('OPS-03 MSG-09 missing message / messageId / empty parts are INVALID_PARAMS naming the field', async () => {
      expectError(await env.b.call('sendMessage', {}), 'INVALID_PARAMS', { field: 'message' });
      const { messageId: _drop, ...noId } = userMessage('hi');
      expectError(await env.b.call('sendMessage', { message: noId }), 'INVALID_PARAMS', { field: 'message.messageId' });
      expectError(await env.b.call('sendMessage', { message: userMessage('x', { parts: [] }) }), 'INVALID_PARAMS', { field: 'message.parts' });
    });

    test('MSG-06 a part whose mediaType is not in defaultInputModes is CONTENT_TYPE_NOT_SUPPORTED', async () => {
      assert.deepEqual(env.server.card.defaultInputModes, ['text/plain', 'application/json', 'application/octet-stream']);
      const png = userMessage('hi', { parts: [{ text: 'hi' }, { raw: 'iVBORw0KGgo=', mediaType: 'image/png' }] });
      expectError(await env.b.call('sendMessage', { message: png }), 'CONTENT_TYPE_NOT_SUPPORTED');
      const accepted = userMessage('hi', {
        parts: [{ text: 'hi', mediaType: 'text/plain; charset=utf-8' }, { data: { a: 1 }, mediaType: 'application/json' }],
      });
      assert.equal(ok(await env.b.call('sendMessage', { message: accepted })).task.status.state, 'TASK_STATE_COMPLETED');
    });

    test('agent failure: an executor that throws yields a FAILED task, not a hung request; R23 no internals leak', async () => {
      const cases: [string, string][] = [
        ['throw now', 'boom before start'],
        ['crash now', 'boom while working'],
      ];
      for (const [text, thrown] of cases) {
        const task = ok(await env.b.call('sendMessage', send(text))).task;
        assert.equal(task.status.state, 'TASK_STATE_FAILED', text);
        assert.equal(task.status.message.role, 'ROLE_AGENT');
        assert.match(textOf(task.status.message.parts), /\S/);
        assert.doesNotMatch(JSON.stringify(task), /boom/, 'the exception text stays in the server log');
        assert.ok(env.server.errors.some((e) => e instanceof Error && e.message === thrown), `onError saw "${thrown}"`);
      }
    });

    // D2 (inline push config without the capability): capabilities.ts; with it (PUSH-09): push.ts.
  });

  describe('GetTask and historyLength', () => {
    test('HIST-01 HIST-02 HIST-03 GetTask historyLength unset / 0 / n', async () => {
      const { id } = await answeredTask();
      assert.equal(ok(await env.b.call('getTask', { id })).history.length, 3);
      const none = ok(await env.b.call('getTask', { id, historyLength: 0 }));
      assert.equal('history' in none, false, 'HIST-02: history omitted, not []');
      assert.deepEqual(ok(await env.b.call('getTask', { id, historyLength: 1 })).history.map((m: Json) => textOf(m.parts)), ['Ada']);
      assert.deepEqual(
        ok(await env.b.call('getTask', { id, historyLength: 2 })).history.map((m: Json) => textOf(m.parts)),
        ['what is your name?', 'Ada'],
      );
      assert.equal(ok(await env.b.call('getTask', { id, historyLength: 50 })).history.length, 3);
    });

    test('MSG-08 SendMessage configuration.historyLength 0 omits history, 1 keeps the latest message', async () => {
      const none = ok(await env.b.call('sendMessage', send('hi', {}, { historyLength: 0 }))).task;
      assert.equal(none.status.state, 'TASK_STATE_COMPLETED');
      assert.equal('history' in none, false);
      const asked = ok(await env.b.call('sendMessage', send('ask your name'))).task;
      const one = ok(await env.b.call('sendMessage', send('Bob', { taskId: asked.id }, { historyLength: 1 }))).task;
      assert.deepEqual(one.history.map((m: Json) => textOf(m.parts)), ['Bob']);
    });

    test('HIST-04 a negative historyLength is INVALID_PARAMS (GetTask and SendMessage)', async () => {
      const task = ok(await env.b.call('sendMessage', send('hi'))).task;
      expectError(await env.b.call('getTask', { id: task.id, historyLength: -1 }), 'INVALID_PARAMS', { field: 'historyLength' });
      const res = await env.b.call('sendMessage', send('hi', {}, { historyLength: -3 }));
      expectError(res, 'INVALID_PARAMS', { field: 'configuration.historyLength' });
    });

    test('CTX-02 GetTask of an unknown id is TASK_NOT_FOUND', async () => {
      const id = uid('missing');
      expectError(await env.b.call('getTask', { id }), 'TASK_NOT_FOUND', { metadata: { taskId: id } });
    });

    test('TENANT-06 tasks are isolated per tenant', async () => {
      const task = ok(await env.b.call('sendMessage', { tenant: 'acme', ...send('hi tenant') })).task;
      assert.equal(ok(await env.b.call('getTask', { tenant: 'acme', id: task.id })).id, task.id);
      expectError(await env.b.call('getTask', { id: task.id }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('getTask', { tenant: 'globex', id: task.id }), 'TASK_NOT_FOUND');
      expectError(await env.b.call('cancelTask', { id: task.id }), 'TASK_NOT_FOUND');
      const listed = ok(await env.b.call('listTasks', { tenant: 'acme', contextId: task.contextId }));
      assert.deepEqual(listed.tasks.map((t: Json) => t.id), [task.id]);
      assert.equal(ok(await env.b.call('listTasks', { contextId: task.contextId })).totalSize, 0);
    });
  });
}
