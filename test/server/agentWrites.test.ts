/**
 * What an agent writes is checked like a client's request (src/server/agentWrites.ts, with the
 * decoder of src/protocol/decode.ts): a malformed status, message or artifact is refused at the
 * agent's call with a TypeError naming the field; the run then fails the task with the generic
 * message, and nothing malformed is stored or sent (LIFE-01, STREAM-10). Over handler.fetch.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AHandler } from '../../src/server/createA2AHandler.js';
import type { ErrorContext } from '../../src/server/errorHook.js';
import type { TaskUpdater } from '../../src/server/taskUpdater.js';
import type { Part, Task, TaskState } from '../../src/protocol/types.js';
import type { DescMessage } from '@bufbuild/protobuf';
import { ArtifactSchema, MessageSchema, TaskStatusSchema } from '../../src/gen/a2a_pb.js';
import { decodeMessage } from '../../src/protocol/decode.js';
import { isPlainWrite } from '../../src/server/agentWrites.js';
import { testCard } from './support.js';

type Bad = (task: TaskUpdater) => Promise<unknown>;

/** JS authors (or TS with casts) write these; each case: the write and the TypeError it gets. */
const CASES: Record<string, { write: Bad; error: string }> = {
  'status WORKING (no prefix)': {
    write: (t) => t.setStatus('WORKING' as TaskState),
    error: 'setStatus: state unknown TaskState value "WORKING"',
  },
  'status UNSPECIFIED (LIFE-01)': {
    write: (t) => t.setStatus('TASK_STATE_UNSPECIFIED'),
    error: 'setStatus: TASK_STATE_UNSPECIFIED is not a state a task can be in (LIFE-01)',
  },
  'back to SUBMITTED after WORKING (LIFE-01)': {
    write: (t) => t.setStatus('TASK_STATE_SUBMITTED'),
    error: 'setStatus: a task cannot go back to TASK_STATE_SUBMITTED (it is TASK_STATE_WORKING)',
  },
  'a status message with a number as text': {
    write: (t) => t.complete({ text: 1 } as unknown as Part),
    error: 'setStatus: message.parts[0].text must be a string',
  },
  'a 0.3-style part { kind, text }': {
    write: (t) => t.addArtifact({ kind: 'text', text: 'x' } as unknown as Part),
    error: 'addArtifact: parts[0].kind is not a field of Part',
  },
  'a part with a number as text': {
    write: (t) => t.addArtifact({ text: 42 } as unknown as Part),
    error: 'addArtifact: parts[0].text must be a string',
  },
  'a part with no content': {
    write: (t) => t.addArtifact({ mediaType: 'text/plain' } as unknown as Part),
    error: 'addArtifact: parts[0] must set one of text, raw, url, data',
  },
  'a part with two contents': {
    write: (t) => t.addArtifact({ text: 'a', url: 'https://example.com/' } as unknown as Part),
    error: 'addArtifact: parts[0] must set only one of text, raw, url, data',
  },
  'undefined content': {
    write: (t) => t.addArtifact(undefined as unknown as Part),
    error: 'addArtifact: content must be a string, a Part or an array of Parts (got undefined)',
  },
  'no parts (parts are REQUIRED)': {
    write: (t) => t.addArtifact([]),
    error: 'addArtifact: parts must not be empty',
  },
  'a BigInt in metadata': {
    write: (t) => t.addArtifact('x', { metadata: { n: 1n } as unknown as Record<string, never> }),
    error: 'addArtifact: metadata.n must be JSON (got a bigint)',
  },
  'a circular data part': {
    write: (t) => {
      const data: Record<string, unknown> = { name: 'loop' };
      data.self = data;
      return t.addArtifact({ data } as unknown as Part);
    },
    error: 'addArtifact: parts[0].data.self is circular (it contains itself)',
  },
  'a function in a data part': {
    write: (t) => t.addArtifact({ data: { f: () => 1 } as unknown as Record<string, never> }),
    error: 'addArtifact: parts[0].data.f must be JSON (got a function)',
  },
  'a Date in metadata': {
    write: (t) => t.addArtifact('x', { metadata: { at: new Date(0) } as unknown as Record<string, never> }),
    error: 'addArtifact: metadata.at must be JSON (got a Date)',
  },
  'an append after the last chunk (STREAM-10)': {
    write: async (t) => {
      const artifactId = await t.addArtifact('one', { lastChunk: true });
      await t.addArtifact('two', { artifactId, append: true });
    },
    error: 'addArtifact: artifact ART already had its last chunk (lastChunk: true); nothing can be appended to it',
  },
};

