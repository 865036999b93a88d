/**
 * Test support for the client suites: our real server (demo agent) with a hook around
 * `handler.handle` to observe or alter requests and responses, and a loopback TCP proxy that
 * cuts event streams after a number of bytes.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { A2AClientError } from '../../src/client/errors.js';
import type { HttpRequest, HttpResponse } from '../../src/server/http/httpTypes.js';
import type { TestServer } from '../support/server.js';

export const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export type Binding = (typeof BINDINGS)[number];

export type Next = (req: HttpRequest) => Promise<HttpResponse>;
export type Hook = (req: HttpRequest, next: Next) => Promise<HttpResponse>;

/** Wraps the server's handler; hooks run outermost-last-installed. Returns an uninstall function. */
export function hook(server: TestServer, fn: Hook): () => void {
  const handler = server.handler as { handle: Next };
  const previous = handler.handle;
  handler.handle = (req) => fn(req, previous);
  return () => {
    handler.handle = previous;
  };
}

/** A request with its body already read (so a hook can look at it and the handler still gets it). */
export async function withBody(req: HttpRequest): Promise<{ req: HttpRequest; body: string }> {
  const body = req.method === 'GET' || req.method === 'DELETE' ? '' : await req.text(10 * 1024 * 1024);
  const copy = Object.create(req, { text: { value: async () => body } }) as HttpRequest;
  return { req: copy, body };
}

export interface Seen {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | undefined>;
  body: string;
  status?: number;
}

const HEADERS = ['a2a-version', 'a2a-extensions', 'authorization', 'x-api-key', 'cookie', 'last-event-id', 'if-none-match', 'content-type', 'accept', 'x-test'];

/** Records every request (selected headers, body) and the status answered. */
export function record(server: TestServer): Seen[] {
  const seen: Seen[] = [];
  hook(server, async (original, next) => {
    const { req, body } = await withBody(original);
    const entry: Seen = {
      method: req.method,
      path: req.path,
      query: req.query.toString(),
      headers: Object.fromEntries(HEADERS.map((h) => [h, req.header(h)])),
      body,
    };
    seen.push(entry);
    const res = await next(req);
    entry.status = res.status;
    return res;
  });
  return seen;
}

/** A JSON response (for hooks that answer instead of the handler). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? '' : JSON.stringify(body) };
}

/** Maps each chunk of a streamed body (SSE) through `fn`; returning null ends the stream there. */
export function mapBody(res: HttpResponse, fn: (chunk: string, index: number) => string | null): HttpResponse {
  const body = res.body;
  if (body === undefined || typeof body === 'string') return res;
  return {
    ...res,
    body: (async function* () {
      let i = 0;
      for await (const chunk of body) {
        const out = fn(chunk, i++);
        if (out === null) return;
        yield out;
      }
    })(),
  };
}

export interface CuttingProxy {
  url: string;
  /** Streams cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of `targetUrl`. Once a response on a connection turns out to
 * be an event stream, the connection is destroyed after `cutAfterBytes` further bytes (mid-event,
 * usually), or right after the first chunk containing `cutAfterText`, at most `maxCuts` times in all.
 */
export async function startCuttingProxy(targetUrl: string, options: { cutAfterBytes: number; maxCuts: number; cutAfterText?: string }): Promise<CuttingProxy> {
  const target = new URL(targetUrl);
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let streaming = false;
    let sent = 0;
    const destroy = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      if (!streaming && d.toString('latin1').toLowerCase().includes('content-type: text/event-stream')) streaming = true;
      if (!streaming || cuts >= options.maxCuts) {
        client.write(d);
        return;
      }
      if (options.cutAfterText !== undefined) {
        const seen = d.toString('latin1').includes(options.cutAfterText);
        if (seen) cuts++;
        client.write(d, seen ? destroy : undefined);
        return;
      }
      const room = options.cutAfterBytes - sent;
      if (d.length < room) {
        sent += d.length;
        client.write(d);
        return;
      }
      cuts++;
      client.write(d.subarray(0, room), destroy);
    });
    client.on('close', destroy);
    upstream.on('close', destroy);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** For assert.rejects: the client refused the agent's answer as INVALID_RESPONSE. */
export function invalidResponse(error: unknown): true {
  assert.ok(A2AClientError.is(error, 'INVALID_RESPONSE'), `expected INVALID_RESPONSE, got ${String(error)}`);
  return true;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A compact trace of a stream: task:STATE, status:STATE, artifact[+][!], message. */
export function trace(events: readonly object[]): string[] {
  return events.map((e) => {
    const ev = e as Record<string, { status?: { state: string }; append?: boolean; lastChunk?: boolean }>;
    if (ev.task) return `task:${ev.task.status?.state.replace('TASK_STATE_', '')}`;
    if (ev.statusUpdate) return `status:${ev.statusUpdate.status?.state.replace('TASK_STATE_', '')}`;
    if (ev.artifactUpdate) return `artifact${ev.artifactUpdate.append ? '+' : ''}${ev.artifactUpdate.lastChunk ? '!' : ''}`;
    return 'message';
  });
}
