/**
 * Shared helpers for the Node host tests: an in-process server around the real handler, raw
 * HTTP/SSE clients built on node:http and node:net (so tests control sockets precisely), and
 * child-process plumbing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serve, type RunningServer, type ServeOptions } from '../../src/node/serve.js';
import { createA2AHandler, type A2AHandler, type A2AHandlerOptions } from '../../src/server/createA2AHandler.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Message, StreamResponse, Task } from '../../src/protocol/types.js';
import { TEST_PUSH } from '../support/server.js';

export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';
/** Every request names the protocol version; without it the server negotiates 0.3 and refuses. */
export const VERSION_HEADERS = { 'a2a-version': '1.0' } as const;

export interface TestServer {
  server: RunningServer;
  handler: A2AHandler;
  bus: LocalEventBus;
  url: string;
  rpcUrl: string;
  restUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startServer(
  executor: AgentExecutor,
  handlerOptions: Partial<A2AHandlerOptions> = {},
  serveOptions: ServeOptions = {},
): Promise<TestServer> {
  const bus = new LocalEventBus();
  const ref: { handler?: A2AHandler } = {};
  const server = await serve(
    {
      handle: (req) => (ref.handler as A2AHandler).handle(req),
      refusal: (refused) => (ref.handler as A2AHandler).refusal(refused),
      get requestHandler() {
        return ref.handler?.requestHandler;
      },
    },
    { port: 0, shutdownTimeoutMs: 1000, ...serveOptions },
  );
  const card = withInterfaces(demoCard(), { httpBaseUrl: server.url, jsonRpcPath: JSONRPC_PATH, restPath: REST_PATH });
  const handler = createA2AHandler({ agentCard: card, executor, bus, push: TEST_PUSH, ...handlerOptions });
  ref.handler = handler;
  return {
    server,
    handler,
    bus,
    url: server.url,
    rpcUrl: server.url + JSONRPC_PATH,
    restUrl: server.url + REST_PATH,
    port: server.port,
    close: () => server.close(),
  };
}

let counter = 0;
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `msg-${process.pid}-${++counter}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
}

/** One HTTP request on a fresh connection (no agent), body as given. */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? (options.body === undefined ? 'GET' : 'POST'), headers: { ...VERSION_HEADERS, ...options.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`request to ${url} timed out`)));
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

let rpcId = 0;
export function rpcBody(method: string, params: unknown, id: string | number = ++rpcId): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export interface RpcEnvelope {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { '@type'?: string; reason?: string; fieldViolations?: unknown[] }[] };
}

export async function rpc(rpcUrl: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<RpcEnvelope> {
  const res = await request(rpcUrl, { body: rpcBody(method, params), headers: { 'content-type': 'application/json', ...headers } });
  if (res.status !== 200) throw new Error(`JSON-RPC ${method}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res.json as RpcEnvelope;
}

export async function rpcResult<T>(rpcUrl: string, method: string, params: unknown): Promise<T> {
  const env = await rpc(rpcUrl, method, params);
  if (env.error) throw new Error(`JSON-RPC ${method} failed: ${JSON.stringify(env.error)}`);
  return env.result as T;
}

export async function getTask(rpcUrl: string, id: string): Promise<Task> {
  return rpcResult<Task>(rpcUrl, 'GetTask', { id });
}

/** Polls GetTask until `state`, or throws after `timeoutMs`. */
export async function waitForState(rpcUrl: string, id: string, state: string, timeoutMs: number): Promise<Task> {
  const deadline = Date.now() + timeoutMs;
  let task = await getTask(rpcUrl, id);
  while (task.status.state !== state) {
    if (Date.now() > deadline) throw new Error(`task ${id} is ${task.status.state}, expected ${state} within ${timeoutMs} ms`);
    await delay(50);
    task = await getTask(rpcUrl, id);
  }
  return task;
}

/** Polls `check` until it returns true; resolves with the elapsed ms, or throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean, timeoutMs: number, what: string, stepMs = 10): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(stepMs);
  }
  return Date.now() - start;
}

// ---------------------------------------------------------------- SSE

export interface SseEvent {
  id?: number;
  data?: string;
  retry?: number;
  comment?: string;
}

/** Incremental SSE parser: feed text, get complete events (comments reported as events too). */
export class SseParser {
  private buffer = '';
  readonly events: SseEvent[] = [];
  raw = '';

  feed(text: string): SseEvent[] {
    this.raw += text;
    this.buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) break;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = {};
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.comment = line.slice(1).trim();
        else if (line.startsWith('id:')) event.id = Number(line.slice(3).trim());
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.startsWith('retry:')) event.retry = Number(line.slice(6).trim());
      }
      if (data.length > 0) event.data = data.join('\n');
      out.push(event);
      this.events.push(event);
    }
    return out;
  }
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  parser: SseParser;
  req: http.ClientRequest;
  res: http.IncomingMessage;
  /** Events with data (comments and retry hints excluded). */
  readonly dataEvents: SseEvent[];
  /** Parsed `result` (JSON-RPC) or whole payload (REST) of every data event. */
  readonly payloads: unknown[];
  /** Resolves when the response ends (or the socket closes). */
  ended: Promise<void>;
  readonly isEnded: boolean;
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs: number, what?: string): Promise<void>;
  destroy(): void;
}

