/**
 * R4: SendMessage is idempotent by messageId. A retry — sequential, concurrent, streamed, or
 * after the server was killed — is answered from the task the first delivery created or
 * continued, and appends nothing; the same id with a different message is invalid params
 * (-32602). Runs on the memory store and on SQLite; the kill -9 case runs the real server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createA2AHandler, type A2AHandler } from '../../src/server/createA2AHandler.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { TaskStore } from '../../src/server/stores/taskStore.js';
import type { Message, StreamResponse, Task } from '../../src/protocol/types.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { parseSse } from '../support/sse.js';
import { TEST_PUSH } from '../support/server.js';


interface Rpc {
  result?: { task?: Task; message?: Message };
  /** The results of an SSE answer, in order. */
  events?: StreamResponse[];
  error?: { code: number; message: string; data?: Array<{ fieldViolations?: Array<{ field: string }> }> };
}

function server(store: TaskStore): A2AHandler {
  return createA2AHandler({
    agentCard: withInterfaces(demoCard(), { httpBaseUrl: 'http://localhost', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' }),
    executor: createDemoAgent({ slowMs: 150, tickMs: 30, streamDelayMs: 5 }),
    store,
    push: TEST_PUSH,
  });
}

async function call(handler: A2AHandler, method: string, params: unknown): Promise<Rpc> {
  const res = await handler.fetch(
    new Request('http://localhost/a2a/jsonrpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { events: parseSse(text).events.map((e) => (JSON.parse(e.data) as { result: StreamResponse }).result) };
  }
  return JSON.parse(text) as Rpc;
}

function msg(messageId: string, text: string, extra: Partial<Message> = {}): Message {
  return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

async function taskCount(handler: A2AHandler): Promise<number> {
  const r = (await call(handler, 'ListTasks', { pageSize: 1 })) as { result?: { totalSize?: number } };
  return r.result?.totalSize ?? -1;
}

const stores: Array<[string, () => Promise<{ store: TaskStore; cleanup: () => Promise<void> }>]> = [
  ['memory', async () => ({ store: new MemoryTaskStore(), cleanup: async () => {} })],
  [
    'sqlite',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'a2a-r4-'));
      const store = new SqliteTaskStore({ path: join(dir, 'r4.db') });
      return {
        store,
        cleanup: async () => {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];

for (const [name, make] of stores) {
  describe(`R4 idempotent SendMessage (${name})`, () => {
    test('a sequential retry returns the same task and appends nothing', async () => {
      const { store, cleanup } = await make();
      try {
        const h = server(store);
        const first = await call(h, 'SendMessage', { message: msg('r4-seq', 'hello') });
        const task = first.result?.task as Task;
        assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
        const before = await store.get('', task.id);
        const again = await call(h, 'SendMessage', { message: msg('r4-seq', 'hello') });
        assert.deepEqual(again.result, first.result);
        assert.deepEqual(await store.get('', task.id), before);
        assert.equal(await taskCount(h), 1);
      } finally {
        await cleanup();
      }
    });

    test('the same messageId with a different message → -32602 naming message.messageId', async () => {
      const { store, cleanup } = await make();
      try {
        const h = server(store);
        await call(h, 'SendMessage', { message: msg('r4-diff', 'hello') });
        const other = await call(h, 'SendMessage', { message: msg('r4-diff', 'something else') });
        assert.equal(other.error?.code, -32602);
        assert.deepEqual(
          other.error?.data?.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field),
          ['message.messageId'],
        );
        assert.equal(await taskCount(h), 1);
      } finally {
        await cleanup();
      }
    });

    test('concurrent duplicates of a new message: one task, every caller gets it', async () => {
      const { store, cleanup } = await make();
      try {
        const h = server(store);
        const results = await Promise.all(Array.from({ length: 10 }, () => call(h, 'SendMessage', { message: msg('r4-conc', 'hello') })));
        const ids = new Set(results.map((r) => r.result?.task?.id));
        assert.equal(ids.size, 1, JSON.stringify(results.map((r) => r.error ?? r.result?.task?.id)));
        assert.equal(await taskCount(h), 1);
        const id = [...ids][0] ?? '';
        const record = await store.get('', id);
        assert.equal(record?.task.history?.filter((m) => m.messageId === 'r4-conc').length, 1);
        assert.equal(record?.task.status.state, 'TASK_STATE_COMPLETED');
      } finally {
        await cleanup();
      }
    });

    test('a retried follow-up (input required → answer) is not appended twice', async () => {
      const { store, cleanup } = await make();
      try {
        const h = server(store);
        const asked = (await call(h, 'SendMessage', { message: msg('r4-ask', 'ask your name') })).result?.task as Task;
        assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
        const answer = msg('r4-answer', 'Ada', { taskId: asked.id });
        const done = await call(h, 'SendMessage', { message: answer });
        assert.equal(done.result?.task?.status.state, 'TASK_STATE_COMPLETED');
        const before = await store.get('', asked.id);
        const retried = await Promise.all([call(h, 'SendMessage', { message: answer }), call(h, 'SendMessage', { message: answer })]);
        for (const r of retried) assert.deepEqual(r.result, done.result);
        assert.deepEqual(await store.get('', asked.id), before);
        assert.equal(before?.task.history?.filter((m) => m.messageId === 'r4-answer').length, 1);
      } finally {
        await cleanup();
      }
    });

    test('a retried stream follows the task of the first delivery', async () => {
      const { store, cleanup } = await make();
      try {
        const h = server(store);
        const first = (await call(h, 'SendStreamingMessage', { message: msg('r4-stream', 'stream words') })).events ?? [];
        const firstTask = first[0];
        assert.ok(firstTask && 'task' in firstTask);
        const again = (await call(h, 'SendStreamingMessage', { message: msg('r4-stream', 'stream words') })).events ?? [];
        assert.equal(again.length, 1, 'a finished task: just its snapshot');
        const snapshot = again[0];
        assert.ok(snapshot && 'task' in snapshot);
        assert.equal(snapshot.task.id, firstTask.task.id);
        assert.equal(snapshot.task.status.state, 'TASK_STATE_COMPLETED');
        assert.equal(await taskCount(h), 1);
      } finally {
        await cleanup();
      }
    });
  });
}

test('R4 after kill -9: a retry of an acknowledged message returns the same task and appends nothing (sqlite, real server)', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-r4-crash-'));
  const fixture = fileURLToPath(new URL('./fixtures/crashServer.ts', import.meta.url));
  const start = async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, A2A_TEST_STORE: JSON.stringify({ kind: 'sqlite', path: join(dir, 'tasks.db') }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout.setEncoding('utf8').once('data', (d: string) => resolve((JSON.parse(d.split('\n')[0] ?? '') as { url: string }).url));
      proc.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
    const rpc = async (method: string, params: unknown): Promise<Rpc> => {
      const res = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await res.json()) as Rpc;
    };
    const kill = () => new Promise<void>((resolve) => (proc.exitCode !== null ? resolve() : (proc.once('exit', () => resolve()), proc.kill('SIGKILL'))));
    return { rpc, kill };
  };
  try {
    let s = await start();
    const done = (await s.rpc('SendMessage', { message: msg('r4-crash-done', 'hello') })).result?.task as Task;
    // Acknowledged while still running: returnImmediately answers at SUBMITTED.
    const running = (await s.rpc('SendMessage', { message: msg('r4-crash-slow', 'slow job'), configuration: { returnImmediately: true } })).result?.task as Task;
    await s.kill();
    s = await start();
    try {
      const doneAgain = (await s.rpc('SendMessage', { message: msg('r4-crash-done', 'hello') })).result?.task;
      assert.deepEqual(doneAgain, done);
      const runningNow = (await s.rpc('GetTask', { id: running.id })).result as unknown as Task;
      // The restart sweep ended it (R2); the retry answers with that, instead of running the agent again.
      assert.equal(runningNow.status.state, 'TASK_STATE_FAILED');
      const runningAgain = (await s.rpc('SendMessage', { message: msg('r4-crash-slow', 'slow job') })).result?.task;
      assert.deepEqual(runningAgain, runningNow);
      const listed = (await s.rpc('ListTasks', { pageSize: 10 })) as { result?: { totalSize?: number } };
      assert.equal(listed.result?.totalSize, 2);
    } finally {
      await s.kill();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
