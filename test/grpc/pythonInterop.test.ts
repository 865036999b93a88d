/**
 * GRPC-INTEROP: our gRPC binding against a second gRPC stack, Python's grpcio (gRPC's C core, its
 * own HTTP/2 and framing), both ways, with messages built by protoc's Python code from proto/:
 *   a. grpcio's generic client (test/grpc/python/client.py) → our server: every operation, the
 *      metadata, google.rpc.Status details, a deadline, compared with what our own client gets;
 *   b. our client (createGrpcClient, createClient + grpcTransport) → a grpcio server
 *      (test/grpc/python/server.py): answers, a stream, errors as our typed classes.
 * Skips, saying why, without a python3 with grpcio + protobuf and protoc (scripts/ci-python-grpc.sh
 * installs Debian's; CI runs it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGrpcClient, grpcTransport, type GrpcClient } from '../../src/bindings/grpc/client.js';
import { createClient } from '../../src/client/client.js';
import { A2AError, InternalError, InvalidParamsError, MethodNotFoundError, TaskNotFoundError } from '../../src/protocol/errors.js';
import type { AgentCard, StreamResponse, Task } from '../../src/protocol/types.js';
import type { Json } from './python/jsonLines.js';
import { pythonGrpc } from './python/availability.js';
import { startPythonClient, startPythonServer, type PythonClient, type PythonResult, type PythonServer } from './python/peers.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const peer = await pythonGrpc();
const skip = 'skip' in peer ? peer.skip : false;
const python = 'python' in peer ? peer.python : '';

const message = (text: string, extra: object = {}) => ({ message: { messageId: `py-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
const kindOf = (e: object) => Object.keys(e).find((k) => k !== 'metadata') as string;
const texts = (events: StreamResponse[] | object[]) =>
  (events as { artifactUpdate?: { artifact: { parts: { text?: string }[] } } }[]).flatMap((e) => e.artifactUpdate?.artifact.parts.map((p) => p.text ?? '') ?? []).join('');

/**
 * The error a Python call ended with, checked to carry ErrorInfo. The spec's errors have domain
 * a2a-protocol.org, the others (INVALID_PARAMS…) a2a-kit (docs/errors.md).
 */
function a2aFailure(result: PythonResult, code: string, reason: string, domain = 'a2a-protocol.org') {
  assert.equal(result.ok, false, `expected ${code}, got ${JSON.stringify(result)}`);
  assert.equal(result.code, code);
  assert.ok(result.status, 'grpc-status-details-bin decodes to a google.rpc.Status');
  assert.equal(result.status.errorInfo?.reason, reason);
  assert.equal(result.status.errorInfo?.domain, domain);
  assert.deepEqual(result.status.otherDetails, []);
  return result.status;
}