interface Fixture {
  fetch: (path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;
  reports: { error: unknown; context: ErrorContext | undefined }[];
  seen: unknown[];
}

/** An agent that starts work, then makes the case's write (named by the message text). */
function fixture(): Fixture {
  const reports: Fixture['reports'] = [];
  const seen: unknown[] = [];
  const handler = createA2AHandler({
    agentCard: testCard('writes'),
    newId: (() => {
      let n = 0;
      return () => `id-${++n}`;
    })(),
    executor: {
      async execute(ctx, task) {
        await task.startWork();
        const c = CASES[ctx.text];
        if (!c) return task.complete('ok');
        try {
          await c.write(task);
        } catch (error) {
          seen.push(error); // the author's own call is what fails
          throw error;
        }
        await task.complete('should not get here');
      },
    },
    onError: (error, context) => reports.push({ error, context }),
  });
  const fetch: Fixture['fetch'] = async (path, body) => {
    const res = await handler.fetch(
      new Request(`http://localhost/a2a/rest${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { fetch, reports, seen };
}

let counter = 0;
const send = (f: Fixture, text: string) => f.fetch('/message:send', { message: { messageId: `m-${++counter}`, role: 'ROLE_USER', parts: [{ text }] } });

describe('agent writes are validated like requests (LIFE-01, STREAM-10)', () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(`${name}: a TypeError at the agent's call, the task FAILED with the generic message, nothing malformed stored`, async () => {
      const f = fixture();
      const res = await send(f, name);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const task = res.body.task as Task;
      assert.equal(task.status.state, 'TASK_STATE_FAILED');
      assert.deepEqual(task.status.message?.parts, [{ text: 'The agent failed while processing this message' }]);
      // The author's call rejected with a precise TypeError, which onError received with the task's ids.
      const expected = c.error.replace('ART', (task.artifacts?.[0]?.artifactId as string) ?? '');
      assert.equal(f.seen.length, 1);
      assert.ok(f.seen[0] instanceof TypeError, String(f.seen[0]));
      assert.equal((f.seen[0] as TypeError).message, expected);
      assert.equal(f.reports.length, 1);
      assert.equal(f.reports[0]?.error, f.seen[0]);
      assert.deepEqual(f.reports[0]?.context, { operation: 'execute', tenant: '', taskId: task.id, contextId: task.contextId });
      // Every state ever stored is a real one, and every stored artifact is well-formed.
      for (const m of task.history ?? []) assert.ok(m.parts.length > 0);
      for (const a of task.artifacts ?? []) assert.deepEqual(a.parts, [{ text: 'one' }]);
      // The task stays readable (no -32603 on every later read).
      const again = await f.fetch(`/tasks/${task.id}`);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((again.body as unknown as Task).status.state, 'TASK_STATE_FAILED');
    });
  }

  test('reply() is checked too: a BigInt in a data part is a TypeError, the task FAILED', async () => {
    const reports: unknown[] = [];
    const handler = createA2AHandler({
      agentCard: testCard('reply'),
      executor: { execute: (_ctx, task) => task.reply({ data: { n: 2n } } as unknown as Part) },
      onError: (error) => reports.push(error),
    });
    const res = await handler.fetch(
      new Request('http://localhost/a2a/rest/message:send', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'r-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
      }),
    );
    const body = (await res.json()) as { task?: Task };
    assert.equal(body.task?.status.state, 'TASK_STATE_FAILED');
    assert.equal((reports[0] as Error).message, 'reply: parts[0].data.n must be JSON (got a bigint)');
  });

