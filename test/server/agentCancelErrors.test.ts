/**
 * LIFE-05 and the agent's cancel(): only a refusal (TaskNotCancelableError) of the hook reaches the
 * CancelTask caller. Any other error — an A2AError too, such as the TASK_NOT_FOUND or
 * UNAUTHENTICATED a downstream agent answered the hook's own CancelTask with — is the agent's
 * failure: onError gets it, the caller gets InternalError (its task exists, its credentials are
 * fine), and nothing of the downstream (its task id) reaches the caller. Over real sockets: an
 * orchestrator whose cancel() calls a researcher agent with a2a-kit's client.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type A2AClient } from '../../src/client/index.js';
import { A2AError, TaskNotCancelableError, TaskNotFoundError } from '../../src/protocol/errors.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { eventually } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';

/** Works until its signal aborts; its cancel() is `cancel`. */
function workingAgent(cancel: NonNullable<AgentExecutor['cancel']>): AgentExecutor {
  return {
    async execute(ctx, task) {
      await task.startWork('working');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    },
    cancel,
  };
}

let researcher: TestServer;
let remote: A2AClient;
let hookError: () => Promise<void>;
let orchestrator: TestServer;
let client: A2AClient;

before(async () => {
  researcher = await startServer();
  remote = await createClient(researcher.url);
  orchestrator = await startServer({ executor: workingAgent(() => hookError()) });
  client = await createClient(orchestrator.url);
});
after(async () => {
  await orchestrator.close();
  await researcher.close();
});

async function workingTask(): Promise<string> {
  const res = await client.sendText('work', { configuration: { returnImmediately: true } });
  assert.ok('task' in res);
  const id = res.task.id;
  await eventually(async () => ((await client.getTask({ id })).status.state === 'TASK_STATE_WORKING' ? true : undefined), 'the task to work');
  return id;
}

/** CancelTask of a working task whose cancel() fails with `failure`: what the caller and onError get. */
async function cancelFailingWith(failure: () => Promise<void>): Promise<{ id: string; error: unknown; reported: unknown[] }> {
  hookError = failure;
  const id = await workingTask();
  const before = orchestrator.errors.length;
  const error = await client.cancelTask({ id }).then(
    () => assert.fail('CancelTask should fail'),
    (e: unknown) => e,
  );
  return { id, error, reported: orchestrator.errors.slice(before) };
}

test("LIFE-05 the downstream's TASK_NOT_FOUND from cancel() reaches the caller as InternalError, without the downstream task id; onError gets it", async () => {
  const { id, error, reported } = await cancelFailingWith(async () => {
    await remote.cancelTask({ id: 'researcher-task-7f3a' });
  });
  assert.ok(A2AError.is(error));
  assert.equal(error.reason, 'INTERNAL', `the caller got ${error.reason}: ${error.message}`);
  assert.doesNotMatch(`${error.message} ${JSON.stringify(error.metadata)}`, /researcher-task-7f3a/);
  assert.ok(reported.some((e) => e instanceof TaskNotFoundError && e.metadata.taskId === 'researcher-task-7f3a'), 'onError got the downstream error');
  assert.equal((await client.getTask({ id })).status.state, 'TASK_STATE_WORKING', 'the task was not canceled');
});

test("LIFE-05 an UNAUTHENTICATED A2AError from cancel() (the agent's own key was rotated) is a 500 InternalError for the caller, not a 401", async () => {
  hookError = async () => {
    throw new A2AError('UNAUTHENTICATED', 'the orchestrator key was rotated');
  };
  const id = await workingTask();
  const before = orchestrator.errors.length;
  const res = await fetch(`${orchestrator.restUrl}/tasks/${id}:cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
    body: '{}',
  });
  const body = await res.text();
  assert.equal(res.status, 500, body);
  assert.doesNotMatch(body, /rotated|UNAUTHENTICATED/);
  assert.ok(orchestrator.errors.slice(before).some((e) => A2AError.is(e) && e.reason === 'UNAUTHENTICATED'), 'onError got the agent error');
});

test('LIFE-05 TaskNotCancelableError from cancel() still refuses the cancel as thrown', async () => {
  const { id, error } = await cancelFailingWith(async () => {
    throw new TaskNotCancelableError('The report is being sent');
  });
  assert.ok(A2AError.is(error));
  assert.equal(error.reason, 'TASK_NOT_CANCELABLE');
  assert.equal(error.message, 'The report is being sent');
  assert.equal((await client.getTask({ id })).status.state, 'TASK_STATE_WORKING');
});
