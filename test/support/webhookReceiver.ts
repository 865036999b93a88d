/**
 * A webhook receiver for push notification tests: node:http on 127.0.0.1:<free port> that records
 * every request it gets (whatever it answers) and answers 200 unless told otherwise.
 *
 *   const hook = await startReceiver();                       // always 200
 *   const flaky = await startReceiver({ respond: (_req, n) => (n <= 2 ? 503 : 200) });
 *   const gone = await startReceiver({ respond: () => ({ status: 429, headers: { 'retry-after': '1' } }) });
 *   ...config url: hook.url (any path or query below it reaches the same receiver)
 *   const seen = await hook.waitFor(3, 5_000);                // the first 3 requests
 *   await hook.waitUntil((all) => all.some(isFinal), 5_000);  // any condition over all requests
 *   await hook.close();
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from './bindings.js';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  /** Node's lower-cased request headers. */
  headers: IncomingHttpHeaders;
  /** The raw body. */
  body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: Json;
  /** The status this receiver answered with (0 while `respond` has not answered yet). */
  status: number;
}

export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; body?: string };

export interface ReceiverOptions {
  /**
   * Chooses the answer to each request; `n` counts requests from 1 (the first request is n = 1).
   * May be async (e.g. to hold a request open). Default: 200.
   */
  respond?: (req: ReceivedRequest, n: number) => ReceiverAnswer | Promise<ReceiverAnswer>;
}

export interface Receiver {
  /** http://127.0.0.1:<port>/webhook */
  url: string;
  /** Every request received so far, in arrival order, recorded on arrival (live array). */
  requests: ReceivedRequest[];
  /** Resolves with the first `n` requests once that many arrived; fails after `timeoutMs` (default 5 s). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /**
   * Resolves with all requests once `check(requests)` holds (checked on each arrival and on each
   * answer, so `status` may be part of the condition); fails after `timeoutMs` (default 5 s).
   */
  waitUntil(check: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export function startReceiver(): Promise<Receiver>;
export function startReceiver(options: ReceiverOptions): Promise<Receiver>;
export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const listeners = new Set<() => void>();
  let count = 0;
  /** Re-checks the waiters: on arrival and again once the answer (status) is known. */
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json: parse(body), status: 0 };
        const n = ++count;
        // Recorded on arrival, so a test sees requests that `respond` holds open.
        requests.push(entry);
        notify();
        let answer: ReceiverAnswer = 200;
        try {
          answer = options.respond ? await options.respond(entry, n) : 200;
        } catch {
          answer = 500;
        }
        const a = typeof answer === 'number' ? { status: answer } : answer;
        entry.status = a.status;
        notify();
        res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? '');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function waitUntil(check: (all: ReceivedRequest[]) => boolean, timeoutMs = 5_000): Promise<ReceivedRequest[]> {
    if (check(requests)) return Promise.resolve(requests);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        listeners.delete(listener);
      };
      const listener = () => {
        if (!check(requests)) return;
        done();
        resolve(requests);
      };
      const timer = setTimeout(() => {
        done();
        reject(new assert.AssertionError({ message: `webhook receiver: condition not met within ${timeoutMs} ms; ${describe(requests)}` }));
      }, timeoutMs);
      listeners.add(listener);
    });
  }

  return {
    url: `http://127.0.0.1:${port}/webhook`,
    requests,
    waitUntil,
    async waitFor(n, timeoutMs) {
      await waitUntil((all) => all.length >= n, timeoutMs);
      return requests.slice(0, n);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function parse(body: string): Json {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function describe(requests: ReceivedRequest[]): string {
  const tail = requests.slice(-5).map((r) => `${r.status} ${r.path} ${r.body.slice(0, 200)}`);
  return `${requests.length} request(s) so far${tail.length ? `; last: ${tail.join(' | ')}` : ''}`;
}
