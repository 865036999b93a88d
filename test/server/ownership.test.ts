/**
 * SEC-03 / spec 13.1 / PUSH-12: tasks belong to the principal that created them. Every
 * task-scoped operation on another principal's task answers TASK_NOT_FOUND (indistinguishable
 * from a missing task), ListTasks shows only the caller's tasks, and a message id another
 * principal used is unused for this one (IDEM-02, ERR-04: message ids are deduplicated per
 * caller); a new task cannot join another principal's context (TENANT-06).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler, type CallContext } from '../../src/server/requestHandler.js';
import { A2AError } from '../../src/protocol/errors.js';
import type { Task } from '../../src/protocol/types.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { TEST_PUSH } from '../support/server.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { ListQuery, TaskStore } from '../../src/server/stores/taskStore.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { callAs, testCard } from './support.js';

const card = testCard('owned', { streaming: true, pushNotifications: true });
const as = (id: string | undefined): CallContext => callAs(id);
const message = (text: string, extra: object = {}) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } });

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    assert.ok(A2AError.is(error), String(error));
    return error.reason;
  }
}

test('SEC-03 every operation on another principal\'s task is TASK_NOT_FOUND, like a missing task', async () => {
  const h = new A2ARequestHandler({ agentCard: card, executor: createDemoAgent({ slowMs: 5000, tickMs: 100 }), push: TEST_PUSH });
  const alice = as('alice');
  const bob = as('bob');
  const res = await h.unary('sendMessage', { ...message('slow work'), configuration: { returnImmediately: true } }, alice);
  assert.ok('task' in res);
  const id = res.task.id;
  const hook = { taskId: id, url: 'http://127.0.0.1:9/hook' };
  const created = await h.unary('createTaskPushNotificationConfig', hook, alice);
  for (const ghost of [id, crypto.randomUUID()]) {
    const who = ghost === id ? 'another principal' : 'nobody';
    assert.equal(await reason(h.unary('getTask', { id: ghost }, bob)), 'TASK_NOT_FOUND', `getTask of ${who}'s task`);
    assert.equal(await reason(h.unary('cancelTask', { id: ghost }, bob)), 'TASK_NOT_FOUND', `cancelTask of ${who}'s task`);
    assert.equal(await reason(h.stream('subscribeToTask', { id: ghost }, bob)), 'TASK_NOT_FOUND', `subscribeToTask of ${who}'s task`);
    assert.equal(await reason(h.unary('sendMessage', message('hi', { taskId: ghost }), bob)), 'TASK_NOT_FOUND', `follow-up to ${who}'s task`);
    assert.equal(await reason(h.unary('listTaskPushNotificationConfigs', { taskId: ghost }, bob)), 'TASK_NOT_FOUND', `push list of ${who}'s task`);
    assert.equal(await reason(h.unary('getTaskPushNotificationConfig', { taskId: ghost, id: created.id }, bob)), 'TASK_NOT_FOUND');
    assert.equal(await reason(h.unary('createTaskPushNotificationConfig', { ...hook, taskId: ghost }, bob)), 'TASK_NOT_FOUND');
    assert.equal(await reason(h.unary('deleteTaskPushNotificationConfig', { taskId: ghost, id: created.id }, bob)), 'TASK_NOT_FOUND');
  }
  assert.equal(await reason(h.unary('getTask', { id }, as(undefined))), 'TASK_NOT_FOUND', 'an anonymous caller does not see it either');
  // The owner still has everything.
  assert.equal((await h.unary('getTask', { id }, alice)).id, id);
  assert.equal((await h.unary('listTaskPushNotificationConfigs', { taskId: id }, alice)).configs?.length, 1);
  assert.equal((await h.unary('cancelTask', { id }, alice)).status.state, 'TASK_STATE_CANCELED');
  await h.drain(0);
});

test('spec 13.1 ListTasks returns only the caller\'s tasks', async () => {
  const h = new A2ARequestHandler({ agentCard: card, executor: createDemoAgent(), push: TEST_PUSH });
  const mine: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await h.unary('sendMessage', message(`hi ${i}`), as('alice'));
    assert.ok('task' in res);
    mine.push(res.task.id);
  }
  await h.unary('sendMessage', message('hi bob'), as('bob'));
  await h.unary('sendMessage', message('hi anon'), as(undefined));
  const list = await h.unary('listTasks', {}, as('alice'));
  assert.deepEqual(list.tasks.map((t: Task) => t.id).sort(), [...mine].sort());
  assert.equal(list.totalSize, 3);
  assert.equal((await h.unary('listTasks', {}, as('bob'))).totalSize, 1);
  assert.equal((await h.unary('listTasks', {}, as(undefined))).totalSize, 1);
  await h.drain(0);
});

test("IDEM-02 ERR-04 a message id another principal used is unused for this one: its message is processed, and each principal's retry gets its own task", async () => {
  const h = new A2ARequestHandler({ agentCard: card, executor: createDemoAgent(), push: TEST_PUSH });
  const first = message('hi');
  const res = await h.unary('sendMessage', first, as('alice'));
  assert.ok('task' in res);
  // Bob's message with the same id (the same body, or another) is his own new message.
  for (const [who, sent] of [['bob', first], ['carol', message('other', { messageId: first.message.messageId })], [undefined, first]] as const) {
    const theirs = await h.unary('sendMessage', sent, as(who));
    assert.ok('task' in theirs, `${who ?? 'anonymous'} is answered with a task`);
    assert.notEqual(theirs.task.id, res.task.id, `${who ?? 'anonymous'} gets a task of their own`);
    assert.equal((await h.unary('getTask', { id: theirs.task.id }, as(who))).id, theirs.task.id);
    // Their retry is R4 as always: the same task; a different message under their id is refused.
    const again = await h.unary('sendMessage', sent, as(who));
    assert.ok('task' in again && again.task.id === theirs.task.id);
    assert.equal(await reason(h.unary('sendMessage', message('changed', { messageId: first.message.messageId }), as(who))), 'INVALID_PARAMS');
  }
  // The same principal retrying gets its task back (R4).
  const again = await h.unary('sendMessage', first, as('alice'));
  assert.ok('task' in again && again.task.id === res.task.id);
  await h.drain(0);
});

test("R4 IDEM-02 SEC-03 two principals racing with the same message: each gets a task of their own, never the other's (blocking, returnImmediately and streaming)", async () => {
  const slow = {
    async execute(c: { principal?: { id: string } | undefined }, task: { requireInput: (text: string) => Promise<void> }) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await task.requireInput(`who=${c.principal?.id ?? 'anonymous'}`);
    },
  };
  const h = new A2ARequestHandler({ agentCard: card, executor: slow as never, push: TEST_PUSH });
  for (const mode of ['blocking', 'returnImmediately', 'stream'] as const) {
    const same = { ...message('a secret of alice'), ...(mode === 'returnImmediately' ? { configuration: { returnImmediately: true } } : {}) };
    const send = async (who: string): Promise<string> => {
      if (mode !== 'stream') {
        const res = await h.unary('sendMessage', same, as(who));
        assert.ok('task' in res, `${mode}: ${who} is answered with a task`);
        return res.task.id;
      }
      const ids: string[] = [];
      for await (const item of await h.stream('sendStreamingMessage', same, as(who))) if ('task' in item.event) ids.push(item.event.task.id);
      assert.ok(ids[0], `${mode}: ${who}'s stream starts with a task`);
      return ids[0];
    };
    const [alice, bob] = await Promise.all([send('alice'), send('bob')]);
    assert.notEqual(alice, bob, `${mode}: two tasks`);
    for (const [who, id] of [['alice', alice], ['bob', bob]] as const) {
      let task = await h.unary('getTask', { id }, as(who));
      for (let i = 0; i < 100 && task.status.state !== 'TASK_STATE_INPUT_REQUIRED'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        task = await h.unary('getTask', { id }, as(who));
      }
      assert.match(JSON.stringify(task.status), new RegExp(`who=${who}`), `${mode}: ${who}'s own run`);
      assert.equal(await reason(h.unary('getTask', { id }, as(who === 'alice' ? 'bob' : 'alice'))), 'TASK_NOT_FOUND');
    }
  }
  await h.drain(0);
});

test('TENANT-06 the context check is one claimContext for a new task in a client-chosen context (a list query only to refuse), none where callers are not told apart', async () => {
  const store = new MemoryTaskStore();
  const queries: ListQuery[] = [];
  const claims: string[][] = [];
  const list = store.list.bind(store);
  store.list = (query) => {
    queries.push(query);
    return list(query);
  };
  const claimContext = store.claimContext.bind(store);
  store.claimContext = (tenant, contextId, owner) => {
    claims.push([tenant, contextId, owner]);
    return claimContext(tenant, contextId, owner);
  };
  const h = new A2ARequestHandler({ agentCard: card, executor: createDemoAgent(), push: TEST_PUSH, store });
  const started = await h.unary('sendMessage', message('no context'), as('alice'));
  assert.ok('task' in started);
  const contextId = started.task.contextId as string;
  // A new task without contextId (its task says whose the context is), and a follow-up with a
  // taskId (and its contextId): nothing read or recorded.
  await h.unary('sendMessage', message('more', { taskId: started.task.id, contextId }), as('alice')).catch(() => undefined);
  // No authentication: every caller is '' and there is nobody to tell apart.
  await h.unary('sendMessage', message('open', { contextId: crypto.randomUUID() }), as(undefined));
  await h.unary('sendMessage', message('open'), as(undefined));
  assert.deepEqual([queries, claims], [[], []]);
  // A principal starting a task in its own context: one claim, answered with her (her task's)
  // ownership. Bob and an anonymous caller behind an authenticator: a claim each, answered
  // with Alice, then a look for a task of theirs in it (a context of two owners from older
  // data refuses neither), and refused.
  await h.unary('sendMessage', message('alice again', { contextId }), as('alice'));
  assert.equal(await reason(h.unary('sendMessage', message('bob', { contextId }), as('bob'))), 'INVALID_PARAMS');
  assert.equal(await reason(h.unary('sendMessage', message('anon', { contextId }), { ...as(undefined), authChecked: true })), 'INVALID_PARAMS');
  assert.deepEqual(claims, [
    ['', contextId, 'alice'],
    ['', contextId, 'bob'],
    ['', contextId, ''],
  ]);
  assert.deepEqual(queries, [
    { tenant: '', owner: 'bob', contextId, pageSize: 1 },
    { tenant: '', owner: '', contextId, pageSize: 1 },
  ]);
  await h.drain(0);
});

/** Completes each task at once. */
const done: AgentExecutor = {
  async execute(_ctx, task) {
    await task.complete();
  },
};