  test('well-formed writes are stored as written: undefined members left out (as JSON.stringify does), no size limits of requests', async () => {
    const handler = createA2AHandler({
      agentCard: testCard('fine'),
      executor: {
        async execute(_ctx, task) {
          // What a JS author writes (undefined members), and more than a request may carry (1500 elements).
          const data = { a: 1, b: undefined, list: Array.from({ length: 1500 }, (_, i) => i) } as unknown as Record<string, never>;
          const metadata = { note: undefined, k: 'v' } as unknown as Record<string, never>;
          const id = await task.addArtifact({ data }, { metadata });
          await task.addArtifact([{ text: 'more' }], { artifactId: id, append: true, lastChunk: true });
          await task.complete();
        },
      },
      onError: (error) => assert.fail(String(error)),
    });
    const res = await handler.fetch(
      new Request('http://localhost/a2a/rest/message:send', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'f-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
      }),
    );
    const { task } = (await res.json()) as { task: Task };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const artifact = task.artifacts?.[0];
    assert.deepEqual(artifact?.metadata, { k: 'v' });
    assert.deepEqual(Object.keys((artifact?.parts[0] as { data: object }).data), ['a', 'list']);
    assert.equal(artifact?.parts.length, 2);
  });
});

describe('the shortcut for plain writes (isPlainWrite) says yes only where the decoder agrees', () => {
  const id = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
  const message = (extra: Record<string, unknown> = {}) => ({ messageId: id, contextId: id, taskId: id, role: 'ROLE_AGENT', parts: [{ text: 'hi' }], ...extra });
  const samples: [DescMessage, unknown][] = [
    [MessageSchema, message()],
    [MessageSchema, message({ parts: [{ text: 'a' }, { text: 'b' }] })],
    [MessageSchema, message({ parts: [{ text: '' }] })],
    [MessageSchema, message({ parts: [] })],
    [MessageSchema, message({ parts: [{ text: 'x', kind: 'text' }] })],
    [MessageSchema, message({ parts: [{ data: { a: 1 } }] })],
    [MessageSchema, message({ role: 'ROLE_UNSPECIFIED' })],
    [MessageSchema, message({ role: 'agent' })],
    [MessageSchema, message({ messageId: 'a\u0000b' })],
    [MessageSchema, message({ messageId: '' })],
    [MessageSchema, message({ metadata: { a: 1 } })],
    [MessageSchema, message({ kind: 'message' })],
    [MessageSchema, message({ parts: [{ text: 'lone \ud800' }] })],
    [MessageSchema, message({ messageId: 'a\udc00' })],
    [ArtifactSchema, { artifactId: 'a1', name: '\ud800', parts: [{ text: 'chunk' }] }],
    [ArtifactSchema, { artifactId: 'a1', parts: [{ text: 'chunk' }] }],
    [ArtifactSchema, { artifactId: 'a1', name: 'answer', description: 'd', parts: [{ text: 'chunk' }] }],
    [ArtifactSchema, { artifactId: 'a1', name: '', parts: [{ text: 'chunk' }] }],
    [ArtifactSchema, { artifactId: '', parts: [{ text: 'chunk' }] }],
    [ArtifactSchema, { artifactId: 'a1', parts: [{ text: 7 }] }],
    [ArtifactSchema, { artifactId: 'a1' }],
    [TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: '2026-12-01T10:00:00.000Z' }],
    [TaskStatusSchema, { state: 'TASK_STATE_COMPLETED', message: message(), timestamp: '2026-12-01T10:00:00.000Z' }],
    [TaskStatusSchema, { state: 'WORKING', timestamp: '2026-12-01T10:00:00.000Z' }],
    [TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: '2026-12-01T10:00:00.000z' }],
    [TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: 'yesterday' }],
    [TaskStatusSchema, { state: 'TASK_STATE_WORKING', message: message({ parts: [{ raw: 'AA==' }] }), timestamp: '2026-12-01T10:00:00.000Z' }],
  ];

  test('every sample the shortcut keeps, the decoder accepts and returns unchanged; and the shortcut takes the common writes', () => {
    let kept = 0;
    for (const [desc, value] of samples) {
      if (!isPlainWrite(desc, value)) continue;
      kept++;
      const decoded = decodeMessage(desc, value, { limits: { maxListLength: Infinity, maxObjectKeys: Infinity, maxStringLength: Infinity }, unknownFields: 'reject' });
      assert.deepEqual(decoded, value, `${desc.name} ${JSON.stringify(value)}`);
    }
    assert.equal(isPlainWrite(MessageSchema, message()), true, 'a text message takes the shortcut');
    assert.equal(isPlainWrite(ArtifactSchema, { artifactId: 'a1', parts: [{ text: 'chunk' }] }), true, 'a text chunk takes the shortcut');
    assert.ok(kept >= 5 && kept < samples.length, `${kept} of ${samples.length} kept`);
  });
});
