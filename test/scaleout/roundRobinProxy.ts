/**
 * A loopback HTTP proxy in front of several instances, like a load balancer without session
 * affinity: each request goes to the next instance in turn, responses (event streams included)
 * are passed through as they arrive, and `cutStreams()` destroys every event stream open at that
 * moment (the client sees a dropped connection, the instance sees a disconnect).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  /** Index of the instance (in `targets`) the request went to. */
  target: number;
  method: string;
  path: string;
  lastEventId: string | undefined;
  /** The response was an event stream. */
  stream?: boolean;
  /** The proxy cut this stream. */
  cut?: boolean;
}

export interface RoundRobinProxy {
  url: string;
  /** Every request forwarded, in order. */
  readonly log: readonly ProxiedRequest[];
  /** Destroys every event stream open through the proxy now; returns how many. */
  cutStreams(): number;
  close(): Promise<void>;
}

/** Starts the proxy; `targets` are base URLs (`http://host:port`). */
export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  const log: ProxiedRequest[] = [];
  const open = new Map<ServerResponse, { entry: ProxiedRequest; cut: () => void }>();
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = next++ % targets.length;
    const base = new URL(targets[target] as string);
    const header = req.headers['last-event-id'];
    const entry: ProxiedRequest = {
      target,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      lastEventId: Array.isArray(header) ? header[0] : header,
    };
    log.push(entry);
    const upstream = request(
      { hostname: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if ((answer.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          entry.stream = true;
          res.flushHeaders();
          open.set(res, {
            entry,
            cut: () => {
              entry.cut = true;
              answer.destroy();
              res.destroy();
            },
          });
        }
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      open.delete(res);
      upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    cutStreams() {
      const streams = [...open.values()];
      open.clear();
      for (const s of streams) s.cut();
      return streams.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open.values()) s.cut();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
