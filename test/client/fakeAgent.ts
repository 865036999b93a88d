/**
 * A small fake agent on loopback (node:http) for the client's hostile-server tests: every request
 * is recorded (method, path with query, headers, body) and answered by the test's handler; the
 * card helpers build 1.0 cards pointing at it. Unlike the real server (support/server.ts), it
 * can answer anything: redirects, endless bodies, wrong JSON-RPC ids, odd SSE ids.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard, SecurityScheme } from '../../src/protocol/types.js';

export interface FakeRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type FakeHandler = (req: FakeRequest, res: ServerResponse) => void | Promise<void>;

export interface FakeAgent {
  /** `http://127.0.0.1:PORT` (or `http://localhost:PORT` with `host: 'localhost'`): another origin than the other. */
  url: string;
  port: number;
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFakeAgent(handler: FakeHandler, options: { host?: 'localhost' } = {}): Promise<FakeAgent> {
  const requests: FakeRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      requests.push(request);
      void Promise.resolve(handler(request, res)).catch((error: unknown) => res.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const agent = await startFakeAgent(() => undefined);
  await agent.close();
  return agent.port;
}

/** A 1.0 card with one interface at `url`. */
export function cardAt(url: string, options: { binding?: string; version?: string; securitySchemes?: Record<string, SecurityScheme> } = {}): AgentCard {
  return {
    name: 'fake',
    description: 'a fake agent',
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    supportedInterfaces: [{ url, protocolBinding: options.binding ?? 'JSONRPC', protocolVersion: options.version ?? '1.0' }],
    ...(options.securitySchemes ? { securitySchemes: options.securitySchemes } : {}),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The id of a JSON-RPC request body. */
export function rpcId(req: FakeRequest): unknown {
  return (JSON.parse(req.body) as { id: unknown }).id;
}

/** A task in a JSON-RPC (1.0) or HTTP+JSON answer. */
export function task(id: string, state = 'TASK_STATE_COMPLETED'): Record<string, unknown> {
  return { id, contextId: 'ctx-1', status: { state } };
}
