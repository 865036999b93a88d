/**
 * LIFE-02 and forwarded cancels: an orchestrator agent relays a researcher agent's events (a2a-kit's
 * client, real sockets) and forwards CancelTask to it. The researcher's CANCELED reaches the
 * orchestrator's execute() (relayed as task.cancel()) while its cancel() still waits; cancel()'s
 * own task.cancel() that follows, dropped because the task is already CANCELED, is harmless and
 * not reported. A late write that conflicts with the end state still is, and so is nothing the
 * library writes itself (its CANCELED after the agent completed the task meanwhile).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type A2AClient } from '../../src/client/index.js';
import { A2AError } from '../../src/protocol/errors.js';
import { DroppedWriteError } from '../../src/server/agentWrites.js';
import type { AgentExecutor, CancelContext } from '../../src/server/agentExecutor.js';
import type { TaskUpdater } from '../../src/server/taskUpdater.js';
import { deferred, eventually } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';

let researcher: TestServer;
let remote: A2AClient;

/** Orchestrator task id → the researcher's task id, and the moment execute() relayed CANCELED. */
const downstream = new Map<string, string>();
const relayedCancel = new Map<string, ReturnType<typeof deferred<void>>>();
/** What cancel() does after the researcher's CANCELED was relayed. */
let afterRelay: (task: TaskUpdater) => Promise<void> = async () => undefined;

const orchestratorAgent: AgentExecutor = {
  async execute(ctx, task) {
    const relayed = deferred();
    relayedCancel.set(ctx.taskId, relayed);
    await task.startWork('asking the researcher');
    for await (const event of remote.streamText('slow research')) {
      if ('task' in event) downstream.set(ctx.taskId, event.task.id);
      if ('statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_CANCELED') {
        await task.cancel('the researcher stopped');
        relayed.resolve();
      }
    }
  },
  async cancel(ctx: CancelContext, task: TaskUpdater) {
    await remote.cancelTask({ id: downstream.get(ctx.task.id) ?? '' });
    await relayedCancel.get(ctx.task.id)?.promise;
    await afterRelay(task);
  },
};

let orchestrator: TestServer;
let client: A2AClient;

before(async () => {
  researcher = await startServer({ demo: { slowMs: 60_000 } });
  remote = await createClient(researcher.url);
  orchestrator = await startServer({ executor: orchestratorAgent });
  client = await createClient(orchestrator.url);
});
after(async () => {
  await orchestrator.close();
  await researcher.close();
});

async function researching(): Promise<string> {
  const res = await client.sendText('go', { configuration: { returnImmediately: true } });
  assert.ok('task' in res);
  const id = res.task.id;
  await eventually(async () => downstream.get(id), 'the researcher task to start');
  return id;
}

function dropped(errors: unknown[]): string[] {
  return errors.filter((e) => e instanceof DroppedWriteError).map((e) => (e as Error).message);
}

test('LIFE-02 a forwarded cancel: cancel() writing CANCELED after the relayed CANCELED ended the task is not reported', async () => {
  afterRelay = (task) => task.cancel('canceled upstream');
  const id = await researching();
  const before = orchestrator.errors.length;
  const canceled = await client.cancelTask({ id });
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  await orchestrator.handler.requestHandler.drain(5_000);
  assert.deepEqual(dropped(orchestrator.errors.slice(before)), []);
  assert.deepEqual(orchestrator.errors.slice(before), []);
});

test('LIFE-02 a conflicting late write (COMPLETED after the task was CANCELED) is still reported', async () => {
  afterRelay = (task) => task.complete('done after all');
  const id = await researching();
  const before = orchestrator.errors.length;
  assert.equal((await client.cancelTask({ id })).status.state, 'TASK_STATE_CANCELED');
  assert.deepEqual(dropped(orchestrator.errors.slice(before)), [
    'agent wrote status TASK_STATE_COMPLETED after the task reached TASK_STATE_CANCELED; ignored (later ignored writes of this run are not reported)',
  ]);
});

test("LIFE-02 the library's own CANCELED, dropped because the agent completed the task during cancel(), is not the agent's dropped write", async () => {
  const finished = deferred();
  const quick = await startServer({
    executor: {
      async execute(_ctx, task) {
        await task.startWork('working');
        await new Promise((resolve) => setTimeout(resolve, 300)); // the cancel arrives meanwhile
        await task.complete('done');
        finished.resolve();
      },
      async cancel() {
        await finished.promise; // the run completes the task meanwhile
      },
    },
  });
  try {
    const quickClient = await createClient(quick.url);
    const res = await quickClient.sendText('go', { configuration: { returnImmediately: true } });
    assert.ok('task' in res);
    const error = await quickClient.cancelTask({ id: res.task.id }).then(
      () => assert.fail('the task completed first: not cancelable'),
      (e: unknown) => e,
    );
    assert.ok(A2AError.is(error) && error.reason === 'TASK_NOT_CANCELABLE', String(error));
    assert.deepEqual(dropped(quick.errors), []);
  } finally {
    await quick.close();
  }
});
