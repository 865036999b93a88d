/**
 * guardedFetch against real loopback listeners (R14 SSRF matrix, R12 webhook hygiene). Every
 * blocked spelling of a loopback/metadata target must leave the listeners' connection counters at
 * 0, and the same URLs with `allowPrivate: true` must reach them (so the matrix can fail). Also:
 * resolvers that map a name to loopback or rebind between calls, a 302 that must not be followed,
 * https with SNI/Host kept on the hostname, the single deadline (DNS, headers, body), the body cap
 * against a never-ending stream, and the caller's abort signal.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { SsrfBlockedError, guardedFetch, type LookupAll } from '../../src/net/index.js';
import { eventually } from '../support/assertions.js';

// A self-signed certificate for `hook.test` (valid 2020..2119), used as its own CA.
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRxSzlg4DK06Gv84K
h/vBUFfcGdrWNi3OUVHX+Js0NY2hRANCAATIKKiBC29PeheYEYSpe7QjxVm9W3Q6
p9AfCuNjpTqoPfX6AT5RhGHUR7eOL8IE38NigQiewmCnNhjTJnl/hJne
-----END PRIVATE KEY-----
`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBYjCCAQegAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlob29rLnRl
c3QwIBcNMjAwMTAxMDAwMDAwWhgPMjExOTEyMzEwMDAwMDBaMBQxEjAQBgNVBAMM
CWhvb2sudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMgoqIELb096F5gR
hKl7tCPFWb1bdDqn0B8K42OlOqg99foBPlGEYdRHt44vwgTfw2KBCJ7CYKc2GNMm
eX+Emd6jSDBGMA8GA1UdEwEB/wQFMAMBAf8wFAYDVR0RBA0wC4IJaG9vay50ZXN0
MB0GA1UdDgQWBBSxyq0ZZYTXrIIxfsLt2O0B0apudzAKBggqhkjOPQQDAgNJADBG
AiEApVQzxRi0+f3ElqHz+jUsq/kFN5Cp3ZgMo58aEtfnwugCIQD3YwClg9BPQ0hN
vohutuwuxwnD6FC4dAygGyPRNFErlA==
-----END CERTIFICATE-----
`;

interface Listener {
  server: http.Server;
  port: number;
  connections: number;
  hosts: string[];
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const okHandler =
  (label: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`ok from ${label}`);
  };

async function listen(server: http.Server, host: string, port = 0): Promise<Listener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const listener: Listener = { server, port: (server.address() as AddressInfo).port, connections: 0, hosts: [] };
  server.on('connection', () => listener.connections++);
  server.on('request', (req: http.IncomingMessage) => listener.hosts.push(req.headers.host ?? ''));
  return listener;
}

async function listenHttp(host: string, handler: Handler, port = 0): Promise<Listener> {
  return listen(http.createServer(handler), host, port);
}

const opened: Listener[] = [];
after(() => {
  for (const l of opened) {
    l.server.closeAllConnections();
    l.server.close();
  }
});
async function track(listener: Promise<Listener>): Promise<Listener> {
  const l = await listener;
  opened.push(l);
  return l;
}

/** Loopback listeners on 127.0.0.1 and (when the host has IPv6) ::1, on the same port P. */
async function loopbackPair(): Promise<{ v4: Listener; v6: Listener | undefined }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const v4 = await track(listenHttp('127.0.0.1', okHandler('v4')));
    try {
      const v6 = await track(listenHttp('::1', okHandler('v6'), v4.port));
      return { v4, v6 };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE') return { v4, v6: undefined };
    }
  }
  throw new Error('no common port for 127.0.0.1 and ::1');
}

const { v4, v6 } = await loopbackPair();
const P = v4.port;
const total = (): number => v4.connections + (v6?.connections ?? 0);

function isBlocked(error: unknown): boolean {
  assert.ok(error instanceof SsrfBlockedError, `expected SsrfBlockedError, got ${String(error)}`);
  return true;
}

const toLoopback: LookupAll = async () => [{ address: '127.0.0.1', family: 4 }];

