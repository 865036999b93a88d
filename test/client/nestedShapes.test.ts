/**
 * JSON-08: an agent's answer is checked below its top level too — a status message is a
 * Message, every part of a message or artifact an object with exactly one content member of its
 * type, a state a TaskState of A2A 1.0 — so a malformed answer is INVALID_RESPONSE (the CLI:
 * exit 4, one JSON document) instead of a TypeError deep in the caller or the CLI (`a2a get`
 * printed "parts is not iterable", exit 1). Error details are read as leniently as before, but
 * a field violation that is not an object is dropped (`a2a get --json` printed two documents).
 * STREAM-09: a stream event about another task is INVALID_RESPONSE (a COMPLETED update for
 * task OTHER ended the stream of t1 as completed). A fake JSON-RPC agent (1.0 and 0.3) on loopback.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2AError, createClient, type AgentCard, type StreamResponse } from '../../src/client/index.js';
import { runToExit } from '../cli/cliHelpers.js';
import { collect, invalidResponse } from './helpers.js';

const status = { state: 'TASK_STATE_COMPLETED' };
const task = { id: 't1', contextId: 'c1', status };
const message = { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };

/** What the fake agent answers: GetTask's result (or a JSON-RPC error), and the events of a stream. */
let answer: { result?: unknown; error?: unknown; events?: unknown[] } = {};

let server: Server;
let url = '';

