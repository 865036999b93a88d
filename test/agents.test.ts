/**
 * The demo and conformance agents driven through the real request handler (no HTTP).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2ARequestHandler, type CallContext } from '../src/server/requestHandler.js';
import type { AgentExecutor } from '../src/server/agentExecutor.js';
import type { StreamItem } from '../src/server/taskStream.js';
import type { AgentCard, Artifact, Message, Part, SendMessageResponse, StreamResponse, Task } from '../src/protocol/types.js';
import { createDemoAgent, demoAgent, demoCard, STREAM_CHUNKS, utf8ToBase64 } from '../src/cli/agents/demo.js';
import { conformanceAgent, conformanceCard, createConformanceAgent, FILE_CONTENT, matchPrefix } from '../src/cli/agents/conformance.js';
import { TEST_PUSH } from './support/server.js';

const ctx: CallContext = { protocolVersion: '1.0', requestedExtensions: [] };
const interfaces = [{ url: 'http://localhost/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];

function handlerFor(executor: AgentExecutor, card: Omit<AgentCard, 'supportedInterfaces'>): A2ARequestHandler {
  return new A2ARequestHandler({ agentCard: { ...card, supportedInterfaces: interfaces }, executor, push: TEST_PUSH });
}
const demo = (executor: AgentExecutor = demoAgent) => handlerFor(executor, demoCard());
const conformance = (executor: AgentExecutor = conformanceAgent) => handlerFor(executor, conformanceCard());

let counter = 0;
function userMessage(text: string, extra: { messageId?: string; taskId?: string } = {}): Message {
  return { messageId: extra.messageId ?? `m-${++counter}`, role: 'ROLE_USER', parts: [{ text }], ...(extra.taskId ? { taskId: extra.taskId } : {}) };
}

async function send(h: A2ARequestHandler, message: Message, configuration?: object): Promise<SendMessageResponse> {
  return h.unary('sendMessage', { message, ...(configuration ? { configuration } : {}) }, ctx);
}

async function sendTask(h: A2ARequestHandler, message: Message): Promise<Task> {
  const res = await send(h, message);
  assert.ok('task' in res, `expected a task, got ${JSON.stringify(res)}`);
  return res.task;
}

async function collect(items: AsyncIterable<StreamItem>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const item of items) out.push(item.event);
  return out;
}

async function streamEvents(h: A2ARequestHandler, message: Message): Promise<StreamResponse[]> {
  return collect(await h.stream('sendStreamingMessage', { message }, ctx));
}

/** A compact trace of a stream: task:STATE, status:STATE, artifact[+][!]. */
function kinds(events: StreamResponse[]): string[] {
  return events.map((e) => {
    if ('task' in e) return `task:${short(e.task.status.state)}`;
    if ('message' in e) return 'message';
    if ('statusUpdate' in e) return `status:${short(e.statusUpdate.status.state)}`;
    const a = e.artifactUpdate;
    return `artifact${a.append ? '+' : ''}${a.lastChunk ? '!' : ''}`;
  });
}
function short(state: string): string {
  return state.replace('TASK_STATE_', '');
}