/** The R14 matrix: [url, listener that the allowPrivate run must reach, lookup]. */
const MATRIX: Array<{ url: string; reaches: () => Listener | undefined; lookup?: LookupAll; ipv6?: boolean }> = [
  { url: `http://[::1]:${P}/`, reaches: () => v6, ipv6: true },
  { url: `http://127.1:${P}/`, reaches: () => v4 },
  { url: `http://2130706433:${P}/`, reaches: () => v4 },
  { url: `http://0x7f.0.0.1:${P}/`, reaches: () => v4 },
  { url: `http://[::ffff:127.0.0.1]:${P}/`, reaches: () => v4, ipv6: true },
  { url: `http://0:${P}/`, reaches: () => v4 },
  { url: `http://localhost:${P}/`, reaches: () => undefined /* 127.0.0.1 or ::1, whichever the OS says */ },
  { url: `http://hook.test:${P}/`, reaches: () => v4, lookup: toLoopback },
];

test('R14 matrix: every loopback spelling is blocked before any connection', async () => {
  await assert.rejects(guardedFetch('http://169.254.169.254/latest/meta-data/', { timeoutMs: 2000 }), (e) =>
    isBlocked(e),
  );
  for (const row of MATRIX) {
    await assert.rejects(guardedFetch(row.url, { timeoutMs: 2000, ssrf: { lookup: row.lookup } }), isBlocked, row.url);
  }
  assert.equal(v4.connections, 0, 'no connection reached 127.0.0.1');
  assert.equal(v6?.connections ?? 0, 0, 'no connection reached ::1');
});

test('R14 matrix, control: the same URLs with allowPrivate do connect (so the matrix can fail)', async () => {
  for (const row of MATRIX) {
    if (row.ipv6 && !v6) continue;
    const target = row.reaches();
    const before = { target: target?.connections ?? 0, total: total() };
    const res = await guardedFetch(row.url, { timeoutMs: 5000, ssrf: { allowPrivate: true, lookup: row.lookup } });
    assert.equal(res.status, 200, row.url);
    assert.match(res.body.toString(), /^ok from v[46]$/, row.url);
    assert.equal(total(), before.total + 1, `${row.url}: one connection`);
    if (target) assert.equal(target.connections, before.target + 1, `${row.url}: reached the expected listener`);
  }
});

test('the Host header keeps the original hostname while the socket goes to the vetted address', async () => {
  await guardedFetch(`http://hook.test:${P}/path?q=1`, { ssrf: { allowPrivate: true, lookup: toLoopback } });
  assert.equal(v4.hosts.at(-1), `hook.test:${P}`);
});

test('a resolver answering [public, 127.0.0.1] is blocked; so is one answering [::1] only', async () => {
  const before = total();
  const mixed: LookupAll = async () => [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ];
  const v6only: LookupAll = async () => [{ address: '::1', family: 6 }];
  for (const lookup of [mixed, v6only]) {
    await assert.rejects(guardedFetch(`http://hook.test:${P}/`, { ssrf: { lookup } }), (e) => {
      isBlocked(e);
      assert.equal((e as SsrfBlockedError).reason, 'address');
      return true;
    });
  }
  assert.equal(total(), before);
});

test('rebinding resolver (public first, then 127.0.0.1): resolved once, loopback never reached', async () => {
  let calls = 0;
  const rebinding: LookupAll = async () => {
    calls++;
    return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  };
  const before = total();
  const started = Date.now();
  // Offline the connect to the public address fails or times out; online it may even answer.
  // Either way the loopback listener must not see the request.
  await guardedFetch(`http://rebind.test:${P}/`, { timeoutMs: 500, ssrf: { lookup: rebinding } }).then(
    (res) => assert.notEqual(res.body.toString(), 'ok from v4'),
    (error: unknown) => assert.ok(!(error instanceof SsrfBlockedError), String(error)),
  );
  assert.ok(Date.now() - started < 5000);
  assert.equal(calls, 1, 'the name is resolved exactly once');
  assert.equal(total(), before, 'no connection to loopback');
});

test('the connection goes to the vetted answer even when the resolver changes its mind', async () => {
  // Control for the test above: with allowPrivate the first answer (loopback) is vetted; the
  // resolver's later answer (a public address) must not be the one connected to.
  let calls = 0;
  const rebinding: LookupAll = async () => {
    calls++;
    return [{ address: calls === 1 ? '127.0.0.1' : '93.184.216.34', family: 4 }];
  };
  const before = v4.connections;
  const res = await guardedFetch(`http://rebind.test:${P}/`, { timeoutMs: 5000, ssrf: { allowPrivate: true, lookup: rebinding } });
  assert.equal(res.status, 200);
  assert.equal(res.body.toString(), 'ok from v4');
  assert.equal(calls, 1);
  assert.equal(v4.connections, before + 1);
});