/** Opens an SSE response with node:http on its own connection. */
export function openSse(
  url: string,
  body: string | undefined,
  options: { method?: string; headers?: Record<string, string>; jsonRpc?: boolean } = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? 'POST',
        agent: false,
        headers: { ...VERSION_HEADERS, accept: 'text/event-stream', 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        const parser = new SseParser();
        let ended = false;
        const waiters = new Set<() => void>();
        const notify = () => {
          for (const w of [...waiters]) w();
        };
        const endedPromise = new Promise<void>((done) => {
          const finish = () => {
            ended = true;
            notify();
            done();
          };
          res.once('end', finish);
          res.once('close', finish);
          res.once('error', finish);
        });
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          parser.feed(text);
          notify();
        });
        const client: SseClient = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          parser,
          req,
          res,
          get dataEvents() {
            return parser.events.filter((e) => e.data !== undefined);
          },
          get payloads() {
            return client.dataEvents.map((e) => {
              const v = JSON.parse(e.data as string) as Record<string, unknown>;
              return options.jsonRpc === false ? v : (v.result ?? v);
            });
          },
          ended: endedPromise,
          get isEnded() {
            return ended;
          },
          waitFor(predicate, timeoutMs, what = 'SSE events') {
            if (predicate(parser.events)) return Promise.resolve();
            return new Promise((ok, fail) => {
              const check = () => {
                if (predicate(parser.events)) {
                  cleanup();
                  ok();
                } else if (ended) {
                  cleanup();
                  fail(new Error(`stream ended before ${what}; got ${JSON.stringify(parser.raw.slice(-500))}`));
                }
              };
              const timer = setTimeout(() => {
                cleanup();
                fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${JSON.stringify(parser.raw.slice(-500))}`));
              }, timeoutMs);
              const cleanup = () => {
                clearTimeout(timer);
                waiters.delete(check);
              };
              waiters.add(check);
            });
          },
          destroy() {
            req.destroy();
            res.destroy();
          },
        };
        resolve(client);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/** JSON-RPC streaming call over SSE. */
export function rpcStream(rpcUrl: string, method: 'SendStreamingMessage' | 'SubscribeToTask', params: unknown): Promise<SseClient> {
  return openSse(rpcUrl, rpcBody(method, params), { jsonRpc: true });
}

/** The task state an event leaves the task in, if any. */
export function stateOf(payload: unknown): string | undefined {
  const e = payload as StreamResponse;
  if ('task' in e) return e.task.status.state;
  if ('statusUpdate' in e) return e.statusUpdate.status.state;
  return undefined;
}

export function hasState(client: SseClient, state: string): boolean {
  return client.payloads.some((p) => stateOf(p) === state);
}

// ---------------------------------------------------------------- raw sockets

export function connect(port: number, host = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Writes `text` on a fresh socket and resolves with everything received until the server closes it. */
export async function rawExchange(port: number, text: string): Promise<string> {
  const socket = await connect(port);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(text);
  await within(closed, 5_000, undefined);
  socket.destroy();
  return received;
}

/** How many connections the server holds open. */
export function connectionCount(s: TestServer): Promise<number> {
  return new Promise((resolve, reject) => s.server.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
}

/** Best-effort process RSS (bytes). */
export function rss(): number {
  return process.memoryUsage().rss;
}

// ---------------------------------------------------------------- child-process server


export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  url: string;
  rpcUrl: string;
  restUrl: string;
  port: number;
  ask<T extends Record<string, unknown>>(type: string): Promise<T>;
  kill(): Promise<void>;
}

/** Starts test/node/fixtures/server.ts in its own process (see there for the IPC protocol). */
export async function spawnChildServer(config: Record<string, unknown>): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/server.ts', import.meta.url))], {
    cwd: REPO_ROOT,
    env: { ...process.env, A2A_TEST_SERVER: JSON.stringify(config) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('child server did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`child server exited early with ${code}`)));
    child.on('message', (m: { type: string; url?: string }) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m.url as string);
      }
    });
  });
  return {
    child,
    url,
    rpcUrl: url + JSONRPC_PATH,
    restUrl: url + REST_PATH,
    port: Number(new URL(url).port),
    ask<T extends Record<string, unknown>>(type: string) {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no IPC answer to ${type}`)), 10_000);
        const onMessage = (m: { type: string }) => {
          if (m.type !== type) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(m as unknown as T);
        };
        child.on('message', onMessage);
        child.send({ type });
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Resolves with `promise`'s value, or with `fallback` after `ms` (the timer is cleared either way). */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
