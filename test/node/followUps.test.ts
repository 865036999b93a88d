/**
 * Messages a caller does not block on, over real sockets: a follow-up to a task whose run is
 * still going (LIFE-06, §3.3.3) is answered without waiting for the agent or the earlier run:
 * its message is recorded at once and its run comes after the earlier one. A new task with
 * returnImmediately (MSG-02, MSG-03) is answered at the agent's first call, as a stream starts. The agents here hold their runs on gates the tests
 * open, so "answered at once" means "answered while the agent is still held".
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Message, Task } from '../../src/protocol/types.js';
import { UnprocessedMessageError } from '../../src/server/unprocessedMessage.js';
import { getTask, rpc, rpcResult, rpcStream, startServer, stateOf, userMessage, waitForState, waitUntil, within, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A promise the test resolves. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

/**
 * First message: WORKING, then waits for `held`, then ends as `firstEnds` says. Every later
 * message (a follow-up, ctx.task set) completes with "got <text>". `runs` logs each run's text.
 */
function heldAgent(held: Promise<void>, firstEnds: 'input' | 'complete', runs: string[]): AgentExecutor {
  return {
    async execute(ctx, task) {
      runs.push(ctx.text);
      if (ctx.task) {
        await task.complete(`got ${ctx.text}`);
        return;
      }
      await task.startWork('working');
      await held;
      if (firstEnds === 'input') await task.requireInput('anything else?');
      else await task.complete('first done');
    },
  };
}

async function startFirst(s: TestServer): Promise<Task> {
  const { task } = await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('first'), configuration: { returnImmediately: true } });
  return waitForState(s.rpcUrl, task.id, 'TASK_STATE_WORKING', 5_000);
}

test('LIFE-06 MSG-02 a returnImmediately follow-up to a task still WORKING is answered at once, with its message in the history; its run follows', async () => {
  const held = gate();
  const runs: string[] = [];
  const s = await startServer(heldAgent(held.opened, 'input', runs));
  servers.push(s);
  const first = await startFirst(s);

  const followUp = userMessage('second', { taskId: first.id });
  const answer = await within(rpc(s.rpcUrl, 'SendMessage', { message: followUp, configuration: { returnImmediately: true } }), 5_000, 'no answer');
  assert.notEqual(answer, 'no answer', 'answered while the first run is still held');
  const task = (answer as { result?: { task: Task } }).result?.task;
  assert.ok(task, JSON.stringify(answer));
  assert.equal(task.status.state, 'TASK_STATE_WORKING', 'the task as it is: the first run is still working');
  assert.equal(task.history?.at(-1)?.messageId, followUp.messageId, 'the message is in the history now');
  assert.equal((await getTask(s.rpcUrl, first.id)).history?.at(-1)?.messageId, followUp.messageId, 'and stored');
  assert.deepEqual(runs, ['first'], 'the agent has not run for it yet');

  held.open();
  const done = await waitForState(s.rpcUrl, first.id, 'TASK_STATE_COMPLETED', 5_000);
  assert.deepEqual(runs, ['first', 'second'], 'its run came after the first');
  assert.equal(textOf(done.status.message), 'got second');
  assert.equal(done.history?.filter((m) => m.messageId === followUp.messageId).length, 1, 'recorded once');
});

test('LIFE-06 STREAM-03 a streamed follow-up to a task still WORKING starts at once with the snapshot and follows its own run, past the earlier run\'s INPUT_REQUIRED', async () => {
  const held = gate();
  const runs: string[] = [];
  const s = await startServer(heldAgent(held.opened, 'input', runs));
  servers.push(s);
  const first = await startFirst(s);

  const followUp = userMessage('streamed', { taskId: first.id });
  const opened = await within(rpcStream(s.rpcUrl, 'SendStreamingMessage', { message: followUp }), 5_000, 'no headers');
  assert.notEqual(opened, 'no headers', 'the response started while the first run is held');
  const stream = opened as Exclude<typeof opened, string>;
  assert.equal(stream.status, 200);
  await stream.waitFor((events) => events.some((e) => e.data !== undefined), 5_000, 'the snapshot');
  const snapshot = stream.payloads[0] as { task: Task };
  assert.equal(snapshot.task.status.state, 'TASK_STATE_WORKING');
  assert.equal(snapshot.task.history?.at(-1)?.messageId, followUp.messageId);

  held.open();
  await within(stream.ended, 5_000, undefined);
  assert.ok(stream.isEnded, 'the stream ended');
  const states = stream.payloads.map(stateOf).filter((state) => state !== undefined);
  assert.deepEqual(states, ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'], 'the earlier run\'s question, then its own answer');
  assert.deepEqual(runs, ['first', 'streamed']);
});

test('LIFE-03 a follow-up queued behind a run that ends the task: a returnImmediately caller keeps its recorded message (the agent does not run), a blocking caller is refused', async () => {
  const held = gate();
  const runs: string[] = [];
  const errors: unknown[] = [];
  const s = await startServer(heldAgent(held.opened, 'complete', runs), { onError: (e) => errors.push(e) });
  servers.push(s);
  const first = await startFirst(s);

  const queued = userMessage('queued', { taskId: first.id });
  const immediate = (await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: queued, configuration: { returnImmediately: true } })).task;
  assert.equal(immediate.history?.at(-1)?.messageId, queued.messageId);
  const blocking = rpc(s.rpcUrl, 'SendMessage', { message: userMessage('blocked', { taskId: first.id }) });
  held.open();
  const refused = await blocking;
  assert.equal(refused.error?.code, -32004, JSON.stringify(refused));
  const done = await getTask(s.rpcUrl, first.id);
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(textOf(done.status.message), 'first done');
  assert.ok(done.history?.some((m) => m.messageId === queued.messageId), 'the returnImmediately message stays recorded');
  assert.deepEqual(runs, ['first'], 'the agent ran for neither');
  // The operator hears of the recorded message nobody ran (its caller was answered long ago).
  await waitUntil(() => errors.length > 0, 2_000, 'onError to hear of the unprocessed message');
  assert.ok(errors[0] instanceof UnprocessedMessageError, String(errors[0]));
  assert.match(errors[0].message, new RegExp(`Message ${queued.messageId} joined task ${first.id}, but an earlier run ended the task \\(TASK_STATE_COMPLETED\\) before its turn`));
  assert.equal(errors.length, 1, 'the refused blocking message is its caller\'s business, not reported');
});