test('a 302 to 127.0.0.1 is returned, never followed', async () => {
  const target = await track(listenHttp('127.0.0.1', okHandler('target')));
  const redirector = await track(
    listenHttp('127.0.0.1', (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` });
      res.end('moved');
    }),
  );
  const res = await guardedFetch(`http://127.0.0.1:${redirector.port}/hook`, { ssrf: { allowPrivate: true } });
  assert.equal(res.status, 302);
  assert.equal(res.headers.location, `http://127.0.0.1:${target.port}/`);
  assert.equal(res.body.toString(), 'moved');
  assert.equal(redirector.connections, 1);
  assert.equal(target.connections, 0, 'the redirect target saw no connection');
});

test('https: connects to the vetted address, SNI and Host stay the hostname, the cert is checked against it', async () => {
  const seen: { servername?: string | false | null; host?: string } = {};
  const server = https.createServer({ key: TLS_KEY, cert: TLS_CERT }, (req, res) => {
    seen.servername = (req.socket as TLSSocket).servername;
    seen.host = req.headers.host;
    res.end('secure');
  });
  const tls = await track(listen(server, '127.0.0.1'));
  const url = `https://hook.test:${tls.port}/hook`;

  await assert.rejects(guardedFetch(url, { ca: TLS_CERT, ssrf: { lookup: toLoopback } }), isBlocked);
  assert.equal(tls.connections, 0);

  const res = await guardedFetch(url, { ca: TLS_CERT, ssrf: { allowPrivate: true, lookup: toLoopback } });
  assert.equal(res.status, 200);
  assert.equal(res.body.toString(), 'secure');
  assert.equal(seen.servername, 'hook.test');
  assert.equal(seen.host, `hook.test:${tls.port}`);

  // The certificate names hook.test; another name on the same address fails verification.
  const other: LookupAll = toLoopback;
  await assert.rejects(
    guardedFetch(`https://other.test:${tls.port}/`, { ca: TLS_CERT, ssrf: { allowPrivate: true, lookup: other } }),
    (e: Error) => !(e instanceof SsrfBlockedError) && /altnames|certificate|Hostname/i.test(e.message),
  );
});

test('method, headers and body reach the receiver; the response comes back whole below the cap', async () => {
  let received: { method?: string; type?: string; length?: string; body: string } = { body: '' };
  const echo = await track(
    listenHttp('127.0.0.1', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received = {
          method: req.method,
          type: req.headers['content-type'],
          length: req.headers['content-length'],
          body: Buffer.concat(chunks).toString(),
        };
        res.writeHead(201, { 'x-reply': 'yes' });
        res.end('x'.repeat(1000));
      });
    }),
  );
  const res = await guardedFetch(`http://127.0.0.1:${echo.port}/hook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"a":"é"}',
    maxResponseBytes: 1000,
    ssrf: { allowPrivate: true },
  });
  assert.deepEqual(received, { method: 'POST', type: 'application/json', length: '10', body: '{"a":"é"}' });
  assert.equal(res.status, 201);
  assert.equal(res.headers['x-reply'], 'yes');
  assert.equal(res.body.length, 1000);
  assert.equal(res.truncated, false);
});

function elapsedSince(started: number): number {
  return Date.now() - started;
}

/** Fails (instead of hanging the suite) when `promise` does not settle within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('a receiver that never answers headers: times out promptly', async () => {
  const silent = await track(listenHttp('127.0.0.1', () => undefined));
  const started = Date.now();
  await assert.rejects(
    guardedFetch(`http://127.0.0.1:${silent.port}/`, { timeoutMs: 300, ssrf: { allowPrivate: true } }),
    (e: Error) => e.name === 'TimeoutError',
  );
  assert.ok(elapsedSince(started) < 5000);
  assert.equal(silent.connections, 1);
});