test('TENANT-06 callers racing to start the first task in one new client-chosen context: one gets it, the others INVALID_PARAMS (SQLite and memory)', async () => {
  for (const store of [new MemoryTaskStore(), new SqliteTaskStore({ path: ':memory:' })] as TaskStore[]) {
    const h = new A2ARequestHandler({ agentCard: card, executor: done, push: TEST_PUSH, store });
    for (let round = 0; round < 5; round++) {
      const contextId = crypto.randomUUID();
      const who = ['alice', 'bob', 'carol', 'dave'];
      const outcomes = await Promise.all(who.map((id) => reason(h.unary('sendMessage', message(`${id} first`, { contextId }), as(id)))));
      assert.deepEqual(outcomes.filter((o) => o === 'ok').length, 1, `round ${round}: ${outcomes.join(',')}`);
      assert.equal(outcomes.filter((o) => o === 'INVALID_PARAMS').length, who.length - 1, outcomes.join(','));
      const winner = who[outcomes.indexOf('ok')] as string;
      const tasks = await store.list({ tenant: '', contextId, pageSize: 10 });
      assert.deepEqual(tasks.records.map((r) => r.owner), [winner], 'only the winner has a task in it');
    }
    await h.drain(0);
    await store.close?.();
  }
});

test('TENANT-06 a context holding tasks of two owners (data from before contexts were checked) refuses neither of them, and refuses anyone else', async () => {
  const store = new MemoryTaskStore();
  const old = (id: string) => ({ id, contextId: 'legacy', status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: new Date().toISOString() } });
  await store.create('', old('a1'), { owner: 'alice' });
  await store.create('', old('b1'), { owner: 'bob' });
  const h = new A2ARequestHandler({ agentCard: card, executor: done, push: TEST_PUSH, store });
  assert.equal(await reason(h.unary('sendMessage', message('alice again', { contextId: 'legacy' }), as('alice'))), 'ok');
  assert.equal(await reason(h.unary('sendMessage', message('bob again', { contextId: 'legacy' }), as('bob'))), 'ok');
  assert.equal(await reason(h.unary('sendMessage', message('carol', { contextId: 'legacy' }), as('carol'))), 'INVALID_PARAMS');
  await h.drain(0);
});

