/**
 * The "ceiling": a bare node:http server that does the least work any A2A server must do —
 * read the whole body, JSON.parse it — and answers a constant, pre-recorded response of the
 * same size as our server's answer (or the same SSE events). Nothing can be faster than this
 * on the same Node, so ours/ceiling is the share of raw HTTP throughput we keep.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitWithParent, reportReady, type Canned, type CeilingConfig } from './ipc.js';

let routes: Record<string, Canned> = {};

process.on('message', (msg: CeilingConfig) => {
  if (msg.type !== 'canned') return;
  routes = msg.routes;
  process.send?.({ type: 'configured' });
});

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const canned = routes[req.url ?? ''];
    if (!canned) {
      res.writeHead(404).end();
      return;
    }
    if (canned.sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of canned.sse) res.write(event);
      res.end();
      return;
    }
    const body = canned.body ?? '';
    res.writeHead(200, { 'content-type': canned.contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  reportReady({ name: 'ceiling', url: base, jsonrpc: `${base}/jsonrpc`, rest: `${base}/rest` });
});
exitWithParent(() => new Promise<void>((resolve) => server.close(() => resolve())));