/** What our own client gets for the same call: its typed error. */
async function ourFailure(promise: Promise<unknown>): Promise<A2AError> {
  const error = await promise.then(
    () => assert.fail('expected our client to fail too'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof A2AError, String(error));
  return error;
}

describe('GRPC-INTEROP a. Python grpcio client → our gRPC server', { skip }, () => {
  let server: GrpcTestServer;
  let py: PythonClient;
  let ours: GrpcClient;
  before(async () => {
    server = await startGrpcServer({ demo: { slowMs: 4000, tickMs: 100 } });
    py = await startPythonClient(python, server.address);
    ours = createGrpcClient(server.address);
  });
  after(async () => {
    ours?.close();
    try {
      await py?.close(); // client.py must exit 0: every call answered, no contradictory trailer
    } finally {
      await server?.close();
    }
  });

  test('SendMessage → a COMPLETED task with the echo artifact, as our client gets; GetTask reads the same JSON', async () => {
    const sent = await py.call('SendMessage', message('hi from python ✓'));
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const task = sent.response.task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].name, 'echo');
    assert.equal(task.artifacts[0].parts[0].text, 'hi from python ✓');
    const mine = await ours.sendMessage(message('hi from python ✓') as never);
    assert.ok('task' in mine);
    assert.equal(mine.task.status.state, task.status.state);
    assert.deepEqual(mine.task.artifacts?.map((a) => [a.name, a.parts]), task.artifacts.map((a: Json) => [a.name, a.parts]));
    // The same stored task through both stacks: protoc's Python ProtoJSON and our wire JSON agree.
    const got = await py.call('GetTask', { id: task.id });
    assert.deepEqual(got.response, await ours.getTask({ id: task.id }));
    const trimmed = await py.call('GetTask', { id: task.id, historyLength: 0 });
    assert.equal(trimmed.response.history, undefined);
  });

  test('a gzip-compressed request (grpc-encoding gzip from the C core) is read like any other', async () => {
    const sent = await py.call('SendMessage', message('hi compressed'), { gzip: true });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    assert.equal(sent.response.task.artifacts[0].parts[0].text, 'hi compressed');
  });

  test('ListTasks: filters and paging fields, the same page our client gets', async () => {
    const contextId = `py-ctx-${Date.now()}`;
    const ids: string[] = [];
    for (const t of ['hi a', 'hi b', 'ask c']) ids.push((await py.call('SendMessage', message(t, { contextId }))).response.task.id);
    const listed = await py.call('ListTasks', { contextId, pageSize: 2 });
    assert.deepEqual(listed.response.tasks.map((t: Task) => t.id), [ids[2], ids[1]]);
    assert.equal(listed.response.pageSize, 2);
    assert.equal(listed.response.totalSize, 3);
    assert.ok(listed.response.nextPageToken);
    assert.deepEqual(listed.response, await ours.listTasks({ contextId, pageSize: 2 }));
    const waiting = await py.call('ListTasks', { contextId, status: 'TASK_STATE_INPUT_REQUIRED' });
    assert.deepEqual(waiting.response.tasks.map((t: Task) => t.id), [ids[2]]);
  });

  test('SendStreamingMessage: task, WORKING, 10 chunks, COMPLETED, then the stream ends OK; the same events as ours', async () => {
    const streamed = await py.call('SendStreamingMessage', message('stream python'));
    assert.equal(streamed.ok, true, JSON.stringify(streamed));
    assert.deepEqual(streamed.events.map(kindOf), ['task', 'statusUpdate', ...Array(10).fill('artifactUpdate'), 'statusUpdate']);
    assert.equal(streamed.events.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    const mine: StreamResponse[] = [];
    for await (const e of ours.sendStreamingMessage(message('stream python') as never)) mine.push(e);
    assert.deepEqual(mine.map(kindOf), streamed.events.map(kindOf));
    assert.equal(texts(streamed.events), texts(mine));
    assert.ok(texts(mine).length > 0);
  });

  test('SubscribeToTask + CancelTask on a running task: snapshot first, ends CANCELED; cancel again → TASK_NOT_CANCELABLE as ours', async () => {
    const started = await py.call('SendMessage', { ...message('slow python'), configuration: { returnImmediately: true } });
    const id = started.response.task.id;
    const subscription = py.start('SubscribeToTask', { id });
    assert.ok('task' in (await subscription.event(0)), 'the stream opens with the task snapshot');
    const canceled = await py.call('CancelTask', { id });
    assert.equal(canceled.response.status.state, 'TASK_STATE_CANCELED');
    const events = (await subscription.done).events;
    assert.equal(events.at(-1).statusUpdate.status.state, 'TASK_STATE_CANCELED');
    const again = a2aFailure(await py.call('CancelTask', { id }), 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
    const mine = await ourFailure(ours.cancelTask({ id }));
    assert.equal(mine.reason, again.errorInfo?.reason);
    assert.deepEqual(mine.metadata, again.errorInfo?.metadata);
    // A finished task has nothing to subscribe to.
    a2aFailure(await py.call('SubscribeToTask', { id }), 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  test('push configs (the demo card declares them): create, get, list, delete', async () => {
    const taskId = (await py.call('SendMessage', message('ask for a webhook'))).response.task.id;
    const config = { taskId, url: 'https://hooks.example/python', token: 'py-token', authentication: { scheme: 'Bearer', credentials: 'py-cred' } };
    const created = await py.call('CreateTaskPushNotificationConfig', config);
    assert.equal(created.ok, true, JSON.stringify(created));
    assert.ok(created.response.id);
    assert.deepEqual({ ...created.response, id: undefined }, { ...config, id: undefined });
    const got = await py.call('GetTaskPushNotificationConfig', { taskId, id: created.response.id });
    assert.deepEqual(got.response, created.response);
    assert.deepEqual(got.response, await ours.getTaskPushNotificationConfig({ taskId, id: created.response.id }));
    const listed = await py.call('ListTaskPushNotificationConfigs', { taskId });
    assert.deepEqual(listed.response.configs, [created.response]);
    const deleted = await py.call('DeleteTaskPushNotificationConfig', { taskId, id: created.response.id });
    assert.deepEqual(deleted, { ok: true, response: {}, events: [] });
    assert.deepEqual((await py.call('ListTaskPushNotificationConfigs', { taskId })).response.configs ?? [], []);
  });

  test('GetExtendedAgentCard without an extended card: FAILED_PRECONDITION UNSUPPORTED_OPERATION, as ours', async () => {
    const status = a2aFailure(await py.call('GetExtendedAgentCard', {}), 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
    assert.equal((await ourFailure(ours.getExtendedAgentCard({}))).reason, status.errorInfo?.reason);
  });

  test('errors in grpc-status-details-bin: Status code/message = the call’s, ErrorInfo (reason, domain, metadata), BadRequest', async () => {
    const id = 'nöpe ✓ python';
    const result = await py.call('GetTask', { id });
    const notFound = a2aFailure(result, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.deepEqual(notFound.errorInfo?.metadata, { taskId: id });
    assert.ok(result.details?.includes(id), `grpc-message, percent-decoded by grpcio: ${result.details}`);
    const mine = await ourFailure(ours.getTask({ id }));
    assert.ok(mine instanceof TaskNotFoundError);
    assert.equal(mine.message, result.details);
    assert.deepEqual(mine.metadata, notFound.errorInfo?.metadata);
    const invalid = a2aFailure(await py.call('ListTasks', { pageSize: 101 }), 'INVALID_ARGUMENT', 'INVALID_PARAMS', 'a2a-kit');
    assert.deepEqual(invalid.violations, [{ field: 'pageSize', description: 'must be between 1 and 100' }]);
    const ourInvalid = await ourFailure(ours.listTasks({ pageSize: 101 }));
    assert.ok(ourInvalid instanceof InvalidParamsError);
    assert.deepEqual(ourInvalid.fieldViolations, invalid.violations);
  });

  test('SVC-05 no a2a-version metadata: VERSION_NOT_SUPPORTED naming the metadata to send', async () => {
    const status = a2aFailure(await py.call('ListTasks', {}, { version: null }), 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
    assert.deepEqual(status.errorInfo?.metadata, { requestedVersion: '0.3', supportedVersions: '1.0,0.3', requestShape: '1.0' });
    assert.match(status.message, /gRPC: metadata a2a-version: 1\.0/);
    assert.equal((await py.call('ListTasks', {}, { version: '1.0' })).ok, true);
  });

  test('a grpc timeout on a stream: DEADLINE_EXCEEDED after the first events; the server goes on serving', async () => {
    const cut = await py.call('SendStreamingMessage', message('slow under a deadline'), { timeout: 1.5 });
    assert.equal(cut.ok, false);
    assert.equal(cut.code, 'DEADLINE_EXCEEDED');
    assert.equal(cut.status, null, 'a deadline is the stack’s own status, no A2A details');
    assert.equal(kindOf(cut.events[0]), 'task');
    const id = cut.events[0].task.id;
    // The task itself is not the stream: it keeps working, and can be read and canceled.
    const after = await py.call('GetTask', { id });
    assert.equal(after.response.status.state, 'TASK_STATE_WORKING');
    assert.equal((await py.call('CancelTask', { id })).response.status.state, 'TASK_STATE_CANCELED');
    assert.deepEqual(server.errors, []);
  });
});

describe('GRPC-INTEROP b. our client → a Python grpcio A2AService', { skip }, () => {
  let server: PythonServer;
  before(async () => {
    server = await startPythonServer(python);
  });
  after(async () => {
    await server?.close(); // server.py must exit 0: no handler failed
  });

  /** Once `last` is reported, every call so far carried a2a-version: 1.0 (the calls are made one after another). */
  const expectVersionOnEveryCall = async (last: string) => {
    await server.received((c) => c.request.id === last || c.request.message?.parts[0]?.text === last, `the call for ${last}`);
    const calls = server.calls();
    assert.ok(calls.length > 0, 'the Python server saw calls');
    for (const c of calls) assert.equal(c.metadata['a2a-version'], '1.0', `${c.call} carried a2a-version: 1.0`);
  };

  const expectDeadline = async (taskId: string, atMostSeconds: number) => {
    const { deadline } = await server.received((c) => c.request.id === taskId, `GetTask ${taskId}`);
    assert.ok(typeof deadline === 'number' && deadline > 0 && deadline <= atMostSeconds, `deadline grpcio saw for ${taskId}: ${deadline}`);
  };

  test('createGrpcClient: SendMessage → Task, a stream ending COMPLETED, errors as our typed classes', async () => {
    const client = createGrpcClient(server.address);
    try {
      const sent = await client.sendMessage(message('hello grpcio', { contextId: 'ctx-b' }) as never);
      assert.ok('task' in sent, JSON.stringify(sent));
      assert.equal(sent.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(sent.task.status.timestamp, '2026-01-02T03:04:05.678Z');
      assert.equal(sent.task.contextId, 'ctx-b');
      assert.equal(sent.task.artifacts?.[0]?.parts[0] && 'text' in sent.task.artifacts[0].parts[0] ? sent.task.artifacts[0].parts[0].text : undefined, 'hello grpcio');
      const received = await server.received((c) => c.call === 'SendMessage', 'SendMessage');
      assert.equal(received.request.message.parts[0].text, 'hello grpcio', 'grpcio decoded our request');

      const events: StreamResponse[] = [];
      for await (const e of client.sendStreamingMessage(message('streamed') as never)) events.push(e);
      assert.deepEqual(events.map(kindOf), ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      assert.equal(texts(events), 'py streamed');
      const last = events.at(-1);
      assert.ok(last && 'statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_COMPLETED');

      const notFound = await ourFailure(client.getTask({ id: 'py-missing' }));
      assert.ok(notFound instanceof TaskNotFoundError, `TaskNotFoundError from ErrorInfo, got ${notFound.constructor.name}`);
      assert.equal(notFound.reason, 'TASK_NOT_FOUND');
      assert.deepEqual(notFound.metadata, { taskId: 'py-missing' });
      assert.equal(notFound.message, 'Task not found: py-missing');

      const invalid = await ourFailure(client.listTasks({ pageSize: 101 }));
      assert.ok(invalid instanceof InvalidParamsError);
      assert.deepEqual(invalid.fieldViolations, [{ field: 'pageSize', description: 'must be between 1 and 100' }]);
      assert.deepEqual(await client.listTasks({ pageSize: 5 }), { tasks: [], nextPageToken: '', pageSize: 5, totalSize: 0 });
      // A stream that fails after a message: the error arrives in the trailers after the data.
      const seen: StreamResponse[] = [];
      const failed = await ourFailure(
        (async () => {
          for await (const e of client.subscribeToTask({ id: 'py-sub' })) seen.push(e);
        })(),
      );
      assert.deepEqual(seen.map(kindOf), ['task']);
      assert.ok(failed instanceof InternalError, `InternalError, got ${failed.constructor.name}`);
      assert.deepEqual([failed.message, failed.metadata], ['the agent failed mid-stream', { taskId: 'py-sub' }]);
      // GRPC-DEADLINE timeoutMs reaches the C core as the call's deadline (grpc-timeout); a gzip answer is read.
      await ourFailure(client.getTask({ id: 'timed' }, { timeoutMs: 5000 }));
      await expectDeadline('timed', 5);
      await ourFailure(client.getTask({ id: 'untimed' }));
      assert.equal((await server.received((c) => c.request.id === 'untimed', 'GetTask untimed')).deadline, null, 'no timeoutMs, no deadline');
      const zipped = await client.sendMessage(message('zipped') as never, { metadata: { 'x-test-compress': 'gzip' } });
      assert.ok('task' in zipped && zipped.task.artifacts?.[0]?.name === 'echo');
      // An rpc grpcio's server does not have: its bare UNIMPLEMENTED, typed from the status alone.
      assert.ok((await ourFailure(client.cancelTask({ id: 'x' }))) instanceof MethodNotFoundError);
      await expectVersionOnEveryCall('zipped');
    } finally {
      client.close();
    }
  });

  test('createClient + grpcTransport(): a card whose GRPC interface is the Python server', async () => {
    const card = {
      name: 'python grpcio agent',
      description: 'test/grpc/python/server.py',
      version: '1.0.0',
      supportedInterfaces: [{ url: server.address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    } as AgentCard;
    const transport = grpcTransport();
    try {
      const client = await createClient(card, { transports: [transport] });
      assert.equal(client.agentInterface.protocolBinding, 'GRPC');
      const sent = await client.sendText('via createClient');
      assert.ok('task' in sent && sent.task.status.state === 'TASK_STATE_COMPLETED');
      const events: StreamResponse[] = [];
      for await (const e of client.streamText('client stream')) events.push(e);
      assert.equal(texts(events), 'py client stream');
      await assert.rejects(client.getTask({ id: 'gone' }, { timeoutMs: 4000 }), (e: unknown) => e instanceof TaskNotFoundError && e.metadata.taskId === 'gone');
      await expectDeadline('gone', 4);
      await expectVersionOnEveryCall('gone');
    } finally {
      transport.close();
    }
  });
});
