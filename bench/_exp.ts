import http from 'node:http';
import autocannon from 'autocannon';
const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { x: 'y'.repeat(500) } });
const s = http.createServer((req, res) => { const c: Buffer[] = []; req.on('data', (d: Buffer) => c.push(d)); req.on('end', () => { JSON.parse(Buffer.concat(c).toString()); res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }); res.end(big); }); });
s.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(s.address() as any).port}/`;
  for (const body of ['{"a":"[<id>]"}', '{"a":"fixed"}', '{"a":"[<id>]"}', '{"a":"fixed"}']) {
    const r = await autocannon({ url, method: 'POST', body, idReplacement: body.includes('[<id>]'), connections: 64, duration: 2, headers: { 'content-type': 'application/json' } });
    console.log(body, r.requests.total / r.duration);
  }
  s.close();
});