function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}
function statusText(task: Task): string {
  return textOf(task.status.message?.parts);
}
function onlyArtifact(task: Task): Artifact {
  assert.equal(task.artifacts?.length, 1, `expected one artifact, got ${JSON.stringify(task.artifacts)}`);
  return task.artifacts?.[0] as Artifact;
}
function artifactUpdates(events: StreamResponse[]) {
  return events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
}
function lastStatus(events: StreamResponse[]) {
  const s = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status] : []));
  return s[s.length - 1];
}
function base64ToUtf8(b64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

// ---------------------------------------------------------------- demo agent

test('demo card: name, capabilities, one skill per behaviour', () => {
  const card = demoCard();
  assert.equal(card.name, 'a2a-kit demo agent');
  assert.deepEqual(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
  assert.deepEqual(card.defaultInputModes, ['text/plain', 'application/json', 'application/octet-stream']);
  assert.deepEqual(
    card.skills.map((s) => s.id),
    ['echo', 'message', 'stream', 'ask', 'slow', 'fail', 'reject', 'data', 'file'],
  );
  for (const s of card.skills) {
    assert.ok(s.name && s.description && s.tags.length > 0 && (s.examples?.length ?? 0) > 0, `skill ${s.id} is complete`);
  }
});

test('demo echo: "hi" completes with an "echo" artifact', async () => {
  const task = await sendTask(demo(), userMessage('  hi  '));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const artifact = onlyArtifact(task);
  assert.equal(artifact.name, 'echo');
  assert.equal(textOf(artifact.parts), 'hi');
  assert.equal(textOf(task.history?.[0]?.parts), '  hi  ', 'the user message is history[0]');
});

test('demo echo: unknown keyword is echoed whole', async () => {
  const task = await sendTask(demo(), userMessage('hello there world'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(textOf(onlyArtifact(task).parts), 'hello there world');
});

test('demo msg: a direct Message reply, no task', async () => {
  const h = demo();
  const res = await send(h, userMessage('msg hello back'));
  assert.ok('message' in res);
  assert.equal(res.message.role, 'ROLE_AGENT');
  assert.equal(textOf(res.message.parts), 'hello back');
  assert.equal(res.message.taskId, undefined);
  const list = await h.unary('listTasks', {}, ctx);
  assert.equal(list.tasks.length, 0, 'no task was created');
});

test('demo msg: streaming yields the single message', async () => {
  const events = await streamEvents(demo(), userMessage('msg streamed reply'));
  assert.deepEqual(kinds(events), ['message']);
  const [first] = events;
  assert.ok(first && 'message' in first);
  assert.equal(textOf(first.message.parts), 'streamed reply');
});

test('demo stream: WORKING, 10 chunks of one artifact, COMPLETED', async () => {
  const h = demo();
  const events = await streamEvents(h, userMessage('stream abc'));
  assert.deepEqual(kinds(events), [
    'task:SUBMITTED',
    'status:WORKING',
    'artifact',
    ...Array.from({ length: STREAM_CHUNKS - 2 }, () => 'artifact+'),
    'artifact+!',
    'status:COMPLETED',
  ]);
  const chunks = artifactUpdates(events);
  assert.equal(chunks.length, 10);
  const ids = new Set(chunks.map((c) => c.artifact.artifactId));
  assert.equal(ids.size, 1, 'all chunks share one artifactId');
  const expected = Array.from({ length: 10 }, (_, i) => `chunk ${i + 1}/10: abc\n`).join('');
  assert.equal(chunks.map((c) => textOf(c.artifact.parts)).join(''), expected);

  // The stored task assembled the chunks into one artifact.
  const first = events[0];
  assert.ok(first && 'task' in first);
  const stored = await h.unary('getTask', { id: first.task.id }, ctx);
  assert.equal(stored.status.state, 'TASK_STATE_COMPLETED');
  const artifact = onlyArtifact(stored);
  assert.equal(artifact.parts.length, 10);
  assert.equal(textOf(artifact.parts), expected);
});

test('demo stream: with an optional delay between chunks', async () => {
  const events = await streamEvents(demo(createDemoAgent({ streamDelayMs: 2 })), userMessage('stream x'));
  assert.equal(artifactUpdates(events).length, 10);
  assert.equal(lastStatus(events)?.state, 'TASK_STATE_COMPLETED');
});

test('demo ask: INPUT_REQUIRED with the question, follow-up completes with the answer', async () => {
  const h = demo();
  const asked = await sendTask(h, userMessage('ask what is your name'));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(asked.status.message?.role, 'ROLE_AGENT');
  assert.equal(statusText(asked), 'what is your name?');
  assert.equal(asked.artifacts, undefined);

  const done = await sendTask(h, userMessage('Bob', { taskId: asked.id }));
  assert.equal(done.id, asked.id);
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  const artifact = onlyArtifact(done);
  assert.equal(artifact.name, 'answer');
  assert.equal(textOf(artifact.parts), 'Bob');
  assert.match(statusText(done), /Bob/);
  // History holds the request, the question (moved out of the status) and the answer.
  // Order-insensitive on purpose: the core currently stores the answer before the question
  // (execution.ts appends the follow-up before the status message moves into history).
  assert.deepEqual(
    done.history?.map((m) => `${m.role}:${textOf(m.parts)}`).sort(),
    ['ROLE_AGENT:what is your name?', 'ROLE_USER:Bob', 'ROLE_USER:ask what is your name'],
  );
});

test('demo ask: follow-up over a stream starts with the task, then completes', async () => {
  const h = demo();
  const asked = await sendTask(h, userMessage('ask color'));
  const events = await streamEvents(h, userMessage('blue', { taskId: asked.id }));
  assert.deepEqual(kinds(events), ['task:INPUT_REQUIRED', 'artifact', 'status:COMPLETED']);
  assert.equal(textOf(artifactUpdates(events)[0]?.artifact.parts), 'blue');
});

test('demo slow: progress updates every tick, then COMPLETED', async () => {
  const h = demo(createDemoAgent({ slowMs: 50, tickMs: 10 }));
  const events = await streamEvents(h, userMessage('slow job'));
  const statuses = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status] : []));
  assert.deepEqual(
    statuses.map((s) => `${short(s.state)}:${textOf(s.message?.parts)}`),
    ['WORKING:progress 0/5', 'WORKING:progress 1/5', 'WORKING:progress 2/5', 'WORKING:progress 3/5', 'WORKING:progress 4/5', 'COMPLETED:progress 5/5'],
  );
  assert.equal(textOf(artifactUpdates(events)[0]?.artifact.parts), 'Finished slow work: job');
});

test('demo slow: A2A_DEMO_SLOW_MS configures the default agent', async () => {
  const saved = { slow: process.env.A2A_DEMO_SLOW_MS, tick: process.env.A2A_DEMO_TICK_MS };
  process.env.A2A_DEMO_SLOW_MS = '20';
  process.env.A2A_DEMO_TICK_MS = '10';
  try {
    const task = await sendTask(demo(), userMessage('slow env'));
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(statusText(task), 'progress 2/2');
  } finally {
    for (const [k, v] of [['A2A_DEMO_SLOW_MS', saved.slow], ['A2A_DEMO_TICK_MS', saved.tick]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test('demo slow: cancel mid-way ends CANCELED and the agent stops promptly', async () => {
  let aborted = false;
  const inner = createDemoAgent({ slowMs: 60_000, tickMs: 5 });
  let finished: Promise<void> | undefined;
  const agent: AgentExecutor = {
    execute(c, t) {
      c.signal.addEventListener('abort', () => (aborted = true));
      finished = inner.execute(c, t);
      return finished;
    },
  };
  const h = demo(agent);
  const items = (await h.stream('sendStreamingMessage', { message: userMessage('slow forever') }, ctx))[Symbol.asyncIterator]();
  const seen: StreamResponse[] = [];
  let taskId = '';
  for (;;) {
    const next = await items.next();
    assert.ok(!next.done, 'stream ended before progress');
    seen.push(next.value.event);
    const e = next.value.event;
    if ('task' in e) taskId = e.task.id;
    if ('statusUpdate' in e && textOf(e.statusUpdate.status.message?.parts) === 'progress 2/12000') break;
  }
  const started = Date.now();
  const canceled = await h.unary('cancelTask', { id: taskId }, ctx);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  assert.ok(aborted, 'ctx.signal was aborted');
  await finished;
  assert.ok(Date.now() - started < 1000, 'execute returned promptly after cancel');
  // The stream ends with the CANCELED update.
  for (;;) {
    const next = await items.next();
    if (next.done) break;
    seen.push(next.value.event);
  }
  assert.equal(kinds(seen).at(-1), 'status:CANCELED');
  await new Promise((r) => setTimeout(r, 30));
  const stored = await h.unary('getTask', { id: taskId }, ctx);
  assert.equal(stored.status.state, 'TASK_STATE_CANCELED', 'no late update after the cancel');
  assert.equal(stored.artifacts, undefined);
});

test('demo fail: FAILED with a message', async () => {
  const task = await sendTask(demo(), userMessage('fail disk full'));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assert.equal(statusText(task), 'Failed as requested: disk full');
});

test('demo reject: REJECTED with a message', async () => {
  const task = await sendTask(demo(), userMessage('reject not today'));
  assert.equal(task.status.state, 'TASK_STATE_REJECTED');
  assert.equal(statusText(task), 'Rejected as requested: not today');
});

test('demo keyword alone: "fail", "msg", "stream" act as their keyword, with the keyword as their text', async () => {
  const failed = await sendTask(demo(), userMessage('fail'));
  assert.equal(failed.status.state, 'TASK_STATE_FAILED');
  assert.equal(statusText(failed), 'Failed as requested: fail');
  const reply = await send(demo(), userMessage(' msg '));
  assert.ok('message' in reply);
  assert.equal(textOf(reply.message.parts), 'msg');
  const events = await streamEvents(demo(), userMessage('stream'));
  assert.equal(events.filter((e) => 'artifactUpdate' in e).length, STREAM_CHUNKS);
});

test('demo data: artifact with a JSON data part', async () => {
  const task = await sendTask(demo(), userMessage('data hello'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const [part] = onlyArtifact(task).parts;
  assert.deepEqual(part, { data: { echo: 'hello', length: 5 }, mediaType: 'application/json' });
});

test('demo file: artifact with a base64 raw part echo.txt (UTF-8)', async () => {
  const task = await sendTask(demo(), userMessage('file héllo ✓'));
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const [part] = onlyArtifact(task).parts;
  assert.ok(part && 'raw' in part);
  assert.equal(part.filename, 'echo.txt');
  assert.equal(part.mediaType, 'text/plain');
  assert.equal(base64ToUtf8(part.raw), 'héllo ✓');
  assert.equal(part.raw, utf8ToBase64('héllo ✓'));
  assert.equal(utf8ToBase64('héllo ✓'), Buffer.from('héllo ✓', 'utf8').toString('base64'));
});

// ---------------------------------------------------------------- conformance agent

test('conformance card: streaming on, push off', () => {
  const card = conformanceCard();
  assert.equal(card.capabilities.streaming, true);
  assert.equal(card.capabilities.pushNotifications, true);
  assert.ok(card.skills.length > 0);
});

test('conformance prefixes: the longest match wins', () => {
  assert.equal(matchPrefix('tck-artifact-file-url-123'), 'tck-artifact-file-url');
  assert.equal(matchPrefix('tck-artifact-file-123'), 'tck-artifact-file');
  assert.equal(matchPrefix('tck-stream-artifact-chunked-1'), 'tck-stream-artifact-chunked');
  assert.equal(matchPrefix('tck-stream-artifact-file-1'), 'tck-stream-artifact-file');
  assert.equal(matchPrefix('nope'), undefined);
});

const send1 = (id: string, text = 'Hello from TCK') => sendTask(conformance(), userMessage(text, { messageId: id }));

test('conformance tck-complete-task: COMPLETED with "Hello from TCK"', async () => {
  const task = await send1('tck-complete-task-001');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(statusText(task), 'Hello from TCK');
});

test('conformance tck-artifact-text: text artifact', async () => {
  const task = await send1('tck-artifact-text-1');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(onlyArtifact(task).parts, [{ text: 'Generated text content' }]);
});

test('conformance tck-artifact-file: raw file part output.txt', async () => {
  const task = await send1('tck-artifact-file-1');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const [part] = onlyArtifact(task).parts;
  assert.ok(part && 'raw' in part);
  assert.equal(part.filename, 'output.txt');
  assert.equal(part.mediaType, 'text/plain');
  assert.equal(base64ToUtf8(part.raw), FILE_CONTENT);
});

test('conformance tck-artifact-file-url: url file part', async () => {
  const task = await send1('tck-artifact-file-url-1');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(onlyArtifact(task).parts, [{ url: 'https://example.com/output.txt', filename: 'output.txt', mediaType: 'text/plain' }]);
});

test('conformance tck-artifact-data: data part', async () => {
  const task = await send1('tck-artifact-data-1');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const [part] = onlyArtifact(task).parts;
  assert.ok(part && 'data' in part);
  assert.deepEqual(part.data, { key: 'value', count: 42 });
});

test('conformance tck-message-response: direct Message', async () => {
  const res = await send(conformance(), userMessage('hi', { messageId: 'tck-message-response-1' }));
  assert.ok('message' in res);
  assert.equal(res.message.role, 'ROLE_AGENT');
  assert.equal(textOf(res.message.parts), 'Direct message response');
});

test('conformance tck-input-required: INPUT_REQUIRED, follow-up completes', async () => {
  const h = conformance();
  const asked = await sendTask(h, userMessage('hi', { messageId: 'tck-input-required-1' }));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.ok(statusText(asked).length > 0, 'a question message');
  const done = await sendTask(h, userMessage('more input', { taskId: asked.id }));
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
});

test('conformance tck-reject-task: executor error becomes FAILED', async () => {
  const task = await send1('tck-reject-task-1');
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  // The exception's own text stays server-side (it may hold internals); the client gets a generic reason.
  assert.match(statusText(task), /agent failed/);
  assert.doesNotMatch(statusText(task), /rejected/);
});

for (const [id, expected] of [
  ['tck-stream-001', 'Stream hello from TCK'],
  ['tck-stream-003', 'Stream task lifecycle'],
  ['tck-stream-ordering-001', 'Ordered output'],
  ['tck-stream-artifact-text', 'Streamed text content'],
] as const) {
  test(`conformance ${id}: WORKING, artifact "${expected}", COMPLETED`, async () => {
    const events = await streamEvents(conformance(), userMessage('hi', { messageId: `${id}-abc` }));
    assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'artifact', 'status:COMPLETED']);
    assert.deepEqual(artifactUpdates(events)[0]?.artifact.parts, [{ text: expected }]);
  });
}

test('conformance tck-stream-artifact-file: WORKING, file artifact, COMPLETED', async () => {
  const events = await streamEvents(conformance(), userMessage('hi', { messageId: 'tck-stream-artifact-file-1' }));
  assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'artifact', 'status:COMPLETED']);
  const [part] = artifactUpdates(events)[0]?.artifact.parts ?? [];
  assert.ok(part && 'raw' in part);
  assert.equal(part.filename, 'output.txt');
  assert.equal(base64ToUtf8(part.raw), FILE_CONTENT);
});

test('conformance tck-stream-002: COMPLETED directly', async () => {
  const events = await streamEvents(conformance(), userMessage('hi', { messageId: 'tck-stream-002-1' }));
  assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:COMPLETED']);
});

test('conformance tck-stream-artifact-chunked: two chunks of one artifact', async () => {
  const h = conformance();
  const events = await streamEvents(h, userMessage('hi', { messageId: 'tck-stream-artifact-chunked-1' }));
  assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'artifact', 'artifact+!', 'status:COMPLETED']);
  const chunks = artifactUpdates(events);
  assert.equal(chunks[0]?.artifact.artifactId, chunks[1]?.artifact.artifactId);
  assert.deepEqual(
    chunks.map((c) => textOf(c.artifact.parts)),
    ['chunk-1 ', 'chunk-2'],
  );
  const first = events[0];
  assert.ok(first && 'task' in first);
  const stored = await h.unary('getTask', { id: first.task.id }, ctx);
  assert.equal(textOf(onlyArtifact(stored).parts), 'chunk-1 chunk-2');
});

test('conformance test-resubscribe-message-id: WORKING, resubscribe, COMPLETED', async () => {
  const h = conformance(createConformanceAgent({ waitMs: 100 }));
  const res = await send(h, userMessage('hi', { messageId: 'test-resubscribe-message-id-1' }), { returnImmediately: true });
  assert.ok('task' in res);
  // Wait until WORKING, then resubscribe.
  for (let i = 0; i < 50; i++) {
    const t = await h.unary('getTask', { id: res.task.id }, ctx);
    if (t.status.state === 'TASK_STATE_WORKING') break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const events = await collect(await h.stream('subscribeToTask', { id: res.task.id }, ctx));
  assert.deepEqual(kinds(events), ['task:WORKING', 'status:COMPLETED']);
});

test('conformance test-resubscribe-message-id: A2A_CONFORMANCE_WAIT_MS configures the wait', async () => {
  const saved = process.env.A2A_CONFORMANCE_WAIT_MS;
  process.env.A2A_CONFORMANCE_WAIT_MS = '5';
  try {
    const events = await streamEvents(conformance(), userMessage('hi', { messageId: 'test-resubscribe-message-id-2' }));
    assert.deepEqual(kinds(events), ['task:SUBMITTED', 'status:WORKING', 'status:COMPLETED']);
  } finally {
    if (saved === undefined) delete process.env.A2A_CONFORMANCE_WAIT_MS;
    else process.env.A2A_CONFORMANCE_WAIT_MS = saved;
  }
});

test('conformance test-resubscribe-message-id: cancel during the wait', async () => {
  const h = conformance(createConformanceAgent({ waitMs: 60_000 }));
  const res = await send(h, userMessage('hi', { messageId: 'test-resubscribe-message-id-3' }), { returnImmediately: true });
  assert.ok('task' in res);
  const started = Date.now();
  const canceled = await h.unary('cancelTask', { id: res.task.id }, ctx);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  await h.drain(1000);
  assert.ok(Date.now() - started < 1000, 'the agent returned promptly');
  const stored = await h.unary('getTask', { id: res.task.id }, ctx);
  assert.equal(stored.status.state, 'TASK_STATE_CANCELED');
});

test('conformance unknown prefix: COMPLETED with "Unhandled messageId prefix"', async () => {
  const task = await send1('something-else-42');
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(statusText(task), 'Unhandled messageId prefix: something-else-42');
  assert.equal(textOf(onlyArtifact(task).parts), 'Unhandled messageId prefix: something-else-42');
});
