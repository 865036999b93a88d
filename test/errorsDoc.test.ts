/**
 * docs/errors.md against ERROR_TABLE (src/protocol/errorTable.ts) and against the A2A 1.0.1
 * error table (digest §3.1, ERR-01/02) and the standard JSON-RPC errors (digest §3.2). The
 * wire examples in the document are compared with what the server really answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { A2AError, A2A_ERROR_DOMAIN, type A2AErrorReason } from '../src/protocol/errors.js';
import { ERROR_TABLE, GRPC_STATUS_CODES, KIT_ERROR_DOMAIN, errorDetails, type ErrorRow } from '../src/protocol/errorTable.js';
import { fromJsonRpcError, toJsonRpcError } from '../src/bindings/jsonrpc/errors.js';
import { fromRestError, toRestError } from '../src/bindings/rest/errors.js';
import { createA2AHandler } from '../src/server/createA2AHandler.js';

const DOC_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));
const doc = readFileSync(DOC_PATH, 'utf8');

interface DocRow {
  className: string;
  reason: string;
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: string;
  domain: string;
  when: string;
}

const HEADER = ['Error class', 'ErrorInfo reason', 'JSON-RPC code', 'HTTP status', 'gRPC status', 'Domain', 'When it happens'];

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

function unquote(cell: string): string {
  return cell.replace(/^`|`$/g, '');
}

/** The rows of the markdown table whose header is HEADER. */
function parseTable(markdown: string): DocRow[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|') && JSON.stringify(cells(l)) === JSON.stringify(HEADER));
  assert.ok(start >= 0, `docs/errors.md has no table with the header | ${HEADER.join(' | ')} |`);
  assert.match(lines[start + 1] ?? '', /^\|(\s*-+\s*\|)+$/, 'separator row after the header');
  const rows: DocRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const c = cells(line);
    assert.equal(c.length, HEADER.length, `row has ${c.length} cells: ${line.slice(0, 80)}`);
    const [className, reason, code, http, grpc, domain, when] = c as [string, string, string, string, string, string, string];
    rows.push({
      className: unquote(className),
      reason: unquote(reason),
      jsonRpcCode: Number(code),
      httpStatus: Number(http),
      grpcStatus: unquote(grpc),
      domain: unquote(domain),
      when,
    });
  }
  return rows;
}

const rows = parseTable(doc);
const tableEntries = Object.entries(ERROR_TABLE) as [A2AErrorReason, ErrorRow][];

function instance(reason: A2AErrorReason): A2AError {
  return ERROR_TABLE[reason].create(undefined, {});
}