function cardFor(base: string, protocolVersion: string): AgentCard {
  return {
    name: 'hostile',
    description: 'answers with malformed shapes',
    version: '1',
    capabilities: { streaming: true },
    supportedInterfaces: [{ url: `${base}/rpc${protocolVersion === '0.3' ? '03' : ''}`, protocolBinding: 'JSONRPC', protocolVersion }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify(cardFor(url, '1.0')));
      }
      const rpc = JSON.parse(body) as { id: number };
      if (answer.events && String(req.headers.accept).includes('text/event-stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const result of answer.events) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result })}\n\n`);
        return res.end();
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, ...(answer.error ? { error: answer.error } : { result: answer.result }) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** Tasks whose nested fields have the wrong shape (each crashed a reader before). */
const MALFORMED: Record<string, unknown> = {
  'status.message a string': { ...task, status: { ...status, message: 'hi' } },
  'status.message.parts a string': { ...task, status: { ...status, message: { ...message, parts: 'xx' } } },
  'an artifact part null': { ...task, artifacts: [{ artifactId: 'a', parts: [null] }] },
  'history parts 5 and null': { ...task, history: [{ ...message, parts: [5, null] }] },
  'a part with two contents': { ...task, artifacts: [{ artifactId: 'a', parts: [{ text: 'x', url: 'https://x.example' }] }] },
  'a part with none': { ...task, artifacts: [{ artifactId: 'a', parts: [{ mediaType: 'text/plain' }] }] },
  'a part with null content only': { ...task, artifacts: [{ artifactId: 'a', parts: [{ text: null }] }] },
  'a text part that is a number': { ...task, history: [{ ...message, parts: [{ text: 5 }] }] },
  'raw not a string': { ...task, artifacts: [{ artifactId: 'a', parts: [{ raw: [1, 2] }] }] },
  'an artifact without its id': { ...task, artifacts: [{ parts: [{ text: 'x' }] }] },
  'a state no TaskState names': { ...task, status: { state: 'TASK_STATE_BOGUS' } },
};

describe('JSON-08 nested shapes of a Task', () => {
  test('malformed nested fields are INVALID_RESPONSE', async () => {
    const client = await createClient(url, { retry: false });
    for (const [name, result] of Object.entries(MALFORMED)) {
      answer = { result };
      await assert.rejects(client.getTask({ id: 't1' }), invalidResponse, name);
    }
  });

  test('every kind of part, metadata and data of any shape pass unchanged (not looked into)', async () => {
    const full = {
      ...task,
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { ...message, taskId: 't1', contextId: 'c1' }, timestamp: '2025-01-01T00:00:00Z' },
      artifacts: [
        {
          artifactId: 'a',
          name: 'all',
          parts: [{ text: 't' }, { raw: 'aGk=', filename: 'hi.txt', mediaType: 'text/plain' }, { url: 'https://x.example/f' }, { data: { any: [1, null] } }, { data: null }, { text: '', metadata: { k: { deep: true } } }],
          metadata: { free: ['form'] },
        },
      ],
      history: [{ messageId: 'm0', role: 'ROLE_USER', parts: [{ text: 'q' }], unknownMember: 1 }],
    };
    answer = { result: full };
    const client = await createClient(url);
    assert.deepEqual(await client.getTask({ id: 't1' }), full);
  });

  test('the CLI: exit 4 INVALID_RESPONSE, one JSON document with --json', async () => {
    answer = { result: MALFORMED['status.message a string'] };
    const [human, json] = await Promise.all([runToExit(['get', url, 't1', '--history', '5']), runToExit(['get', url, 't1', '--json'])]);
    assert.equal(human.code, 4, human.stderr);
    assert.match(human.stderr, /client error: INVALID_RESPONSE/);
    assert.equal(json.code, 4, json.stderr);
    const lines = json.stdout.trim().split('\n');
    assert.equal(lines.length, 1, json.stdout);
    const report = JSON.parse(lines[0] as string) as { error: { type: string; code: string } };
    assert.deepEqual([report.error.type, report.error.code], ['client', 'INVALID_RESPONSE']);
  });
});

describe('JSON-08 error details as received', () => {
  const badRequest = (fieldViolations: unknown) => ({
    code: -32602,
    message: 'bad',
    data: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations }, { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', metadata: { ok: 'yes' } }],
  });

  test('field violations that are not objects are dropped, absent strings read as empty', async () => {
    answer = { error: badRequest([null, 5, 'x', { field: 'id', description: 'must be set' }, { field: 'name' }]) };
    const client = await createClient(url, { retry: false });
    const error = await client.getTask({ id: 't1' }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(A2AError.is(error) && error.reason === 'INVALID_PARAMS', String(error));
    assert.deepEqual(error.fieldViolations, [
      { field: 'id', description: 'must be set' },
      { field: 'name', description: '' },
    ]);
  });

  test('the CLI prints one JSON document for it (exit 3)', async () => {
    answer = { error: badRequest([null, 5]) };
    const r = await runToExit(['get', url, 't1', '--json']);
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, r.stdout);
    assert.equal((JSON.parse(lines[0] as string) as { error: { type: string } }).error.type, 'protocol');
  });
});

describe('JSON-08 stream events are checked as deep', () => {
  test('a status update whose message has a null part ends the stream with INVALID_RESPONSE', async () => {
    answer = { events: [{ task: { ...task, status: { state: 'TASK_STATE_WORKING' } } }, { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED', message: { ...message, parts: [null] } } } }] };
    const client = await createClient(url, { resume: false });
    await assert.rejects(collect(client.streamText('x')), invalidResponse);
  });

  test('an A2A 0.3 agent’s events are checked after their translation', async () => {
    const client = await createClient(cardFor(url, '0.3'), { resume: false });
    answer = { events: [{ kind: 'task', id: '', contextId: 'c1', status: { state: 'working' } }] };
    await assert.rejects(collect(client.streamText('x')), invalidResponse);
    answer = { events: [{ kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed', message: { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 5 }] } }, final: true }] };
    await assert.rejects(collect(client.streamText('x')), invalidResponse);
  });
});

describe('STREAM-09 events about another task', () => {
  const working = { task: { ...task, status: { state: 'TASK_STATE_WORKING' } } };
  const other = { statusUpdate: { taskId: 'OTHER', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };

  test('an update for task OTHER on the stream of t1 is INVALID_RESPONSE, not the end of t1', async () => {
    answer = { events: [working, other] };
    const client = await createClient(url);
    const seen: StreamResponse[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of client.streamText('x')) seen.push(event);
      })(),
      invalidResponse,
    );
    assert.deepEqual(seen, [working]);
  });

  test('SubscribeToTask t1 answered with task OTHER; a follow-up message to t1 answered about OTHER', async () => {
    answer = { events: [{ task: { ...task, id: 'OTHER' } }] };
    const client = await createClient(url);
    await assert.rejects(collect(client.subscribeToTask({ id: 't1' })), invalidResponse);
    await assert.rejects(collect(client.streamText('more', { taskId: 't1' })), invalidResponse);
  });

  test('the CLI: a2a stream exits 4 INVALID_RESPONSE', async () => {
    answer = { events: [working, other] };
    const r = await runToExit(['stream', url, 'hi']);
    assert.equal(r.code, 4, r.stdout + r.stderr);
    assert.match(r.stderr, /client error: INVALID_RESPONSE: The agent sent an event of task "OTHER" on the stream of task "t1"/);
  });
});
