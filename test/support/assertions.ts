/** Assertions and builders shared by the protocol suites. */
import assert from 'node:assert/strict';
import { A2A_ERROR_DOMAIN, type A2AErrorReason } from '../../src/protocol/errors.js';
import { ERROR_TABLE, KIT_ERROR_DOMAIN } from '../../src/protocol/errorTable.js';
import type { Message, Part } from '../../src/protocol/types.js';
import { ERROR_INFO_TYPE, type CallResult, type StreamEvent, type StreamResult, type WireError, type Json } from './bindings.js';

/** Asserts success and returns the result. */
export function ok(res: CallResult): Json {
  if (!res.ok) assert.fail(`expected success, got ${res.error.reason || 'error'}: ${res.error.message} ${JSON.stringify(res.error.raw)}`);
  return res.result;
}

/** Asserts a successful stream that ended on its own and returns its events. */
export function okStream(res: StreamResult): StreamEvent[] {
  if (!res.ok) assert.fail(`expected a stream, got ${res.error.reason}: ${res.error.message}`);
  assert.ok(res.ended, 'the stream should have ended');
  for (const e of res.events) assert.equal(e.error, undefined, `unexpected mid-stream error ${JSON.stringify(e.error?.raw)}`);
  return res.events;
}

export interface ErrorExpectation {
  /** A BadRequest field violation with this field must be present. */
  field?: string;
  /** ErrorInfo.metadata entries that must be present. */
  metadata?: Record<string, string>;
}

/**
 * Asserts an error with `reason` whose binding codes match ERROR_TABLE: JSON-RPC code, REST
 * HTTP status + error.status (+ body code = HTTP status), gRPC status; ErrorInfo with the right
 * domain; every detail typed (ERR-03).
 */
export function expectError(res: CallResult | StreamResult, reason: A2AErrorReason, expect: ErrorExpectation = {}): WireError {
  if (res.ok) assert.fail(`expected ${reason}, got success: ${JSON.stringify('result' in res ? res.result : res.events).slice(0, 500)}`);
  const e = res.error;
  const row = ERROR_TABLE[reason];
  assert.equal(e.reason, reason, `ErrorInfo.reason (message: ${e.message})`);
  let codes = 0;
  if (e.jsonRpcCode !== undefined) {
    assert.equal(e.jsonRpcCode, row.jsonRpcCode, `JSON-RPC code for ${reason}`);
    codes++;
  }
  if (e.httpStatus !== undefined) {
    assert.equal(e.httpStatus, row.httpStatus, `HTTP status for ${reason}`);
    assert.equal(e.bodyCode, e.httpStatus, 'REST error.code must equal the HTTP status (REST-07)');
    codes++;
  }
  if (e.grpcStatus !== undefined) {
    assert.equal(e.grpcStatus, row.grpcStatus, `gRPC status for ${reason}`);
    codes++;
  }
  assert.ok(codes > 0, 'the error carries no binding code');
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0, 'error message must not be empty');
  for (const d of e.details) assert.equal(typeof d['@type'], 'string', `every detail needs @type: ${JSON.stringify(d)}`);
  assert.ok(e.details.some((d) => d['@type'] === ERROR_INFO_TYPE), 'ErrorInfo in details (ERR-02)');
  assert.equal(e.domain, row.a2a ? A2A_ERROR_DOMAIN : KIT_ERROR_DOMAIN, 'ErrorInfo.domain');
  if (expect.field !== undefined) {
    assert.ok(
      e.fieldViolations.some((v) => v.field === expect.field),
      `a BadRequest field violation for ${expect.field}; got ${JSON.stringify(e.fieldViolations)}`,
    );
  }
  for (const [k, v] of Object.entries(expect.metadata ?? {})) assert.equal(e.metadata[k], v, `ErrorInfo.metadata.${k}`);
  return e;
}

let counter = 0;
export function uid(prefix = 'x'): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
}

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export function send(text: string, extra: Partial<Message> = {}, configuration?: object): { message: Message; configuration?: object } {
  return { message: userMessage(text, extra), ...(configuration ? { configuration } : {}) };
}

export function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

/** A compact trace of a stream: task:STATE, status:STATE, artifact[+][!], message, error. */
export function trace(events: StreamEvent[]): string[] {
  return events.map(({ event: e, error }) => {
    if (error) return `error:${error.reason}`;
    if ('task' in e) return `task:${short(e.task.status.state)}`;
    if ('message' in e) return 'message';
    if ('statusUpdate' in e) return `status:${short(e.statusUpdate.status.state)}`;
    if ('artifactUpdate' in e) return `artifact${e.artifactUpdate.append ? '+' : ''}${e.artifactUpdate.lastChunk ? '!' : ''}`;
    return `unknown:${Object.keys(e).join(',')}`;
  });
}

function short(state: string): string {
  return state.replace('TASK_STATE_', '');
}

/** Collapses runs of identical trace entries ("status:WORKING" x12 → one). */
export function squash(entries: string[]): string[] {
  return entries.filter((e, i) => e !== entries[i - 1]);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `fn` returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
