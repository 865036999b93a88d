/**
 * A real server (demo agent, push, extended card) for the 0.3-compat server suites, assembled
 * like createA2AHandler but with the BindingContext option `compat03` exposed, and the card
 * route wired the way the lead wires it: `cardForRequest` picks the 1.0, 0.3 or hybrid card by
 * the request's A2A-Version (with `Vary: A2A-Version`). Compat off serves the 1.0 card only.
 */
import assert from 'node:assert/strict';
import type * as Sdk from 'a2a-sdk-03';
import { ClientFactory, ClientFactoryOptions, type Client } from 'a2a-sdk-03/client';
import { BindingContext } from '../../src/bindings/bindingContext.js';
import { handleJsonRpc } from '../../src/bindings/jsonrpc/server.js';
import { handleRest } from '../../src/bindings/rest/server.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { cardForRequest } from '../../src/compat/card03.js';
import { serve, type RunningServer } from '../../src/node/serve.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { AGENT_CARD_PATH } from '../../src/server/agentCardRoute.js';
import { DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH } from '../../src/server/createA2AHandler.js';
import type { HttpRequest, HttpResponse } from '../../src/server/http/httpTypes.js';
import { A2ARequestHandler } from '../../src/server/requestHandler.js';
import { TEST_PUSH } from '../support/server.js';
import { jsonRpcBinding, restBinding, type TestBinding } from '../support/bindings.js';

export const EXTENDED_SUFFIX = ' (extended)';

export interface CompatServer {
  url: string;
  jsonRpcUrl: string;
  restUrl: string;
  card: AgentCard;
  handler: A2ARequestHandler;
  running: RunningServer;
  /** Every request seen: path, A2A-Version header, status. */
  seen: { method: string; path: string; a2aVersion: string | undefined; status?: number; contentType?: string }[];
  errors: unknown[];
  close(): Promise<void>;
}

export async function startCompatServer(options: { compat03?: boolean } = {}): Promise<CompatServer> {
  const compat03 = options.compat03 ?? true;
  const errors: unknown[] = [];
  const seen: CompatServer['seen'] = [];
  const ref: { handle?: (req: HttpRequest) => Promise<HttpResponse> } = {};
  const running = await serve(
    {
      handle: async (req) => {
        const entry: CompatServer['seen'][number] = { method: req.method, path: req.path, a2aVersion: req.header('a2a-version') };
        seen.push(entry);
        const res = await (ref.handle as (req: HttpRequest) => Promise<HttpResponse>)(req);
        entry.status = res.status;
        entry.contentType = res.headers['content-type'];
        return res;
      },
    },
    { port: 0, host: '127.0.0.1', shutdownTimeoutMs: 300, onError: (e) => errors.push(e) },
  );
  const urls = { httpBaseUrl: running.url, jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH };
  const base = demoCard();
  const publicBase = { ...base, capabilities: { ...base.capabilities, extendedAgentCard: true } };
  const card = withInterfaces(publicBase, urls);
  const handler = new A2ARequestHandler({
    agentCard: card,
    executor: createDemoAgent({ slowMs: 1500, tickMs: 50 }),
    extendedAgentCard: withInterfaces({ ...publicBase, name: base.name + EXTENDED_SUFFIX }, urls),
    push: TEST_PUSH,
    onError: (e) => errors.push(e),
  });
  const binding = new BindingContext({
    handler,
    limits: { maxBodyBytes: 1024 * 1024, maxJsonDepth: 32, heartbeatMs: 60_000 },
    supportedVersions: ['1.0'],
    onError: (e) => errors.push(e),
    compat03,
  });
  ref.handle = async (req) => {
    if (req.path === AGENT_CARD_PATH) {
      const body = compat03 ? cardForRequest(card, req).body : card;
      return { status: 200, headers: { 'content-type': 'application/json', vary: 'A2A-Version' }, body: JSON.stringify(body) };
    }
    if (req.path === DEFAULT_JSONRPC_PATH) return handleJsonRpc(req, binding);
    if (req.path.startsWith(`${DEFAULT_REST_PATH}/`)) return handleRest(req, req.path.slice(DEFAULT_REST_PATH.length), binding);
    return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":{"code":404,"status":"NOT_FOUND","message":"nothing here"}}' };
  };
  return {
    url: running.url,
    jsonRpcUrl: `${running.url}${DEFAULT_JSONRPC_PATH}`,
    restUrl: `${running.url}${DEFAULT_REST_PATH}`,
    card,
    handler,
    running,
    seen,
    errors,
    close: () => running.close(),
  };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

let counter = 0;
/** 0.3 MessageSendParams (JSON-RPC dialect) with a fresh message id. */
export function params03(text: string, extra: { taskId?: string; contextId?: string; blocking?: boolean } = {}) {
  return {
    message: {
      kind: 'message' as const,
      role: 'user' as const,
      messageId: `m03-${process.pid}-${++counter}`,
      parts: [{ kind: 'text' as const, text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.contextId ? { contextId: extra.contextId } : {}),
    },
    ...(extra.blocking === undefined ? {} : { configuration: { blocking: extra.blocking } }),
  };
}

/** What the 0.3 SDK client's calls can yield: a Task, a Message or a stream event. */
export type Event03 = Sdk.Task | Sdk.Message | Sdk.TaskStatusUpdateEvent | Sdk.TaskArtifactUpdateEvent;

export function asTask(result: unknown): Sdk.Task {
  assert.equal((result as { kind?: string }).kind, 'task', JSON.stringify(result));
  return result as Sdk.Task;
}

export function textOf(parts: readonly Sdk.Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

export interface SdkClientSetup {
  s: CompatServer;
  /** The 0.3 SDK client, made by its ClientFactory from the card, preferring `transport`. */
  client: Client;
  /** A 1.0 client of the same server over the same binding. */
  v10: TestBinding;
}

/** A compat server (compat on), a 0.3 SDK client preferring `transport` and a 1.0 one over the same binding. */
export async function startSdkClientSetup(transport: 'JSONRPC' | 'HTTP+JSON'): Promise<SdkClientSetup> {
  const s = await startCompatServer();
  const v10 = transport === 'JSONRPC' ? jsonRpcBinding(s.jsonRpcUrl) : restBinding(s.restUrl);
  const client = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] })).createFromUrl(s.url);
  return { s, client, v10 };
}
