/**
 * Shared fixture for the interop suites: our server (demo agent) on a real socket, and
 * clients built with the official A2A JS SDK (@a2a-js/sdk) against it.
 */
import assert from 'node:assert/strict';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, type A2AHandler } from '../../src/server/createA2AHandler.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { serve, type RunningServer } from '../../src/node/serve.js';
import { createDemoAgent, demoCard, type DemoOptions } from '../../src/cli/agents/demo.js';
import type { AgentCard as OurAgentCard } from '../../src/protocol/types.js';
import { SendMessageRequest, TaskState, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import * as sdkErrors from '@a2a-js/sdk/errors';
import { TEST_PUSH } from '../support/server.js';

export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** One HTTP request as our server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: string;
  a2aVersion: string | undefined;
  accept: string | undefined;
  /** Filled in once the handler answered. */
  status?: number;
  contentType?: string | undefined;
}

export interface Fixture {
  server: RunningServer;
  handler: A2AHandler;
  card: OurAgentCard;
  /** Every request the server received, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

export interface FixtureOptions extends DemoOptions {
  /** Declare capabilities.extendedAgentCard and serve an extended card named `<name> (extended)`. */
  extendedCard?: boolean;
  /** Override the demo card's capabilities.pushNotifications (it declares true). */
  pushNotifications?: boolean;
}

export const EXTENDED_NAME_SUFFIX = ' (extended)';

export async function startDemoServer(options: FixtureOptions = {}): Promise<Fixture> {
  const { extendedCard, pushNotifications, ...demo } = options;
  const seen: SeenRequest[] = [];
  const ref: { handler?: A2AHandler } = {};
  const server = await serve(
    {
      handle: async (req) => {
        const entry: SeenRequest = {
          method: req.method,
          path: req.path,
          query: req.query.toString(),
          a2aVersion: req.header('a2a-version'),
          accept: req.header('accept'),
        };
        seen.push(entry);
        const res = await (ref.handler as A2AHandler).handle(req);
        entry.status = res.status;
        entry.contentType = res.headers['content-type'];
        return res;
      },
      get requestHandler() {
        return ref.handler?.requestHandler;
      },
    },
    { port: 0, shutdownTimeoutMs: 2_000 },
  );
  const urls = { httpBaseUrl: server.url, jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH };
  const demoBase = demoCard();
  const base = pushNotifications === undefined ? demoBase : { ...demoBase, capabilities: { ...demoBase.capabilities, pushNotifications } };
  const publicCard = extendedCard ? { ...base, capabilities: { ...base.capabilities, extendedAgentCard: true } } : base;
  const card = withInterfaces(publicCard, urls);
  const handler = createA2AHandler({
    agentCard: card,
    executor: createDemoAgent(demo),
    heartbeatMs: 60_000,
    push: TEST_PUSH,
    // An extended card needs authentication (§13.3): as if a gateway in front authenticated.
    ...(extendedCard ? { extendedAgentCard: withInterfaces({ ...publicCard, name: base.name + EXTENDED_NAME_SUFFIX }, urls), auth: 'external' as const } : {}),
  });
  ref.handler = handler;
  return { server, handler, card, seen, close: () => server.close() };
}

/** An SDK client resolved from our well-known card URL, preferring `binding`. */
export async function sdkClient(fixture: Fixture, binding: Binding): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
  return factory.createFromUrl(fixture.server.url);
}

let counter = 0;
/** A SendMessageRequest in the SDK's object model, built from its ProtoJSON form. */
export function userMessage(text: string, extra: { taskId?: string; contextId?: string; configuration?: object } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `sdk-m-${process.pid}-${++counter}`,
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.contextId ? { contextId: extra.contextId } : {}),
    },
    ...(extra.configuration ? { configuration: extra.configuration } : {}),
  });
}

export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

export function isTask(result: unknown): result is Task {
  return typeof result === 'object' && result !== null && 'status' in result && !('messageId' in result);
}

export function asTask(result: unknown): Task {
  assert.ok(isTask(result), `expected a Task, got ${JSON.stringify(result)}`);
  return result;
}

export function stateName(state: TaskState | undefined): string {
  return state === undefined ? 'undefined' : (TaskState[state] ?? String(state));
}

/** A compact trace of a stream: task:STATE, status:STATE, artifact[+][!], message. */
export function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload;
    if (!p) return 'empty';
    if (p.$case === 'task') return `task:${short(p.value.status?.state)}`;
    if (p.$case === 'message') return 'message';
    if (p.$case === 'statusUpdate') return `status:${short(p.value.status?.state)}`;
    return `artifact${p.value.append ? '+' : ''}${p.value.lastChunk ? '!' : ''}`;
  });
}
function short(state: TaskState | undefined): string {
  return stateName(state).replace('TASK_STATE_', '');
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Waits until `check` returns a value, polling every 10 ms (fails after `timeoutMs`). */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export { TaskState };

/** What a typed SDK error must look like on each binding (spec §5.4 mapping). */
export interface ErrorExpectation {
  /** Reason in google.rpc.ErrorInfo, e.g. TASK_NOT_FOUND. */
  reason: string;
  /** SDK semantic class name (error.name), e.g. TaskNotFoundError. */
  name: string;
  jsonRpcCode: number;
  httpStatus: number;
}

export const ERR = {
  taskNotFound: { reason: 'TASK_NOT_FOUND', name: 'TaskNotFoundError', jsonRpcCode: -32001, httpStatus: 404 },
  taskNotCancelable: { reason: 'TASK_NOT_CANCELABLE', name: 'TaskNotCancelableError', jsonRpcCode: -32002, httpStatus: 400 },
  pushNotSupported: { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', name: 'PushNotificationNotSupportedError', jsonRpcCode: -32003, httpStatus: 400 },
  unsupported: { reason: 'UNSUPPORTED_OPERATION', name: 'UnsupportedOperationError', jsonRpcCode: -32004, httpStatus: 400 },
  versionNotSupported: { reason: 'VERSION_NOT_SUPPORTED', name: 'VersionNotSupportedError', jsonRpcCode: -32009, httpStatus: 400 },
} satisfies Record<string, ErrorExpectation>;

/** The SDK raised its typed error for `e` on `binding`: semantic class, reason, wire code/status. */
export function typedError(binding: Binding, e: ErrorExpectation) {
  return (err: unknown): true => {
    const errors = sdkErrors as unknown as Record<string, new (...a: never[]) => unknown>;
    const semantic = errors[e.name] as new (...a: never[]) => unknown;
    assert.ok(err instanceof semantic, `expected ${e.name}, got ${String(err)} (${(err as Error)?.constructor?.name})`);
    const a2a = err as sdkErrors.A2AError;
    assert.equal(a2a.name, e.name);
    assert.equal(a2a.reason, e.reason);
    if (binding === 'JSONRPC') {
      assert.ok(sdkErrors.isJsonRpcError(err), 'a JsonRpc*Error');
      assert.ok(err instanceof (errors[`JsonRpc${e.name}`] as new (...a: never[]) => unknown));
      assert.equal(err.envelopeCode, e.jsonRpcCode);
    } else {
      assert.ok(sdkErrors.isRestError(err), 'a Rest*Error');
      assert.ok(err instanceof (errors[`Rest${e.name}`] as new (...a: never[]) => unknown));
      assert.equal(err.statusCode, e.httpStatus);
    }
    return true;
  };
}
