/**
 * R24 graceful shutdown and follow-up messages queued behind a task's running run (LIFE-06):
 * no agent run is ever started with an already-aborted ctx.signal. A blocking follow-up that has
 * not started when shutdown begins is refused at once with UNAVAILABLE (its message was not
 * recorded, so sending it again is safe); a follow-up already recorded and answered
 * (returnImmediately, streams) is acknowledged work: it runs while the drain lasts, and one whose
 * turn has not come by the shutdown deadline is not started — its task gets the shutdown's
 * definite state (FAILED, "the server shut down") instead of a run it cannot do.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Message, Task } from '../../src/protocol/types.js';
import { SHUT_DOWN_MESSAGE } from '../../src/server/cutOffRuns.js';
import { UnprocessedMessageError } from '../../src/server/unprocessedMessage.js';
import { rpc, rpcResult, startServer, userMessage, waitForState, within, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close().catch(() => undefined);
});

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

interface Run {
  text: string;
  /** ctx.signal.aborted when the agent was called. */
  abortedAtStart: boolean;
}

/**
 * The first message: WORKING, then holds until `firstEnds` resolves (or its signal aborts) and
 * ends as `onEnd` says. A follow-up (ctx.task set) completes with "got <text>".
 */
function agent(runs: Run[], first: { ends: Promise<void>; onEnd: 'input' | 'stay-working' }): AgentExecutor {
  return {
    async execute(ctx, task) {
      runs.push({ text: ctx.text, abortedAtStart: ctx.signal.aborted });
      if (ctx.task) {
        await task.complete(`got ${ctx.text}`);
        return;
      }
      await task.startWork('working');
      await Promise.race([first.ends, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
      if (first.onEnd === 'input') await task.requireInput('anything else?');
    },
  };
}

async function startFirst(s: TestServer): Promise<Task> {
  const { task } = await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: userMessage('first'), configuration: { returnImmediately: true } });
  return waitForState(s.rpcUrl, task.id, 'TASK_STATE_WORKING', 5_000);
}

test('R24 LIFE-06 a follow-up still queued at the shutdown deadline is not started with an aborted signal: a blocking caller gets UNAVAILABLE, a recorded one leaves its task FAILED (shut down)', async () => {
  const runs: Run[] = [];
  const errors: unknown[] = [];
  // The first run returns only when its signal aborts (at the 300 ms deadline), still WORKING.
  const s = await startServer(agent(runs, { ends: new Promise(() => undefined), onEnd: 'stay-working' }), { onError: (e) => errors.push(e) }, { shutdownTimeoutMs: 300 });
  servers.push(s);
  const first = await startFirst(s);

  const recorded = userMessage('recorded', { taskId: first.id });
  const immediate = (await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: recorded, configuration: { returnImmediately: true } })).task;
  assert.equal(immediate.history?.at(-1)?.messageId, recorded.messageId, 'recorded and answered at once');
  const blockingMessage = userMessage('blocking', { taskId: first.id });
  const blocking = rpc(s.rpcUrl, 'SendMessage', { message: blockingMessage });
  await new Promise((resolve) => setTimeout(resolve, 100)); // the blocking call is queued behind the first run

  const closed = await within(s.close().then(() => 'closed'), 8_000, 'pending');
  assert.equal(closed, 'closed');

  assert.deepEqual(
    runs.filter((r) => r.abortedAtStart).map((r) => r.text),
    [],
    'no run was started with an already-aborted signal',
  );
  assert.deepEqual(runs.map((r) => r.text), ['first'], 'neither follow-up was started');

  const refused = await blocking;
  assert.equal(refused.error?.code, -32000, JSON.stringify(refused));
  const info = (refused.error?.data as Array<Record<string, unknown>> | undefined)?.find((d) => String(d['@type']).endsWith('ErrorInfo'));
  assert.equal(info?.reason, 'UNAVAILABLE', JSON.stringify(refused));
  assert.match(refused.error?.message ?? '', /shutting down/i);

  const left = await s.handler.requestHandler.store.get('', first.id);
  assert.ok(left);
  assert.equal(left.task.status.state, 'TASK_STATE_FAILED');
  assert.equal(textOf(left.task.status.message), SHUT_DOWN_MESSAGE);
  assert.ok(left.task.history?.some((m) => m.messageId === recorded.messageId), 'the recorded message stays in the history');
  assert.equal(left.task.history?.some((m) => m.messageId === blockingMessage.messageId), false, 'the refused message was not recorded: sending it again is safe');
  // The operator hears of the recorded message that was not run.
  const unprocessed = errors.filter((e) => e instanceof UnprocessedMessageError);
  assert.equal(unprocessed.length, 1, errors.map(String).join('\n'));
  assert.match(String((unprocessed[0] as Error).message), new RegExp(`Message ${recorded.messageId} joined task ${first.id}`));
});

test('R24 LIFE-06 at shutdown a queued blocking follow-up is refused at once (UNAVAILABLE), while a recorded one still runs within the drain when its turn comes', async () => {
  const runs: Run[] = [];
  let release!: () => void;
  const ends = new Promise<void>((resolve) => (release = resolve));
  const s = await startServer(agent(runs, { ends, onEnd: 'input' }), {}, { shutdownTimeoutMs: 5_000 });
  servers.push(s);
  const first = await startFirst(s);

  const recorded = userMessage('recorded', { taskId: first.id });
  await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: recorded, configuration: { returnImmediately: true } });
  const blocking = rpc(s.rpcUrl, 'SendMessage', { message: userMessage('blocking', { taskId: first.id }) });
  await new Promise((resolve) => setTimeout(resolve, 100));

  const closing = s.close();
  const refused = await within(blocking, 2_000, undefined);
  assert.ok(refused, 'the blocking caller was answered before the first run ended');
  const info = (refused.error?.data as Array<Record<string, unknown>> | undefined)?.find((d) => String(d['@type']).endsWith('ErrorInfo'));
  assert.equal(info?.reason, 'UNAVAILABLE', JSON.stringify(refused));

  release(); // the first run ends (INPUT_REQUIRED) well before the deadline
  await within(closing, 8_000, undefined);
  assert.deepEqual(runs, [
    { text: 'first', abortedAtStart: false },
    { text: 'recorded', abortedAtStart: false },
  ]);
  const done = await s.handler.requestHandler.store.get('', first.id);
  assert.equal(done?.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(textOf(done?.task.status.message), 'got recorded');
});

test('R24 a recorded follow-up not started by the deadline, behind a run that answers its abort with INPUT_REQUIRED: the task is FAILED, not left asking for input it was given', async () => {
  const runs: Run[] = [];
  const s = await startServer(agent(runs, { ends: new Promise(() => undefined), onEnd: 'input' }), { onError: () => undefined }, { shutdownTimeoutMs: 300 });
  servers.push(s);
  const first = await startFirst(s);
  const recorded = userMessage('recorded', { taskId: first.id });
  await rpcResult<{ task: Task }>(s.rpcUrl, 'SendMessage', { message: recorded, configuration: { returnImmediately: true } });
  await within(s.close(), 8_000, undefined);
  assert.deepEqual(runs.map((r) => r.text), ['first']);
  const left = await s.handler.requestHandler.store.get('', first.id);
  assert.equal(left?.task.status.state, 'TASK_STATE_FAILED');
  assert.equal(textOf(left?.task.status.message), SHUT_DOWN_MESSAGE);
});
