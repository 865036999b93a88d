/**
 * The OFFICIAL A2A 0.3 JS SDK (`a2a-sdk-03` = @a2a-js/sdk@0.3.x) server, for client compat
 * tests: its DefaultRequestHandler (in-memory task and push stores, push notifications and the
 * authenticated extended card on) behind its Express handlers for the agent card
 * (/.well-known/agent-card.json, a 0.3 card), JSON-RPC (/a2a/jsonrpc) and HTTP+JSON
 * (/a2a/rest, its `restHandler`: the 0.3 `/v1/…` routes in the proto-JSON dialect), on a
 * loopback port. The card names JSON-RPC as its transport, or with `preferredTransport:
 * 'HTTP+JSON'` the REST interface first and JSON-RPC as an additional interface.
 *
 * Also, for the fallback path: `/v10` serves a 1.0 card whose JSON-RPC interface
 * (/v10/a2a/jsonrpc) answers every 1.0 call (A2A-Version: 1.0) with VersionNotSupported and
 * passes 0.3 calls to the SDK — once listing 0.3 in the error (`/v10`), once only through a
 * 0.3 interface on its card (`/v10card`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import type * as Sdk from 'a2a-sdk-03';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-03/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from 'a2a-sdk-03/server/express';
import { toJsonRpcError } from '../../src/bindings/jsonrpc/errors.js';
import { VersionNotSupportedError } from '../../src/protocol/errors.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { runAgentScript } from './agentScript.js';

/** A small 0.3 agent following the shared script (agentScript.ts). */
export function sdk03Agent(): AgentExecutor {
  const canceled = new Set<string>();
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(' ').trim();
      const { taskId, contextId } = ctx;
      await runAgentScript(
        {
          text,
          taskId,
          awaitingInput: ctx.task?.status.state === 'input-required',
          message: (reply) => bus.publish({ kind: 'message', messageId: `r-${taskId}`, role: 'agent', contextId, parts: [{ kind: 'text', text: reply }] }),
          resume: () => {},
          submit: () => {
            if (!ctx.task) bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [ctx.userMessage] });
          },
          status: (state, note) =>
            bus.publish({
              kind: 'status-update',
              taskId,
              contextId,
              final: state !== 'working',
              status: {
                state,
                timestamp: new Date().toISOString(),
                ...(note ? { message: { kind: 'message', messageId: `n-${taskId}-${Math.random()}`, role: 'agent', parts: [{ kind: 'text', text: note }], taskId, contextId } } : {}),
              },
            }),
          artifact: (artifactId, chunk, flags = {}) =>
            bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId, name: 'out', parts: [{ kind: 'text', text: chunk }] }, ...flags }),
          finished: () => bus.finished(),
        },
        canceled,
      );
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      canceled.add(taskId);
      bus.publish({ kind: 'status-update', taskId, contextId: '', final: true, status: { state: 'canceled', timestamp: new Date().toISOString() } });
      bus.finished();
    },
  };
}

export interface Sdk03Server {
  /** The agent's base URL: its 0.3 card is at /.well-known/agent-card.json. */
  url: string;
  /** A 1.0 card whose interface refuses 1.0 with VersionNotSupported listing 0.3 (then speaks 0.3). */
  fallbackUrl: string;
  /** The same, but the error lists nothing: the card's second (0.3) interface says 0.3 is there. */
  fallbackCardUrl: string;
  card: Sdk.AgentCard;
  /** The requests received: the JSON-RPC method, or `GET /v1/…` (HTTP method and path below /a2a/rest) for REST; A2A-Version header. */
  requests: { path: string; method: string; version: string | undefined; lastEventId: string | undefined; body?: unknown }[];
  close(): Promise<void>;
}

export interface Sdk03ServerOptions {
  /** Extended card configured (default true). */
  extendedCard?: boolean;
  /** Port (default: any free one). */
  port?: number;
  /** The card's main interface (default JSONRPC). */
  preferredTransport?: 'JSONRPC' | 'HTTP+JSON';
}

export async function startSdk03Server(options: Sdk03ServerOptions = {}): Promise<Sdk03Server> {
  const app = express();
  const http: Server = createServer(app);
  await new Promise<void>((r) => http.listen(options.port ?? 0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const extended = options.extendedCard ?? true;
  const card: Sdk.AgentCard = {
    protocolVersion: '0.3.0',
    name: 'SDK 0.3 agent',
    description: 'An agent served by the official 0.3 SDK',
    ...(options.preferredTransport === 'HTTP+JSON'
      ? {
          url: `${url}/a2a/rest`,
          preferredTransport: 'HTTP+JSON',
          additionalInterfaces: [
            { url: `${url}/a2a/rest`, transport: 'HTTP+JSON' },
            { url: `${url}/a2a/jsonrpc`, transport: 'JSONRPC' },
          ],
        }
      : { url: `${url}/a2a/jsonrpc`, preferredTransport: 'JSONRPC' }),
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    supportsAuthenticatedExtendedCard: extended,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['demo'] }],
  };
  const extendedCard: Sdk.AgentCard = { ...card, name: 'SDK 0.3 agent (extended)', skills: [...card.skills, { id: 'secret', name: 'Secret', description: 'for callers who asked', tags: [] }] };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), sdk03Agent(), undefined, new InMemoryPushNotificationStore(), undefined, extended ? async () => extendedCard : undefined);
  const requests: Sdk03Server['requests'] = [];
  const log = (req: Request, method: string) => requests.push({ path: req.path, method, version: req.get('a2a-version'), lastEventId: req.get('last-event-id'), body: req.body as unknown });
  // REST requests with their JSON body as sent (the REST router then skips parsing it again).
  app.use('/a2a/rest', express.json(), (req: Request, _res: Response, next: () => void) => {
    log(req, `${req.method} ${req.path}`);
    next();
  });
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use(express.json());
  app.use((req: Request, _res: Response, next: () => void) => {
    if (req.method === 'POST') log(req, String((req.body as { method?: unknown })?.method));
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  const rpc = jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication });
  app.use('/a2a/jsonrpc', rpc);

  // ---- The fallback agents: 1.0 on the card, 0.3 behind it ----
  const v10Card = (base: string, withV03Interface: boolean): AgentCard => ({
    name: 'Mislabelled agent',
    description: 'Says 1.0, speaks 0.3',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    supportedInterfaces: [
      { url: `${url}${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ...(withV03Interface ? [{ url: `${url}${base}/a2a/jsonrpc03`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }] : []),
    ],
  });
  for (const [base, listVersions] of [['/v10', true], ['/v10card', false]] as const) {
    app.get(`${base}/.well-known/agent-card.json`, (_req, res) => {
      res.json(v10Card(base, !listVersions));
    });
    const refuse10 = (req: Request, res: Response, next: () => void) => {
      if (req.get('a2a-version') !== '1.0') return next();
      const error = toJsonRpcError(
        new VersionNotSupportedError('Protocol version "1.0" is not supported', listVersions ? { metadata: { requestedVersion: '1.0', supportedVersions: '0.3' } } : {}),
      );
      // Only the code, as a 0.3-era server would: no ErrorInfo details.
      res.json({ jsonrpc: '2.0', id: (req.body as { id?: unknown })?.id ?? null, error: listVersions ? error : { code: error.code, message: error.message } });
    };
    app.use(`${base}/a2a/jsonrpc`, refuse10, rpc);
    app.use(`${base}/a2a/jsonrpc03`, refuse10, rpc);
  }

  return {
    url,
    fallbackUrl: `${url}/v10`,
    fallbackCardUrl: `${url}/v10card`,
    card,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