/** Digest §3.1: the A2A-specific errors, v1.0.1 columns. */
const SPEC_A2A_ERRORS = [
  { name: 'TaskNotFoundError', jsonRpc: -32001, grpc: 'NOT_FOUND', http: 404, reason: 'TASK_NOT_FOUND' },
  { name: 'TaskNotCancelableError', jsonRpc: -32002, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'TASK_NOT_CANCELABLE' },
  { name: 'PushNotificationNotSupportedError', jsonRpc: -32003, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  { name: 'UnsupportedOperationError', jsonRpc: -32004, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'UNSUPPORTED_OPERATION' },
  { name: 'ContentTypeNotSupportedError', jsonRpc: -32005, grpc: 'INVALID_ARGUMENT', http: 400, reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  { name: 'InvalidAgentResponseError', jsonRpc: -32006, grpc: 'INTERNAL', http: 500, reason: 'INVALID_AGENT_RESPONSE' },
  { name: 'ExtendedAgentCardNotConfiguredError', jsonRpc: -32007, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' },
  { name: 'ExtensionSupportRequiredError', jsonRpc: -32008, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'EXTENSION_SUPPORT_REQUIRED' },
  { name: 'VersionNotSupportedError', jsonRpc: -32009, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'VERSION_NOT_SUPPORTED' },
] as const;

/** Digest §3.2: the standard JSON-RPC errors, with the spec's default messages. */
const SPEC_JSONRPC_ERRORS = [
  { reason: 'PARSE_ERROR', code: -32700, message: 'Invalid JSON payload' },
  { reason: 'INVALID_REQUEST', code: -32600, message: 'Request payload validation error' },
  { reason: 'METHOD_NOT_FOUND', code: -32601, message: 'Method not found' },
  { reason: 'INVALID_PARAMS', code: -32602, message: 'Invalid parameters' },
  { reason: 'INTERNAL', code: -32603, message: 'Internal error' },
] as const;

test('docs/errors.md has one row per ERROR_TABLE entry, none missing, none extra', () => {
  const documented = rows.map((r) => r.reason);
  assert.equal(new Set(documented).size, documented.length, `a reason is listed twice: ${documented.join(', ')}`);
  assert.deepEqual([...documented].sort(), Object.keys(ERROR_TABLE).sort());
  // Same order as the table in the code, so the two read alike.
  assert.deepEqual(documented, Object.keys(ERROR_TABLE));
});

for (const row of rows) {
  test(`docs/errors.md row ${row.reason} agrees with ERROR_TABLE`, () => {
    assert.ok(Object.prototype.hasOwnProperty.call(ERROR_TABLE, row.reason), `unknown reason ${row.reason}`);
    const reason = row.reason as A2AErrorReason;
    const entry = ERROR_TABLE[reason];
    const error = instance(reason);
    assert.equal(error.reason, reason);
    assert.equal(row.className, error.name, 'error class');
    assert.equal(row.jsonRpcCode, entry.jsonRpcCode, 'JSON-RPC code');
    assert.equal(row.httpStatus, entry.httpStatus, 'HTTP status');
    assert.equal(row.grpcStatus, entry.grpcStatus, 'gRPC status');
    assert.ok(row.grpcStatus in GRPC_STATUS_CODES, `${row.grpcStatus} is a gRPC status name`);
    const errorInfo = errorDetails(error)[0];
    assert.equal(errorInfo?.['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.equal(row.domain, errorInfo?.domain, 'domain');
    assert.equal(row.domain, entry.a2a ? A2A_ERROR_DOMAIN : KIT_ERROR_DOMAIN);
    assert.ok(row.when.length > 20, 'the "when it happens" column says when');
  });
}

test('the A2A rows equal the A2A 1.0.1 table (digest §3.1), in code and in the document', () => {
  const a2aReasons = tableEntries.filter(([, r]) => r.a2a).map(([reason]) => reason);
  assert.deepEqual(a2aReasons, SPEC_A2A_ERRORS.map((e) => e.reason));
  for (const spec of SPEC_A2A_ERRORS) {
    const entry = ERROR_TABLE[spec.reason];
    assert.deepEqual(
      { name: instance(spec.reason).name, jsonRpc: entry.jsonRpcCode, grpc: entry.grpcStatus, http: entry.httpStatus },
      { name: spec.name, jsonRpc: spec.jsonRpc, grpc: spec.grpc, http: spec.http },
      `ERROR_TABLE ${spec.reason}`,
    );
    const row = rows.find((r) => r.reason === spec.reason);
    assert.ok(row, `docs/errors.md lacks ${spec.reason}`);
    assert.deepEqual(
      { name: row.className, jsonRpc: row.jsonRpcCode, grpc: row.grpcStatus, http: row.httpStatus, domain: row.domain },
      { name: spec.name, jsonRpc: spec.jsonRpc, grpc: spec.grpc, http: spec.http, domain: 'a2a-protocol.org' },
      `docs/errors.md ${spec.reason}`,
    );
    // ERR-02: reason = the error name in UPPER_SNAKE_CASE without the Error suffix.
    const derived = spec.name.replace(/Error$/, '').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
    assert.equal(derived, spec.reason);
  }
  // RPC-08: A2A codes live in -32001..-32099; the server-defined codes stay out of it.
  for (const [reason, entry] of tableEntries) {
    const inA2ARange = entry.jsonRpcCode <= -32001 && entry.jsonRpcCode >= -32099;
    assert.equal(inA2ARange, entry.a2a, `${reason} ${entry.jsonRpcCode}`);
  }
});

test('the standard JSON-RPC errors have the spec codes and default messages (digest §3.2)', () => {
  for (const spec of SPEC_JSONRPC_ERRORS) {
    assert.equal(ERROR_TABLE[spec.reason].jsonRpcCode, spec.code, spec.reason);
    assert.equal(instance(spec.reason).message, spec.message, spec.reason);
    assert.equal(ERROR_TABLE[spec.reason].a2a, false);
  }
});

test('every JSON example in docs/errors.md is valid and consistent with ERROR_TABLE', () => {
  const blocks = [...doc.matchAll(/```(json|http)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] ?? '' }));
  assert.ok(blocks.length >= 4, 'the document shows the wire formats');
  for (const block of blocks) {
    const text = block.lang === 'http' ? block.text.slice(block.text.indexOf('\n\n') + 2) : block.text;
    const json = JSON.parse(text) as Record<string, unknown>;
    const error = json.error as { code: number; status?: string; data?: unknown[]; details?: unknown[] };
    assert.ok(error, 'each example is an error response');
    const details = (error.data ?? error.details ?? []) as Record<string, unknown>[];
    for (const d of details) assert.equal(typeof d['@type'], 'string', 'ERR-03: every detail has an @type');
    const info = details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.ok(info, 'each example carries an ErrorInfo');
    const entry = ERROR_TABLE[info.reason as A2AErrorReason];
    assert.ok(entry, `unknown reason ${String(info.reason)}`);
    assert.equal(info.domain, entry.a2a ? A2A_ERROR_DOMAIN : KIT_ERROR_DOMAIN);
    if ('jsonrpc' in json) {
      assert.equal(error.code, entry.jsonRpcCode);
    } else {
      assert.equal(error.code, entry.httpStatus);
      assert.equal(error.status, entry.grpcStatus);
    }
    if (block.lang === 'http') assert.match(block.text, new RegExp(`^HTTP/1\\.1 ${entry.httpStatus} `));
  }
});

// ---- the examples are what the server really says ---------------------------------------

const handler = createA2AHandler({
  agentCard: {
    name: 'errors',
    description: 'error examples',
    version: '1',
    supportedInterfaces: [{ url: 'http://localhost/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  },
  executor: {
    async execute(ctx, task) {
      if (ctx.text !== 'wait') return task.complete();
      // Works until canceled.
      await task.startWork();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    },
  },
});

/** The JSON documents shown in docs/errors.md (HTTP blocks: their body). */
const docJson = [...doc.matchAll(/```(json|http)\n([\s\S]*?)```/g)].map((m) => {
  const text = m[1] === 'http' ? (m[2] ?? '').slice((m[2] ?? '').indexOf('\n\n') + 2) : (m[2] ?? '');
  return JSON.parse(text) as unknown;
});

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const headers = { 'a2a-version': '1.0', 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) };
  const res = await handler.fetch(new Request(`http://localhost${path}`, { ...init, headers }));
  return { status: res.status, body: await res.json() };
}

test('the JSON-RPC TaskNotFound example is the real answer (HTTP 200, B6)', async () => {
  const res = await call('/a2a/jsonrpc', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 'r2', method: 'GetTask', params: { id: 'nope' } }) });
  assert.equal(res.status, 200);
  assert.ok(docJson.some((example) => isDeepStrictEqual(example, res.body)), JSON.stringify(res.body));
});

test('the HTTP+JSON TaskNotFound example is the real answer', async () => {
  const res = await call('/a2a/rest/tasks/nope');
  assert.equal(res.status, 404);
  assert.ok(docJson.some((example) => isDeepStrictEqual(example, res.body)), JSON.stringify(res.body));
});

test('the BadRequest examples are the real answers', async () => {
  const rpc = await call('/a2a/jsonrpc', {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', parts: [{ text: 'a', raw: 'Yg==' }] } } }),
  });
  assert.ok(docJson.some((example) => isDeepStrictEqual(example, rpc.body)), JSON.stringify(rpc.body));
  const rest = await call('/a2a/rest/tasks?pageSize=0');
  assert.equal(rest.status, 400);
  assert.ok(docJson.some((example) => isDeepStrictEqual(example, rest.body)), JSON.stringify(rest.body));
});

function reasonOf(body: unknown): string | undefined {
  return (body as { error: { details: { reason: string }[] } }).error.details[0]?.reason;
}

test('decisions: A11 cancel of a canceled task, 413, 405 on JSON-RPC', async () => {
  const sent = await call('/a2a/rest/message:send', {
    method: 'POST',
    body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'wait' }] }, configuration: { returnImmediately: true } }),
  });
  const id = (sent.body as { task: { id: string } }).task.id;
  const first = await call(`/a2a/rest/tasks/${id}:cancel`, { method: 'POST' });
  assert.equal(first.status, 200);
  assert.equal((first.body as { status: { state: string } }).status.state, 'TASK_STATE_CANCELED');
  // A11: a second cancel of the now-canceled task is refused, and the task is unchanged.
  const second = await call(`/a2a/rest/tasks/${id}:cancel`, { method: 'POST' });
  assert.equal(second.status, 400);
  assert.equal(reasonOf(second.body), 'TASK_NOT_CANCELABLE');
  assert.deepEqual((await call(`/a2a/rest/tasks/${id}`)).body, first.body);
  const big = 'x'.repeat(1024 * 1024 + 1);
  const tooLarge = await call('/a2a/jsonrpc', { method: 'POST', body: big });
  assert.equal(tooLarge.status, 413);
  assert.equal((tooLarge.body as { error: { code: number } }).error.code, -32600);
  const get = await call('/a2a/jsonrpc', { method: 'GET' });
  assert.equal(get.status, 405);
});