test("TENANT-06 retention: a context whose tasks were all purged stays its owner's for a retention period, then is forgotten", async () => {
  const store = new SqliteTaskStore({ path: ':memory:' });
  const h = new A2ARequestHandler({ agentCard: card, executor: done, push: TEST_PUSH, store });
  // A purge whose cutoff is just past the tasks written so far (as `now - maxAge` is, later on).
  const purgeUpToNow = async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return store.purgeTerminal({ before: new Date(Date.now() - 5) });
  };
  try {
    const started = await h.unary('sendMessage', message('alice starts'), as('alice'));
    assert.ok('task' in started && started.task.status.state === 'TASK_STATE_COMPLETED');
    const contextId = started.task.contextId as string;
    assert.equal(await purgeUpToNow(), 1);
    assert.equal(await store.get('', started.task.id), undefined, 'the task is gone');
    assert.equal(await reason(h.unary('sendMessage', message('bob takes over', { contextId }), as('bob'))), 'INVALID_PARAMS');
    assert.equal(await reason(h.unary('sendMessage', message('alice again', { contextId }), as('alice'))), 'ok');
    // Alice's new task is purged in turn: the context is still hers.
    assert.equal(await purgeUpToNow(), 1);
    assert.equal(await reason(h.unary('sendMessage', message('bob', { contextId }), as('bob'))), 'INVALID_PARAMS');
    // A retention period after its last task went (a cutoff past that purge), the empty context is forgotten, and free.
    assert.equal(await store.purgeTerminal({ before: new Date(Date.now() + 60_000) }), 0);
    assert.equal(await reason(h.unary('sendMessage', message('bob, later', { contextId }), as('bob'))), 'ok');
  } finally {
    await h.drain(0);
    await store.close();
  }
});