test('LIFE-06 C2 follow-ups queued behind a run are taken in history order: a recorded returnImmediately message goes ahead of a blocking one still waiting for its turn', async () => {
  const held = gate();
  const runs: string[] = [];
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      runs.push(ctx.text);
      if (!ctx.task) {
        await task.startWork('working');
        await held.opened;
      }
      await task.requireInput(`got ${ctx.text}`);
    },
  };
  const s = await startServer(agent);
  servers.push(s);
  const first = await startFirst(s);

  const blocking = rpc(s.rpcUrl, 'SendMessage', { message: userMessage('blocking', { taskId: first.id }) });
  // Let the blocking follow-up reach its place in the queue (if it came later, the order checked below holds anyway).
  await new Promise((resolve) => setTimeout(resolve, 200));
  await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('immediate', { taskId: first.id }), configuration: { returnImmediately: true } });
  held.open();
  assert.equal(((await blocking).result as { task?: Task } | undefined)?.task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
  await waitUntil(() => runs.length === 3, 5_000, 'both follow-ups to run');
  const done = await waitForState(s.rpcUrl, first.id, 'TASK_STATE_INPUT_REQUIRED', 5_000);
  const history = (done.history ?? []).filter((m) => m.role === 'ROLE_USER').map(textOf);
  assert.deepEqual(history, runs, 'the agent ran the messages in the order the history has them');
  assert.deepEqual(runs, ['first', 'immediate', 'blocking']);
  assert.equal(textOf(done.status.message), 'got blocking', 'the last run answered the last message');
});

test('MSG-02 returnImmediately on a new task answers at the agent\'s first call: at once after task.submit(), not before a first call', async () => {
  const held = gate();
  const s = await startServer({
    async execute(ctx, task) {
      // The advised pattern for slow work (an LLM call, say): make the task exist first.
      if (ctx.text === 'submit first') await task.submit();
      await held.opened;
      await task.complete('done');
    },
  });
  servers.push(s);
  const answer = await within(rpc(s.rpcUrl, 'SendMessage', { message: userMessage('submit first'), configuration: { returnImmediately: true } }), 5_000, 'no answer');
  assert.notEqual(answer, 'no answer', 'answered while the agent is still held');
  const task = (answer as { result?: { task: Task } }).result?.task;
  assert.ok(task, JSON.stringify(answer));
  assert.equal(task.status.state, 'TASK_STATE_SUBMITTED');
  assert.equal((await getTask(s.rpcUrl, task.id)).status.state, 'TASK_STATE_SUBMITTED', 'stored');

  // Work before any call: the answer waits for it (the agent may still reply with a Message).
  const pending = rpc(s.rpcUrl, 'SendMessage', { message: userMessage('think'), configuration: { returnImmediately: true } });
  assert.equal(await within(pending, 200, 'no answer'), 'no answer', 'not answered before the agent\'s first call');
  held.open();
  const late = (await pending).result as { task?: Task } | undefined;
  assert.equal(late?.task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(late));
  await waitForState(s.rpcUrl, task.id, 'TASK_STATE_COMPLETED', 5_000);
});

test('MSG-03 returnImmediately has no effect when the agent replies with a Message: the caller gets the Message, no task is created', async () => {
  const s = await startServer({
    async execute(_ctx, task) {
      await task.reply('pong');
    },
  });
  servers.push(s);
  const sent = userMessage('ping');
  const immediate = await rpcResult<{ message?: Message; task?: Task }>(s.rpcUrl, 'SendMessage', { message: sent, configuration: { returnImmediately: true } });
  assert.equal(immediate.task, undefined, JSON.stringify(immediate));
  assert.equal(immediate.message?.role, 'ROLE_AGENT');
  assert.equal(textOf(immediate.message), 'pong');
  assert.equal(immediate.message?.taskId, undefined);
  const listed = await rpcResult<{ tasks: Task[] }>(s.rpcUrl, 'ListTasks', {});
  assert.deepEqual(listed.tasks, [], 'no task was created');
  // Blocking, the same agent answers the same way.
  const blocking = await rpcResult<{ message?: Message }>(s.rpcUrl, 'SendMessage', { message: userMessage('ping') });
  assert.equal(textOf(blocking.message), 'pong');
});

test('MSG-03 returnImmediately and an agent that fails before any call: the FAILED task a blocking call gets', async () => {
  const s = await startServer({
    async execute() {
      throw new Error('boom');
    },
  }, { onError: () => undefined });
  servers.push(s);
  for (const configuration of [{ returnImmediately: true }, {}]) {
    const { task } = await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('work'), configuration });
    assert.equal(task.status.state, 'TASK_STATE_FAILED', JSON.stringify(configuration));
    assert.equal(textOf(task.status.message), 'The agent failed while processing this message');
  }
});