test('a receiver that writes headers (and a little body) then hangs: times out', async () => {
  const hanging = await track(
    listenHttp('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    }),
  );
  const started = Date.now();
  await assert.rejects(
    guardedFetch(`http://127.0.0.1:${hanging.port}/`, { timeoutMs: 300, ssrf: { allowPrivate: true } }),
    (e: Error) => e.name === 'TimeoutError',
  );
  assert.ok(elapsedSince(started) < 5000);
});

test('PUSHD-05 statusOnly: headers then a body that never ends settle with the status at once, truncated, socket dropped', async () => {
  let closes = 0;
  const hanging = await track(
    listenHttp('127.0.0.1', (_req, res) => {
      res.on('close', () => closes++);
      res.writeHead(202, { 'retry-after': '7' });
      res.write('x');
    }),
  );
  const started = Date.now();
  const res = await guardedFetch(`http://127.0.0.1:${hanging.port}/`, { timeoutMs: 3000, statusOnly: true, ssrf: { allowPrivate: true } });
  assert.equal(res.status, 202);
  assert.equal(res.headers['retry-after'], '7');
  assert.equal(res.truncated, true, 'the body was not read: truncated says so');
  assert.equal(res.body.length, 0);
  assert.ok(elapsedSince(started) < 2000, 'not held until the deadline');
  await eventually(async () => (closes === 1 ? true : undefined), 'the receiver seeing the connection closed');
});

/** A receiver that streams forever, until its socket closes; `closed` resolves on each close. */
function endlessStream(): { handler: Handler; closes: number[]; closed: () => Promise<void> } {
  const closes: number[] = [];
  let waiters: Array<() => void> = [];
  const handler: Handler = (_req, res) => {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    let open = true;
    res.on('close', () => {
      open = false;
      closes.push(Date.now());
      for (const wake of waiters) wake();
      waiters = [];
    });
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const pump = (): void => {
      while (open && res.write(chunk));
      if (open) res.once('drain', pump);
    };
    pump();
  };
  const closed = (): Promise<void> => new Promise((resolve) => waiters.push(resolve));
  return { handler, closes, closed };
}

test('a never-ending stream: the body is capped, truncated is set, the socket is dropped, we return promptly', async () => {
  const stream = endlessStream();
  const endless = await track(listenHttp('127.0.0.1', stream.handler));
  const started = Date.now();
  let closed = stream.closed();
  const res = await guardedFetch(`http://127.0.0.1:${endless.port}/`, {
    timeoutMs: 5000,
    maxResponseBytes: 100_000,
    ssrf: { allowPrivate: true },
  });
  assert.equal(res.status, 200);
  assert.equal(res.truncated, true);
  assert.equal(res.body.length, 100_000);
  assert.ok(elapsedSince(started) < 5000);
  // The receiver notices the dropped connection (its writes stop) instead of streaming on.
  await within(closed, 5000, 'the receiver seeing the connection dropped');

  closed = stream.closed();
  const byDefault = await guardedFetch(`http://127.0.0.1:${endless.port}/`, { ssrf: { allowPrivate: true } });
  assert.equal(byDefault.truncated, true);
  assert.equal(byDefault.body.length, 64 * 1024, 'default cap is 64 KiB');
  await within(closed, 5000, 'the receiver seeing the connection dropped');
  assert.equal(stream.closes.length, 2);
});

test('a resolver that never answers is covered by the same deadline', async () => {
  const never: LookupAll = () => new Promise(() => undefined);
  const started = Date.now();
  await assert.rejects(guardedFetch('http://slow.test/', { timeoutMs: 200, ssrf: { lookup: never } }), (e: Error) => e.name === 'TimeoutError');
  assert.ok(elapsedSince(started) < 5000);
});

test("the caller's signal aborts the request with its reason", async () => {
  const silent = await track(listenHttp('127.0.0.1', () => undefined));
  const controller = new AbortController();
  const reason = new Error('shutting down');
  setTimeout(() => controller.abort(reason), 100);
  await assert.rejects(
    guardedFetch(`http://127.0.0.1:${silent.port}/`, { signal: controller.signal, ssrf: { allowPrivate: true } }),
    (e) => e === reason,
  );
  const aborted = AbortSignal.abort(reason);
  await assert.rejects(guardedFetch(`http://127.0.0.1:${silent.port}/`, { signal: aborted, ssrf: { allowPrivate: true } }), (e) => e === reason);
});

test('blocked errors carry neither credentials nor the query', async () => {
  await assert.rejects(guardedFetch(`http://admin:s3cret@127.0.0.1:${P}/?token=t0ken`), (e) => {
    isBlocked(e);
    const err = e as SsrfBlockedError;
    assert.equal(err.reason, 'userinfo');
    assert.doesNotMatch(`${err.message} ${err.url}`, /s3cret|admin|t0ken/);
    return true;
  });
});
