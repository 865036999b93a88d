/**
 * Card discovery and caching (CARD-02, CACHE-04/05), card checks, and interface selection
 * (CARD-05): the server's order of preference among the bindings and versions the client
 * supports, with transports plugged in through options.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  A2AClientError,
  CardCache,
  cardUrlFor,
  createClient,
  resolveCard,
  type AgentCard,
} from '../../src/client/index.js';
import { startServer, type TestServer } from '../support/server.js';
import { hook, record, type Seen } from './helpers.js';

describe('card resolution and caching', () => {
  let server: TestServer;
  let seen: Seen[];
  before(async () => {
    server = await startServer({ handler: { cardMaxAgeSeconds: 0 } });
    seen = record(server);
  });
  after(() => server.close());

  const cardRequests = () => seen.filter((s) => s.path === '/.well-known/agent-card.json');

  test('the card URL of an agent URL', () => {
    assert.equal(cardUrlFor('https://agent.example.com'), 'https://agent.example.com/.well-known/agent-card.json');
    assert.equal(cardUrlFor('https://example.com/agents/a/'), 'https://example.com/agents/a/.well-known/agent-card.json');
    assert.equal(cardUrlFor('https://example.com/cards/a.json'), 'https://example.com/cards/a.json');
  });

  test('max-age=0 with an ETag: revalidated with If-None-Match, 304 keeps the cached card', async () => {
    const cache = new CardCache();
    const from = cardRequests().length;
    const first = await createClient(server.url, { cardCache: cache });
    const second = await createClient(server.url, { cardCache: cache });
    const requests = cardRequests().slice(from);
    assert.deepEqual(requests.map((r) => r.status), [200, 304]);
    assert.equal(requests[0]?.headers['if-none-match'], undefined);
    assert.match(requests[1]?.headers['if-none-match'] ?? '', /^"[0-9a-f]{16}"$/);
    assert.equal(requests[0]?.headers['a2a-version'], '1.0');
    assert.deepEqual(second.card, first.card);
    assert.equal(await second.refreshCard(), second.card);
    assert.equal(cardRequests().at(-1)?.status, 304);
  });

  test('cardCache: false fetches every time without validators', async () => {
    const from = cardRequests().length;
    await createClient(server.url, { cardCache: false });
    await createClient(server.url, { cardCache: false });
    assert.deepEqual(cardRequests().slice(from).map((r) => [r.status, r.headers['if-none-match']]), [
      [200, undefined],
      [200, undefined],
    ]);
  });

  test('VER-02: a caller A2A-Version header, in any case, replaces the default one on the card request (the 0.3 or hybrid card can be asked for)', async () => {
    const from = cardRequests().length;
    const v03 = await resolveCard(server.url, { cache: false, headers: { 'a2a-version': '0.3' } });
    await resolveCard(server.url, { cache: false, headers: { 'A2A-VERSION': '' } });
    await resolveCard(server.url, { cache: false });
    assert.deepEqual(cardRequests().slice(from).map((r) => r.headers['a2a-version']), ['0.3', '', '1.0']);
    assert.equal(v03.supportedInterfaces[0]?.protocolVersion, '0.3', 'the 0.3 card, read as 1.0');
  });

  test('a fresh card (max-age) is not fetched again; no-store is never cached', async () => {
    let calls = 0;
    let cacheControl = 'public, max-age=300';
    const fetch = async (input: string, init: RequestInit) => {
      calls++;
      const res = await globalThis.fetch(input, init);
      const headers = new Headers(res.headers);
      headers.set('cache-control', cacheControl);
      return new Response(res.status === 304 ? null : await res.text(), { status: res.status, headers });
    };
    const cache = new CardCache();
    await resolveCard(server.url, { fetch, cache });
    await resolveCard(server.url, { fetch, cache });
    assert.equal(calls, 1);
    cache.clear();
    cacheControl = 'no-store';
    await resolveCard(server.url, { fetch, cache });
    await resolveCard(server.url, { fetch, cache });
    assert.equal(calls, 3);
  });

  test('bad cards: BAD_CARD', async () => {
    await assert.rejects(resolveCard(`${server.url}/nothing/here.json`, { cache: false }), (e: unknown) => A2AClientError.is(e, 'BAD_CARD') && e.status === 404);
    const undo = hook(server, async (req, next) =>
      req.path.endsWith('agent-card.json') ? { status: 200, headers: { 'content-type': 'application/json' }, body: req.query.get('v') === 'html' ? '<html>' : '{"name":"x","capabilities":{}}' } : next(req),
    );
    try {
      await assert.rejects(createClient(`${server.url}/.well-known/agent-card.json?v=html`, { cardCache: false }), (e: unknown) => A2AClientError.is(e, 'BAD_CARD') && /not JSON/.test(e.message));
      await assert.rejects(createClient(server.url, { cardCache: false }), (e: unknown) => A2AClientError.is(e, 'BAD_CARD') && /supportedInterfaces/.test(e.message));
    } finally {
      undo();
    }
    await assert.rejects(createClient({ name: 'x' } as unknown as AgentCard), (e: unknown) => A2AClientError.is(e, 'BAD_CARD'));
  });
});

/**
 * A raw card server: `/stall` never answers; `/endless` streams a card body that never ends
 * (chunked, no Content-Length); `/announced` announces 200 MB and then sends nothing more;
 * `/card` serves `card`. Counts the bytes of the endless body written.
 */
