/** A loopback TCP relay to PostgreSQL that a test switches off (every connection cut, new ones refused) and on again. */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP relay to PostgreSQL that can be switched off (cut every connection, refuse new ones) and on. */
export interface Relay {
  url: string;
  off(): Promise<void>;
  on(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(target: URL): Promise<Relay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server?.address() as AddressInfo).port;
        resolve();
      });
    });
  const off = async () => {
    const closed = new Promise((resolve) => server?.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
  };
  await listen();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), off, on: listen, close: off };
}