// ---- client side: every error comes back as the same class -----------------------------

test('client side: JSON-RPC and REST errors turn back into the same typed error', () => {
  for (const [reason, entry] of tableEntries) {
    const original = entry.create(`boom ${reason}`, {
      metadata: { taskId: 't-1' },
      fieldViolations: reason === 'INVALID_PARAMS' ? [{ field: 'message.parts', description: 'must not be empty' }] : [],
    });
    for (const back of [fromJsonRpcError(toJsonRpcError(original)), fromRestError(toRestError(original).body)]) {
      assert.equal(back.constructor, original.constructor, reason);
      assert.equal(back.reason, reason);
      assert.equal(back.message, original.message);
      assert.deepEqual(back.metadata, { taskId: 't-1' });
      assert.deepEqual(back.fieldViolations, original.fieldViolations);
      assert.ok(A2AError.is(back));
    }
  }
});

test('client side: the reason decides, so 1.0.0-style statuses are understood too (A4)', () => {
  const v100 = fromRestError({
    error: {
      code: 409,
      status: 'FAILED_PRECONDITION',
      message: 'already completed',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' }],
    },
  });
  assert.equal(v100.reason, 'TASK_NOT_CANCELABLE');
  assert.equal(v100.name, 'TaskNotCancelableError');
  // Without ErrorInfo, the JSON-RPC code is the fallback.
  assert.equal(fromJsonRpcError({ code: -32001, message: 'gone' }).name, 'TaskNotFoundError');
  assert.equal(fromJsonRpcError({ code: -31999, message: '?' }).reason, 'INTERNAL');
});