async function startRawCardServer(card: AgentCard) {
  const state = { endlessBytes: 0 };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/stall')) return;
    if (path.startsWith('/endless')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write('{"name":"x","padding":"');
      const pump = () => {
        while (!res.destroyed && state.endlessBytes < 1024 * 1024 * 1024) {
          state.endlessBytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
      return;
    }
    if (path.startsWith('/announced')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) });
      res.write('{"name":"x",');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    state,
    url: (path: string) => `${base}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('R16 CARD-02 the card is read with a size limit, and aborts are reported as such', () => {
  let agent: TestServer;
  let raw: Awaited<ReturnType<typeof startRawCardServer>>;
  before(async () => {
    agent = await startServer();
    raw = await startRawCardServer(agent.card);
  });
  after(async () => {
    await raw.close();
    await agent.close();
  });

  const tooLarge = (max: number) => (e: unknown) => A2AClientError.is(e, 'BAD_CARD') && e.message.includes(`card too large (more than ${max} bytes)`);

  test('a body without Content-Length that never ends: BAD_CARD past 1 MiB, the download stopped', { timeout: 20_000 }, async () => {
    await assert.rejects(resolveCard(raw.url('/endless/card.json'), { cache: false }), tooLarge(1024 * 1024));
    await assert.rejects(createClient(raw.url('/endless/card.json'), { cardCache: false, maxCardBytes: 100_000 }), tooLarge(100_000));
    const written = raw.state.endlessBytes;
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(raw.state.endlessBytes < 64 * 1024 * 1024, `the server wrote ${raw.state.endlessBytes} bytes`);
    assert.ok(raw.state.endlessBytes - written < 8 * 1024 * 1024, 'the client stopped reading');
  });

  test('a Content-Length beyond the limit: BAD_CARD before reading the body', { timeout: 20_000 }, async () => {
    await assert.rejects(resolveCard(raw.url('/announced/card.json'), { cache: false }), tooLarge(1024 * 1024));
  });

  test('maxCardBytes: a real card over a small limit is refused, under the default it is read', async () => {
    await assert.rejects(resolveCard(raw.url('/card.json'), { cache: false, maxCardBytes: 100 }), tooLarge(100));
    const card = await resolveCard(raw.url('/card.json'), { cache: false });
    assert.equal(card.name, agent.card.name);
  });

  test('resolveCard({ signal }) on a server that never answers: TIMEOUT for AbortSignal.timeout(), ABORTED for an abort', { timeout: 20_000 }, async () => {
    await assert.rejects(resolveCard(raw.url('/stall/card.json'), { cache: false, signal: AbortSignal.timeout(200) }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await assert.rejects(resolveCard(raw.url('/stall/card.json'), { cache: false, signal: controller.signal }), (e: unknown) => A2AClientError.is(e, 'ABORTED'));
    // Aborted while the body arrives (the headers came): the same.
    await assert.rejects(resolveCard(raw.url('/announced/card.json'), { cache: false, signal: AbortSignal.timeout(200), maxCardBytes: 1e9 }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
    await assert.rejects(createClient(raw.url('/stall/card.json'), { cardCache: false, timeoutMs: 200 }), (e: unknown) => A2AClientError.is(e, 'TIMEOUT'));
  });
});


describe('CACHE-04 the card cache is bounded: a client resolving caller-chosen agent URLs does not grow without end', () => {
  const card = { name: 'a', capabilities: {}, supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
  /** Serves `card` with an ETag and `cacheControl(url)`; 304 to a revalidation. Records [card URL, If-None-Match]. */
  function agents(cacheControl: (url: string) => string = () => 'max-age=300') {
    const fetched: Array<[string, string | null]> = [];
    const fetch = async (input: string, init: RequestInit) => {
      const etag = new Headers(init.headers).get('if-none-match');
      fetched.push([new URL(input).host, etag]);
      const headers = { etag: '"v1"', 'cache-control': cacheControl(input) };
      return etag ? new Response(null, { status: 304, headers }) : new Response(JSON.stringify(card), { headers });
    };
    const resolve = (cache: CardCache, ...hosts: string[]) => Promise.all(hosts.map((h) => resolveCard(`https://${h}`, { fetch, cache })));
    return { fetched, resolve };
  }

  test('maxEntries: resolving N+1 distinct agents evicts the least recently used; one used since stays cached', async () => {
    const { fetched, resolve } = agents();
    const cache = new CardCache({ maxEntries: 3 });
    for (const host of ['a.example', 'b.example', 'c.example']) await resolve(cache, host);
    await resolve(cache, 'a.example');
    await resolve(cache, 'd.example');
    assert.equal(cache.size, 3);
    fetched.length = 0;
    await resolve(cache, 'a.example', 'c.example', 'd.example');
    assert.deepEqual(fetched, [], 'a (used since), c and d: still cached and fresh');
    await resolve(cache, 'b.example');
    assert.deepEqual(fetched, [['b.example', null]], 'b, the least recently used, was evicted: fetched anew');
  });

  test('the default: 1,000 cards, not one per URL ever resolved', async () => {
    const { fetched, resolve } = agents();
    const cache = new CardCache();
    for (let i = 0; i <= 1000; i++) await resolve(cache, `a${i}.example`);
    assert.equal(cache.size, 1000);
    fetched.length = 0;
    await resolve(cache, 'a1000.example', 'a0.example');
    assert.deepEqual(fetched, [['a0.example', null]]);
  });

  test('maxStaleMs: a card stale for long goes before the least recently used when the cache is full', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { fetched, resolve } = agents((url) => (url.includes('long') ? 'max-age=864000' : 'max-age=0'));
    const cache = new CardCache({ maxEntries: 2, maxStaleMs: 86_400_000 });
    await resolve(cache, 'long.example');
    await resolve(cache, 'short.example');
    t.mock.timers.tick(2 * 86_400_000);
    // short.example has been stale (kept for revalidation) for two days: it goes, not long.example.
    await resolve(cache, 'other.example');
    fetched.length = 0;
    await resolve(cache, 'long.example');
    await resolve(cache, 'short.example');
    assert.deepEqual(fetched, [['short.example', null]], 'long.example fresh from the cache; short.example fetched anew, no ETag left');
  });
});
