/**
 * Card discovery and caching (CARD-02, CACHE-04/05), card checks, and interface selection
 * (CARD-05): the server's order of preference among the bindings and versions the client
 * supports, with transports plugged in through options.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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

